import { IsNull, type DataSource } from "typeorm";
import type { AlsoInTransaction, Transaction } from "../../../db/transaction.js";
import type { ApiKeyMode } from "./api-key-secret.js";
import { ApiKey } from "./api-key.entity.js";

/** The `api_keys` table. Secrets are never stored: keys are found by the hash of theirs. */
export class ApiKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A new key; with `alsoInTransaction`, it and that work commit together. */
  create(
    fields: {
      accountId: string;
      createdBy: string;
      name: string;
      prefix: string;
      secretHash: string;
      mode: ApiKeyMode;
    },
    alsoInTransaction?: AlsoInTransaction,
  ): Promise<ApiKey> {
    if (!alsoInTransaction) {
      const keys = this.dataSource.getRepository(ApiKey);
      return keys.save(keys.create(fields));
    }
    return this.dataSource.transaction(async (tx) => {
      const key = await tx.save(tx.create(ApiKey, fields));
      await alsoInTransaction(tx, key.id);
      return key;
    });
  }

  /** The account's unrevoked keys, newest first. */
  listActive(accountId: string): Promise<ApiKey[]> {
    return this.dataSource
      .getRepository(ApiKey)
      .find({ where: { accountId, revokedAt: IsNull() }, order: { createdAt: "DESC", id: "ASC" } });
  }

  findActive(accountId: string, id: string): Promise<ApiKey | null> {
    return this.dataSource.getRepository(ApiKey).findOneBy({ id, accountId, revokedAt: IsNull() });
  }

  /**
   * The unrevoked key with this secret hash, with its account, or null.
   * A key works only while the person who created it is still a member of its account
   * (removal also revokes it; this holds even for a key created in a race with the removal).
   */
  findUsable(secretHash: string): Promise<ApiKey | null> {
    return this.dataSource
      .getRepository(ApiKey)
      .createQueryBuilder("key")
      .innerJoinAndSelect("key.account", "account")
      .where(`key.secret_hash = :hash AND key.revoked_at IS NULL`, { hash: secretHash })
      .andWhere(
        `(key.created_by IS NULL OR EXISTS (SELECT 1 FROM "users" "u" WHERE "u"."id" = key.created_by AND "u"."account_id" = key.account_id))`,
      )
      .getOne();
  }

  async revoke(id: string, at: Date): Promise<void> {
    await this.dataSource.getRepository(ApiKey).update({ id }, { revokedAt: at });
  }

  /** Revokes, in the caller's transaction, every active key a person created in an account. */
  async revokeAllCreatedBy(tx: Transaction, accountId: string, userId: string): Promise<void> {
    await tx.query(
      `UPDATE "api_keys" SET "revoked_at" = now() WHERE "account_id" = $1 AND "created_by" = $2 AND "revoked_at" IS NULL`,
      [accountId, userId],
    );
  }

  async recordUse(id: string, at: Date): Promise<void> {
    await this.dataSource.getRepository(ApiKey).update({ id }, { lastUsedAt: at });
  }
}
