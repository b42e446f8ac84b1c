import type { DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";
import { IdempotencyKey } from "./idempotency-key.entity.js";

/** The columns a key is reserved with (`createdAt` is the insert's). */
export type NewIdempotencyKey = Pick<
  IdempotencyKey,
  "scope" | "key" | "operation" | "requestHash" | "resourceId" | "sealedClaimToken"
>;

/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = "23505";

/** The `idempotency_keys` table: keys are stored as digests (`idempotencyKeyDigest`), one row per scope and key. */
export class IdempotencyKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Whether `error` is a unique violation: a concurrent request with the same key
   * reserved it first (and, inside a transaction, committed it).
   */
  static isTaken(error: unknown): boolean {
    const failure = error as { code?: string; table?: string } | null;
    // In a creation's transaction another table's unique violation is that creation's own failure, not a taken key.
    return failure?.code === UNIQUE_VIOLATION && (failure.table === undefined || failure.table === "idempotency_keys");
  }

  async find(scope: string, digest: string): Promise<IdempotencyKey | null> {
    return this.dataSource.getRepository(IdempotencyKey).findOneBy({ scope, key: digest });
  }

  async forget(scope: string, digest: string): Promise<void> {
    await this.dataSource.getRepository(IdempotencyKey).delete({ scope, key: digest });
  }

  /**
   * Inserts the key: in `tx`, or on its own (committed at once) when `tx` is null. A
   * concurrent transaction holding the same key makes this wait for it, then fail
   * with a unique violation (`isTaken`) if it commits.
   */
  async reserve(tx: Transaction | null, record: NewIdempotencyKey): Promise<void> {
    await (tx ?? this.dataSource.manager).insert(IdempotencyKey, record);
  }

  /** Records what the request that reserved the key made: from now on a replay answers it. */
  async complete(scope: string, digest: string, resourceId: string, tx: Transaction | null = null): Promise<void> {
    await (tx ?? this.dataSource.manager).update(IdempotencyKey, { scope, key: digest }, { resourceId });
  }

  /** Deletes keys created before `cutoff`; returns how many went. */
  async purgeCreatedBefore(cutoff: Date): Promise<number> {
    const result = await this.dataSource
      .getRepository(IdempotencyKey)
      .createQueryBuilder()
      .delete()
      .where("created_at < :cutoff", { cutoff })
      .execute();
    return result.affected ?? 0;
  }
}
