import { isUuid } from "../../db/uuid.js";
import type { AlsoInTransaction, Transaction, Transactions } from "../../db/transaction.js";
import { AppError } from "../../errors.js";
import { plans } from "../billing/plans.js";
import type { AccountRepository } from "./account.repository.js";
import type { ApiKeyRepository } from "./api-keys/api-key.repository.js";
import type { Invitation } from "./invitation.entity.js";
import type { InvitationRepository } from "./invitation.repository.js";
import type { User } from "./user.entity.js";
import type { UserRepository } from "./user.repository.js";

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
 * Seats (docs/api.md §5): an account's members are bounded by its plan's seats, and a
 * pending invitation holds a seat, so accepting one can never exceed the plan.
 */
export class MembersService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly users: UserRepository,
    private readonly invitations: InvitationRepository,
    private readonly apiKeys: ApiKeyRepository,
    private readonly transactions: Transactions,
  ) {}

  async list(accountId: string): Promise<{ members: MemberView[]; invitations: InvitationView[] }> {
    const [users, invitations] = await Promise.all([
      this.users.listInAccount(accountId),
      this.invitations.listPending(accountId),
    ]);
    return { members: users.map(memberView), invitations: invitations.map(invitationView) };
  }

  /** Invites an address; inviting it again returns the pending invitation. PLAN_LIMIT_REACHED when every seat is taken. */
  async invite(
    accountId: string,
    invitedBy: string,
    rawEmail: string,
    alsoInTransaction?: AlsoInTransaction,
  ): Promise<InvitationView> {
    const email = rawEmail.trim().toLowerCase();
    if (email.length > MAX_EMAIL || !EMAIL.test(email))
      throw new AppError("VALIDATION_FAILED", "email: must be an e-mail address");
    return this.transactions.run(async (tx) => {
      const account = await this.accounts.lock(tx, accountId);
      const pending = await this.invitations.findPendingFor(tx, accountId, email);
      if (pending) {
        await alsoInTransaction?.(tx, pending.id);
        return invitationView(pending);
      }
      if (await this.users.hasEmailInAccount(tx, accountId, email))
        throw new AppError("VALIDATION_FAILED", "email: is already a member of this account");
      const seats = plans[account.plan].seats;
      const taken = await this.seatsTaken(tx, accountId);
      if (seats !== null && taken >= seats) {
        throw new AppError(
          "PLAN_LIMIT_REACHED",
          `The ${plans[account.plan].name} plan includes ${seats} seat${seats === 1 ? "" : "s"}, all taken by members or pending invitations.`,
          {
            action: "Remove a member or cancel an invitation, or upgrade your plan for more seats.",
          },
        );
      }
      const invitation = await this.invitations.create(tx, { accountId, email, invitedBy });
      await alsoInTransaction?.(tx, invitation.id);
      return invitationView(invitation);
    });
  }

  /** The invitation an idempotent request made, for its replay: NOT_FOUND once it was accepted or cancelled. */
  async invitation(accountId: string, id: string): Promise<InvitationView> {
    const invitation = isUuid(id) ? await this.invitations.findPendingById(accountId, id) : null;
    if (!invitation)
      throw new AppError("NOT_FOUND", "The invitation this Idempotency-Key created is no longer pending.");
    return invitationView(invitation);
  }

  async cancelInvitation(accountId: string, id: string): Promise<InvitationView> {
    const invitation = isUuid(id) ? await this.invitations.findPendingById(accountId, id) : null;
    if (!invitation) throw new AppError("NOT_FOUND", "No such invitation.");
    await this.invitations.delete(invitation.id);
    return invitationView(invitation);
  }

  /**
   * Frees the member's seat at once and revokes the API keys they created (in the
   * same transaction: a removed person's integration stops with them); their next
   * sign-in starts a Free account of their own.
   */
  async remove(accountId: string, actingUserId: string, userId: string): Promise<MemberView> {
    if (userId === actingUserId)
      throw new AppError("VALIDATION_FAILED", "id: you cannot remove yourself; another member can");
    return this.transactions.run(async (tx) => {
      const user = isUuid(userId) ? await this.users.findInAccount(tx, accountId, userId) : null;
      if (!user) throw new AppError("NOT_FOUND", "No such member.");
      await this.users.remove(tx, user.id);
      await this.apiKeys.revokeAllCreatedBy(tx, accountId, user.id);
      return memberView(user);
    });
  }

  /**
   * Accepts the oldest pending invitation of a verified address whose account still
   * has the seat, inside the sign-in transaction. Returns the account joined, if any.
   */
  async acceptInvitation(tx: Transaction, email: string): Promise<string | undefined> {
    const candidates = await this.invitations.pendingForEmail(tx, email.trim().toLowerCase());
    for (const invitation of candidates) {
      const account = await this.accounts.lock(tx, invitation.accountId);
      const seats = plans[account.plan].seats;
      // The pending invitation itself holds one of the taken seats.
      if (seats !== null && (await this.seatsTaken(tx, account.id)) > seats) continue;
      await this.invitations.markAccepted(tx, invitation.id, new Date());
      return account.id;
    }
    return undefined;
  }

  /** Members plus pending invitations. */
  private async seatsTaken(tx: Transaction, accountId: string): Promise<number> {
    const [members, pending] = await Promise.all([
      this.users.countInAccount(tx, accountId),
      this.invitations.countPending(tx, accountId),
    ]);
    return members + pending;
  }
}

const memberView = (user: User): MemberView => ({
  id: user.id,
  email: user.email,
  name: user.name,
  joinedAt: user.createdAt,
});
const invitationView = (invitation: Invitation): InvitationView => ({
  id: invitation.id,
  email: invitation.email,
  createdAt: invitation.createdAt,
});
