import type { DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";
import { User } from "./user.entity.js";

const UNIQUE_VIOLATION = "23505";

/** Another transaction created the user of this subject first (users.subject is unique). */
export class SubjectTaken extends Error {
  constructor() {
    super("A user with this subject already exists.");
    this.name = "SubjectTaken";
  }
}

/** The `users` table: the people who signed in, each a member of one account. */
export class UserRepository {
  constructor(private readonly dataSource: DataSource) {}

  findById(userId: string): Promise<User | null> {
    return this.dataSource.getRepository(User).findOneBy({ id: userId });
  }

  /** The user with its account (a session's request reads the account's pinned API version). */
  findBySubject(subject: string): Promise<User | null> {
    return this.dataSource.getRepository(User).findOne({ where: { subject }, relations: { account: true } });
  }

  /** SubjectTaken when the subject already has a user; the transaction is then void. */
  async create(
    tx: Transaction,
    fields: { accountId: string; subject: string; email: string; name: string | null },
  ): Promise<User> {
    try {
      return await tx.save(tx.create(User, fields));
    } catch (error) {
      // Only the fact crosses: the driver's error carries the row's values.
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new SubjectTaken();
      throw error;
    }
  }

  /** The account's members, oldest first. */
  listInAccount(accountId: string): Promise<User[]> {
    return this.dataSource.getRepository(User).find({ where: { accountId }, order: { createdAt: "ASC", id: "ASC" } });
  }

  findInAccount(tx: Transaction, accountId: string, userId: string): Promise<User | null> {
    return tx.findOneBy(User, { id: userId, accountId });
  }

  hasEmailInAccount(tx: Transaction, accountId: string, email: string): Promise<boolean> {
    return tx.existsBy(User, { accountId, email });
  }

  countInAccount(tx: Transaction, accountId: string): Promise<number> {
    return tx.countBy(User, { accountId });
  }

  async remove(tx: Transaction, userId: string): Promise<void> {
    await tx.delete(User, { id: userId });
  }
}
