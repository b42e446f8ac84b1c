import type { DataSource } from "typeorm";
import { Account } from "./account.entity.js";
import type { SessionClaims } from "./session/session-verifier.js";
import { acceptInvitation } from "./members.service.js";
import { User } from "./user.entity.js";

export interface Member {
  readonly userId: string;
  readonly accountId: string;
}

const UNIQUE_VIOLATION = "23505";

/**
 * Who a verified session is: the first sign-in of a new subject joins the account that
 * invited its verified address, or else creates the user and a Free account.
 */
export class AccountsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async signIn(claims: SessionClaims): Promise<Member> {
    const known = await this.find(claims.subject);
    if (known) return known;
    try {
      return await this.dataSource.transaction(async (manager) => {
        // An invitation binds an address, so only an address the provider verified may take it.
        const invited = claims.email && claims.emailVerified ? await acceptInvitation(manager, claims.email) : undefined;
        const accountId =
          invited ??
          (
            await manager.save(
              manager.create(Account, { name: claims.name ?? claims.email ?? "My account", plan: "free", billingCycleAnchor: this.clock() }),
            )
          ).id;
        const user = await manager.save(manager.create(User, { accountId, subject: claims.subject, email: claims.email ?? "", name: claims.name ?? null }));
        return { userId: user.id, accountId };
      });
    } catch (error) {
      // Two first requests of the same person at once: the other one created the user.
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      const member = await this.find(claims.subject);
      if (!member) throw error;
      return member;
    }
  }

  private async find(subject: string): Promise<Member | undefined> {
    const user = await this.dataSource.getRepository(User).findOneBy({ subject });
    return user ? { userId: user.id, accountId: user.accountId } : undefined;
  }
}
