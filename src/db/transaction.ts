import type { DataSource, EntityManager } from "typeorm";

/**
 * An open database transaction, handed from a service to the repositories it
 * composes so that their writes commit or roll back together. Services only pass
 * it along; repositories are the only code that looks inside (it is TypeORM's
 * EntityManager), so a service never depends on the ORM.
 */
export type Transaction = EntityManager;

/** Runs work in one READ COMMITTED transaction (PostgreSQL's default). */
export class Transactions {
  constructor(private readonly dataSource: DataSource) {}

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }
}

/**
 * More work for the transaction that creates something, given what it made: the creation
 * and this commit together or not at all (an idempotency key records what its request made).
 */
export type AlsoInTransaction = (tx: Transaction, createdId: string) => Promise<void>;
