import type { DataSource, EntityManager } from "typeorm";
import { isUuid } from "../../db/uuid.js";
import { IsNull } from "typeorm";
import { AppError } from "../../errors.js";
import { plans } from "../billing/plans.js";
import { Account } from "./account.entity.js";
import { Invitation } from "./invitation.entity.js";
import { User } from "./user.entity.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_EMAIL = 254;

export interface MemberView {
  readonly id: string;
  readonly email: string;
  readonly name: string | null;
  readonly joinedAt: Date;
}

export interface InvitationView {
  readonly id: string;
  readonly email: string;
  readonly createdAt: Date;
}

/**
 * Seats (DESIGN.md §5): an account's members are bounded by its plan's seats, and a
 * pending invitation holds a seat, so accepting one can never exceed the plan.
 */
export class MembersService {
  constructor(private readonly dataSource: DataSource) {}

  async list(accountId: string): Promise<{ members: MemberView[]; invitations: InvitationView[] }> {
    const [users, invitations] = await Promise.all([
      this.dataSource.getRepository(User).find({ where: { accountId }, order: { createdAt: "ASC", id: "ASC" } }),
      this.dataSource.getRepository(Invitation).find({ where: { accountId, acceptedAt: IsNull() }, order: { createdAt: "ASC", id: "ASC" } }),
    ]);
    return { members: users.map(memberView), invitations: invitations.map(invitationView) };
  }

  /** Invites an address; inviting it again returns the pending invitation. PLAN_LIMIT_REACHED when every seat is taken. */
  async invite(accountId: string, invitedBy: string, rawEmail: string): Promise<InvitationView> {
    const email = rawEmail.trim().toLowerCase();
    if (email.length > MAX_EMAIL || !EMAIL.test(email)) throw new AppError("VALIDATION_FAILED", "email: must be an e-mail address");
    return this.dataSource.transaction(async (manager) => {
      const account = await lockAccount(manager, accountId);
      const pending = await manager.findOneBy(Invitation, { accountId, email, acceptedAt: IsNull() });
      if (pending) return invitationView(pending);
      if (await manager.existsBy(User, { accountId, email })) throw new AppError("VALIDATION_FAILED", "email: is already a member of this account");
      const seats = plans[account.plan].seats;
      const taken = await seatsTaken(manager, accountId);
      if (seats !== null && taken >= seats) {
        throw new AppError("PLAN_LIMIT_REACHED", `The ${plans[account.plan].name} plan includes ${seats} seat${seats === 1 ? "" : "s"}, all taken by members or pending invitations.`, {
          action: "Remove a member or cancel an invitation, or upgrade your plan for more seats.",
        });
      }
      return invitationView(await manager.save(manager.create(Invitation, { accountId, email, invitedBy, acceptedAt: null })));
    });
  }

  async cancelInvitation(accountId: string, id: string): Promise<InvitationView> {
    const invitations = this.dataSource.getRepository(Invitation);
    const invitation = isUuid(id) ? await invitations.findOneBy({ id, accountId, acceptedAt: IsNull() }) : null;
    if (!invitation) throw new AppError("NOT_FOUND", "No such invitation.");
    await invitations.delete({ id: invitation.id });
    return invitationView(invitation);
  }

  /**
   * Frees the member's seat at once and revokes the API keys they created (in the
   * same transaction: a removed person's integration stops with them); their next
   * sign-in starts a Free account of their own.
   */
  async remove(accountId: string, actingUserId: string, userId: string): Promise<MemberView> {
    if (userId === actingUserId) throw new AppError("VALIDATION_FAILED", "id: you cannot remove yourself; another member can");
    return this.dataSource.transaction(async (manager) => {
      const user = isUuid(userId) ? await manager.findOneBy(User, { id: userId, accountId }) : null;
      if (!user) throw new AppError("NOT_FOUND", "No such member.");
      await manager.delete(User, { id: user.id });
      await manager.query(`UPDATE "api_keys" SET "revoked_at" = now() WHERE "account_id" = $1 AND "created_by" = $2 AND "revoked_at" IS NULL`, [
        accountId,
        user.id,
      ]);
      return memberView(user);
    });
  }
}

/**
 * Accepts the oldest pending invitation of a verified address whose account still
 * has the seat, inside the sign-in transaction. Returns the account joined, if any.
 */
export async function acceptInvitation(manager: EntityManager, email: string): Promise<string | undefined> {
  const candidates = await manager.find(Invitation, { where: { email: email.trim().toLowerCase(), acceptedAt: IsNull() }, order: { createdAt: "ASC" } });
  for (const invitation of candidates) {
    const account = await lockAccount(manager, invitation.accountId);
    const seats = plans[account.plan].seats;
    // The pending invitation itself holds one of the taken seats.
    if (seats !== null && (await seatsTaken(manager, account.id)) > seats) continue;
    await manager.update(Invitation, { id: invitation.id }, { acceptedAt: new Date() });
    return account.id;
  }
  return undefined;
}

async function lockAccount(manager: EntityManager, accountId: string): Promise<Account> {
  return manager.findOneOrFail(Account, { where: { id: accountId }, lock: { mode: "for_no_key_update" } });
}

/** Members plus pending invitations. */
export async function seatsTaken(manager: EntityManager, accountId: string): Promise<number> {
  const [members, pending] = await Promise.all([manager.countBy(User, { accountId }), manager.countBy(Invitation, { accountId, acceptedAt: IsNull() })]);
  return members + pending;
}

const memberView = (user: User): MemberView => ({ id: user.id, email: user.email, name: user.name, joinedAt: user.createdAt });
const invitationView = (invitation: Invitation): InvitationView => ({ id: invitation.id, email: invitation.email, createdAt: invitation.createdAt });
