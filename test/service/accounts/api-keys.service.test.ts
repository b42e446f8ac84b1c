import { randomUUID } from "node:crypto";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CURRENT_API_VERSION } from "../../../src/api-versions.js";
import { newSecret } from "../../../src/modules/accounts/api-keys/api-key-secret.js";
import { accountsServices } from "../../support/accounts-services.js";
import { rejectionOf } from "../../support/app-error.js";
import { openClonedDatabase, type ClonedDatabase } from "../../support/database.js";

/** ApiKeysService over its real repositories on a database of its own: the rules of keys, no HTTP. */
let database: ClonedDatabase;
let dataSource: DataSource;
let now = new Date("2026-03-01T10:00:00.000Z");

beforeAll(async () => {
  database = await openClonedDatabase(4);
  dataSource = database.dataSource;
});
afterAll(async () => {
  await database?.close();
});

const services = (options = { testKeys: true }) => accountsServices(dataSource, () => now, options);
/** The secret with its last character changed: always a different one ("…x" when it ends in "x" was the same key). */
const altered = (secret: string): string => `${secret.slice(0, -1)}${secret.endsWith("x") ? "y" : "x"}`;

/** A new member (and account) on `plan`. */
async function member(plan: string): Promise<{ accountId: string; userId: string }> {
  const subject = `idp|${randomUUID()}`;
  const signedIn = await services().accounts.signIn({
    subject,
    email: `${subject}@keys.test`,
    emailVerified: true,
    issuer: "idp",
    expiresAt: new Date(Date.now() + 60_000),
  });
  await dataSource.query(`UPDATE "accounts" SET "plan" = $1 WHERE "id" = $2`, [plan, signedIn.accountId]);
  return signedIn;
}

const lastUsed = async (keyId: string): Promise<Date | null> =>
  (
    (await dataSource.query(`SELECT "last_used_at" FROM "api_keys" WHERE "id" = $1`, [keyId])) as Array<{
      last_used_at: Date | null;
    }>
  )[0]!.last_used_at;

describe("ApiKeysService", () => {
  it("finds a key by its secret, and not by a wrong or malformed one", async () => {
    const { apiKeys } = services();
    const owner = await member("business");
    const { key, secret } = await apiKeys.create(owner.accountId, owner.userId, " deploys ");
    expect(key).toMatchObject({ name: "deploys", prefix: secret.slice(0, 13), lastUsedAt: null });

    // With the account's pinned API version, which the request then uses (a new account: the newest).
    expect(await apiKeys.authenticate(secret)).toEqual({
      accountId: owner.accountId,
      keyId: key.id,
      mode: "live",
      apiVersion: CURRENT_API_VERSION,
    });
    expect((await rejectionOf(apiKeys.authenticate(newSecret()))).code).toBe("AUTH_REQUIRED");
    expect((await rejectionOf(apiKeys.authenticate(altered(secret)))).code).toBe("AUTH_REQUIRED");
    // Only the hash is stored.
    const stored = await dataSource.query(`SELECT * FROM "api_keys" WHERE "id" = $1`, [key.id]);
    expect(JSON.stringify(stored)).not.toContain(secret);
  });

  it("stops authenticating a revoked key at once; another account cannot revoke it", async () => {
    const { apiKeys } = services();
    const owner = await member("enterprise");
    const stranger = await member("enterprise");
    const { key, secret } = await apiKeys.create(owner.accountId, owner.userId, "ci");

    expect((await rejectionOf(apiKeys.revoke(stranger.accountId, key.id))).code).toBe("NOT_FOUND");
    expect(await apiKeys.authenticate(secret)).toMatchObject({ keyId: key.id });

    await apiKeys.revoke(owner.accountId, key.id);
    expect((await rejectionOf(apiKeys.authenticate(secret))).code).toBe("AUTH_REQUIRED");
    expect(await apiKeys.list(owner.accountId)).toEqual([]);
    expect((await rejectionOf(apiKeys.revoke(owner.accountId, key.id))).code).toBe("NOT_FOUND");
  });

  it("keeps keys to the API plans: none created below Business, and an existing one is FORBIDDEN after a downgrade", async () => {
    const { apiKeys } = services();
    const pro = await member("pro");
    expect((await rejectionOf(apiKeys.create(pro.accountId, pro.userId, "ci"))).code).toBe("PLAN_LIMIT_REACHED");

    const owner = await member("business");
    const { secret } = await apiKeys.create(owner.accountId, owner.userId, "ci");
    await dataSource.query(`UPDATE "accounts" SET "plan" = 'pro' WHERE "id" = $1`, [owner.accountId]);
    expect((await rejectionOf(apiKeys.authenticate(secret))).code).toBe("FORBIDDEN");
  });

  it("makes test keys on any plan outside production, told apart by prefix, and not FORBIDDEN on Free", async () => {
    const { apiKeys } = services();
    const free = await member("free");
    const { key, secret } = await apiKeys.create(free.accountId, free.userId, "laptop", "test");
    expect(secret).toMatch(/^pms_test_[0-9A-Za-z]{49}$/);
    expect(key).toMatchObject({ mode: "test", prefix: secret.slice(0, 13) });
    expect(await apiKeys.authenticate(secret)).toMatchObject({
      accountId: free.accountId,
      keyId: key.id,
      mode: "test",
    });
    // The checksum covers a test key as it does a live one.
    expect((await rejectionOf(apiKeys.authenticate(altered(secret)))).code).toBe("AUTH_REQUIRED");
    expect((await rejectionOf(apiKeys.authenticate(newSecret("test")))).code).toBe("AUTH_REQUIRED");
  });

  it("in production, neither makes test keys (naming mode) nor accepts one made elsewhere", async () => {
    const free = await member("free");
    const { secret } = await services().apiKeys.create(free.accountId, free.userId, "laptop", "test");
    const production = services({ testKeys: false }).apiKeys;
    const refused = await rejectionOf(production.authenticate(secret));
    expect(refused).toMatchObject({ code: "AUTH_REQUIRED", message: expect.stringMatching(/outside production/) });
    const notMade = await rejectionOf(production.create(free.accountId, free.userId, "laptop", "test"));
    expect(notMade).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringMatching(/^mode: /) });
  });

  it("writes last-used at most once a minute", async () => {
    const { apiKeys } = services();
    const owner = await member("business");
    const { key, secret } = await apiKeys.create(owner.accountId, owner.userId, "ci");
    const first = now;

    await apiKeys.authenticate(secret);
    expect(await lastUsed(key.id)).toEqual(first);
    now = new Date(first.getTime() + 59_000);
    await apiKeys.authenticate(secret);
    expect(await lastUsed(key.id)).toEqual(first);
    now = new Date(first.getTime() + 61_000);
    await apiKeys.authenticate(secret);
    expect(await lastUsed(key.id)).toEqual(now);
  });
});
