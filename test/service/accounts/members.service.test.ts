import { randomUUID } from "node:crypto";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Transactions, type Transaction } from "../../../src/db/transaction.js";
import { AccountRepository } from "../../../src/modules/accounts/account.repository.js";
import { ApiKeyRepository } from "../../../src/modules/accounts/api-keys/api-key.repository.js";
import { InvitationRepository } from "../../../src/modules/accounts/invitation.repository.js";
import { MembersService } from "../../../src/modules/accounts/members.service.js";
import type { SessionClaims } from "../../../src/modules/accounts/session/session-verifier.js";
import { UserRepository } from "../../../src/modules/accounts/user.repository.js";
import { accountsServices } from "../../support/accounts-services.js";
import { rejectionOf } from "../../support/app-error.js";
import { openClonedDatabase, type ClonedDatabase } from "../../support/database.js";

/** MembersService and sign-in over their real repositories on a database of their own: seats, invitations, removal. */
let database: ClonedDatabase;
let dataSource: DataSource;

beforeAll(async () => {
  database = await openClonedDatabase(4);
  dataSource = database.dataSource;
});
afterAll(async () => {
  await database?.close();
});

const claims = (email: string, emailVerified = true): SessionClaims => ({
  subject: `idp|${randomUUID()}`,
  email,
  emailVerified,
  issuer: "idp",
  expiresAt: new Date(Date.now() + 60_000),
});

async function owner(plan: string): Promise<{ accountId: string; userId: string }> {
  const signedIn = await accountsServices(dataSource).accounts.signIn(claims(`${randomUUID()}@seats.test`));
  await dataSource.query(`UPDATE "accounts" SET "plan" = $1 WHERE "id" = $2`, [plan, signedIn.accountId]);
  return signedIn;
}

const activeKeys = async (accountId: string): Promise<number> =>
  (
    (await dataSource.query(
      `SELECT COUNT(*)::int AS "n" FROM "api_keys" WHERE "account_id" = $1 AND "revoked_at" IS NULL`,
      [accountId],
    )) as Array<{ n: number }>
  )[0]!.n;

describe("MembersService", () => {
  it("bounds members plus pending invitations by the plan's seats; re-inviting returns the pending invitation", async () => {
    const { members } = accountsServices(dataSource);
    const pro = await owner("pro"); // 3 seats: the owner and two invitations
    const first = await members.invite(pro.accountId, pro.userId, "One@Seats.test ");
    expect(first.email).toBe("one@seats.test");
    expect(await members.invite(pro.accountId, pro.userId, "one@seats.test")).toEqual(first);
    await members.invite(pro.accountId, pro.userId, "two@seats.test");
    expect((await rejectionOf(members.invite(pro.accountId, pro.userId, "three@seats.test"))).code).toBe(
      "PLAN_LIMIT_REACHED",
    );

    await members.cancelInvitation(pro.accountId, first.id);
    await members.invite(pro.accountId, pro.userId, "three@seats.test");
    expect((await members.list(pro.accountId)).invitations.map((invitation) => invitation.email)).toEqual([
      "two@seats.test",
      "three@seats.test",
    ]);
  });

  it("seats a verified invitee at first sign-in, and gives an unverified one an account of their own", async () => {
    const { accounts, members } = accountsServices(dataSource);
    const pro = await owner("pro");
    await members.invite(pro.accountId, pro.userId, "joiner@seats.test");

    expect((await accounts.signIn(claims("joiner@seats.test", false))).accountId).not.toBe(pro.accountId);
    const joined = await accounts.signIn(claims("JOINER@seats.test"));
    expect(joined.accountId).toBe(pro.accountId);
    const listed = await members.list(pro.accountId);
    expect(listed.members.map((member) => member.id)).toEqual([pro.userId, joined.userId]);
    expect(listed.invitations).toEqual([]);
  });

  it("signs the same subject in once when its first two requests race", async () => {
    const { accounts } = accountsServices(dataSource);
    const first = claims(`${randomUUID()}@race.test`);
    const [a, b] = await Promise.all([accounts.signIn(first), accounts.signIn(first)]);
    expect(a).toEqual(b);
    const rows = (await dataSource.query(`SELECT "id" FROM "users" WHERE "subject" = $1`, [first.subject])) as Array<{
      id: string;
    }>;
    expect(rows).toEqual([{ id: a.userId }]);
  });

  it("revokes the keys a removed member created, and only theirs", async () => {
    const { accounts, members, apiKeys } = accountsServices(dataSource);
    const business = await owner("business");
    await members.invite(business.accountId, business.userId, "leaver@seats.test");
    const leaver = await accounts.signIn(claims("leaver@seats.test"));
    const leaversKey = await apiKeys.create(business.accountId, leaver.userId, "leaver's");
    await apiKeys.create(business.accountId, business.userId, "owner's");

    await members.remove(business.accountId, business.userId, leaver.userId);
    expect((await rejectionOf(apiKeys.authenticate(leaversKey.secret))).code).toBe("AUTH_REQUIRED");
    expect(await activeKeys(business.accountId)).toBe(1);
    expect((await members.list(business.accountId)).members.map((member) => member.id)).toEqual([business.userId]);
    expect((await rejectionOf(members.remove(business.accountId, business.userId, leaver.userId))).code).toBe(
      "NOT_FOUND",
    );
  });

  it("removes the member and revokes their keys in one transaction: when revoking fails, the member stays", async () => {
    const { accounts, members, apiKeys } = accountsServices(dataSource);
    const business = await owner("business");
    await members.invite(business.accountId, business.userId, "stayer@seats.test");
    const stayer = await accounts.signIn(claims("stayer@seats.test"));
    await apiKeys.create(business.accountId, stayer.userId, "stayer's");

    class FailingKeys extends ApiKeyRepository {
      override async revokeAllCreatedBy(tx: Transaction, accountId: string, userId: string): Promise<void> {
        await super.revokeAllCreatedBy(tx, accountId, userId);
        throw new Error("the database went away");
      }
    }
    const failing = new MembersService(
      new AccountRepository(dataSource),
      new UserRepository(dataSource),
      new InvitationRepository(dataSource),
      new FailingKeys(dataSource),
      new Transactions(dataSource),
    );
    await expect(failing.remove(business.accountId, business.userId, stayer.userId)).rejects.toThrow(
      "the database went away",
    );
    expect((await members.list(business.accountId)).members.map((member) => member.id)).toEqual([
      business.userId,
      stayer.userId,
    ]);
    expect(await activeKeys(business.accountId)).toBe(1);
  });

  it("refuses removing yourself", async () => {
    const { members } = accountsServices(dataSource);
    const solo = await owner("pro");
    expect((await rejectionOf(members.remove(solo.accountId, solo.userId, solo.userId))).code).toBe(
      "VALIDATION_FAILED",
    );
  });
});
