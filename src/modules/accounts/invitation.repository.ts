import { IsNull, type DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";
import { Invitation } from "./invitation.entity.js";

/** The `invitations` table: seats offered to e-mail addresses (pending until accepted). */
export class InvitationRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The account's pending invitations, oldest first. */
  listPending(accountId: string): Promise<Invitation[]> {
    return this.dataSource
      .getRepository(Invitation)
      .find({ where: { accountId, acceptedAt: IsNull() }, order: { createdAt: "ASC", id: "ASC" } });
  }

  findPendingFor(tx: Transaction, accountId: string, email: string): Promise<Invitation | null> {
    return tx.findOneBy(Invitation, { accountId, email, acceptedAt: IsNull() });
  }

  findPendingById(accountId: string, id: string): Promise<Invitation | null> {
    return this.dataSource.getRepository(Invitation).findOneBy({ id, accountId, acceptedAt: IsNull() });
  }

  /** Every account's pending invitation of an address, oldest first. */
  pendingForEmail(tx: Transaction, email: string): Promise<Invitation[]> {
    return tx.find(Invitation, { where: { email, acceptedAt: IsNull() }, order: { createdAt: "ASC" } });
  }

  countPending(tx: Transaction, accountId: string): Promise<number> {
    return tx.countBy(Invitation, { accountId, acceptedAt: IsNull() });
  }

  create(tx: Transaction, fields: { accountId: string; email: string; invitedBy: string }): Promise<Invitation> {
    return tx.save(tx.create(Invitation, { ...fields, acceptedAt: null }));
  }

  async markAccepted(tx: Transaction, id: string, at: Date): Promise<void> {
    await tx.update(Invitation, { id }, { acceptedAt: at });
  }

  async delete(id: string): Promise<void> {
    await this.dataSource.getRepository(Invitation).delete({ id });
  }
}
