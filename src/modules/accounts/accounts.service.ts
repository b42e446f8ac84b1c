import { CURRENT_API_VERSION } from "../../api-versions.js";
import type { Transactions } from "../../db/transaction.js";
import type { AccountRepository } from "./account.repository.js";
import type { MembersService } from "./members.service.js";
import type { SessionClaims } from "./session/session-verifier.js";
import { SubjectTaken, type UserRepository } from "./user.repository.js";

export interface Member {
  readonly userId: string;
  readonly accountId: string;
  /** The account's pinned API version, when it was read (absent for the first sign-in into an invitation). */
  readonly apiVersion?: string;
}

/**
 * Who a verified session is: the first sign-in of a new subject joins the account that
 * invited its verified address, or else creates the user and a Free account.
 */
export class AccountsService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly users: UserRepository,
    private readonly members: MembersService,
    private readonly transactions: Transactions,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async signIn(claims: SessionClaims): Promise<Member> {
    const known = await this.find(claims.subject);
    if (known) return known;
    try {
      return await this.transactions.run(async (tx) => {
        // An invitation binds an address, so only an address the provider verified may take it.
        const invited =
          claims.email && claims.emailVerified ? await this.members.acceptInvitation(tx, claims.email) : undefined;
        const accountId =
          invited ??
          (await this.accounts.create(tx, {
            name: claims.name ?? claims.email ?? "My account",
            plan: "free",
            billingCycleAnchor: this.clock(),
            apiVersion: CURRENT_API_VERSION,
          }));
        const user = await this.users.create(tx, {
          accountId,
          subject: claims.subject,
          email: claims.email ?? "",
          name: claims.name ?? null,
        });
        return { userId: user.id, accountId, ...(invited ? {} : { apiVersion: CURRENT_API_VERSION }) };
      });
    } catch (error) {
      // Two first requests of the same person at once: the other one created the user.
      if (!(error instanceof SubjectTaken)) throw error;
      const member = await this.find(claims.subject);
      if (!member) throw error;
      return member;
    }
  }

  private async find(subject: string): Promise<Member | undefined> {
    const user = await this.users.findBySubject(subject);
    return user ? { userId: user.id, accountId: user.accountId, apiVersion: user.account.apiVersion } : undefined;
  }
}
