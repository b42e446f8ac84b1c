import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountsServices } from "../../support/accounts-services.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";

/** Seats: members and pending invitations are bounded by the plan, over REST and GraphQL. */
let service: TestApp;
let api: ReturnType<typeof apiClient>;
let graphql: ReturnType<typeof graphqlClient>;

beforeAll(async () => {
  service = await startTestApp();
  api = apiClient(service);
  graphql = graphqlClient(service);
});
afterAll(() => service?.close());

const setPlan = (accountId: string, plan: string) =>
  service.app.database.dataSource.query("UPDATE accounts SET plan = $1 WHERE id = $2", [plan, accountId]);
const invite = (cookie: string, email: string) =>
  api("/api/members/invitations", { method: "POST", cookie, body: { email } });

describe("members and seats", () => {
  it("refuses a second seat on Free with 402 PLAN_LIMIT_REACHED", async () => {
    const solo = await signIn(service, "solo@seats.test");
    const refused = await invite(solo.cookie, "friend@seats.test");
    expect(refused.status).toBe(402);
    expect((await refused.json()).error).toMatchObject({
      code: "PLAN_LIMIT_REACHED",
      message: expect.stringContaining("1 seat"),
    });
  });

  it("holds a seat per pending invitation, lets the invited address join, and frees seats on cancel or removal", async () => {
    const owner = await signIn(service, "owner@seats.test");
    await setPlan(owner.accountId, "pro");

    const first = await invite(owner.cookie, "  Bo@Seats.test ");
    expect(first.status).toBe(201);
    const { invitation } = await first.json();
    expect(invitation).toEqual({ id: expect.any(String), email: "bo@seats.test", createdAt: expect.any(String) });
    // Inviting the same address again returns the pending invitation.
    expect((await (await invite(owner.cookie, "bo@seats.test")).json()).invitation.id).toBe(invitation.id);
    const cy = await (await invite(owner.cookie, "cy@seats.test")).json();
    // Pro has 3 seats: the owner and two pending invitations fill them.
    expect((await invite(owner.cookie, "di@seats.test")).status).toBe(402);

    const bo = await signIn(service, "bo@seats.test");
    expect(bo.accountId).toBe(owner.accountId);
    const usage = await (await api("/api/usage", { cookie: bo.cookie })).json();
    expect(usage.seats).toEqual({ limit: 3, used: 2 });
    const listed = await (await api("/api/members", { cookie: owner.cookie })).json();
    expect(listed.members.map((member: { email: string }) => member.email)).toEqual([
      "owner@seats.test",
      "bo@seats.test",
    ]);
    expect(listed.invitations).toEqual([cy.invitation]);
    expect((await invite(owner.cookie, "bo@seats.test")).status).toBe(400);

    expect(
      (await api(`/api/members/invitations/${cy.invitation.id}`, { method: "DELETE", cookie: owner.cookie })).status,
    ).toBe(204);
    expect((await invite(owner.cookie, "di@seats.test")).status).toBe(201);

    // Removal takes effect at once: Bo's next request is as a new Free account of their own.
    expect((await api(`/api/members/${bo.userId}`, { method: "DELETE", cookie: owner.cookie })).status).toBe(204);
    const boNow = await (await api("/api/usage", { cookie: bo.cookie })).json();
    expect(boNow.plan).toBe("free");
    expect(boNow.seats).toEqual({ limit: 1, used: 1 });
    const self = await api(`/api/members/${owner.userId}`, { method: "DELETE", cookie: owner.cookie });
    expect(self.status).toBe(400);
  });

  it("stops the API keys a removed member created (revoked with the removal), and only theirs", async () => {
    const owner = await signIn(service, "owner@keys-seats.test");
    await setPlan(owner.accountId, "business");
    expect((await invite(owner.cookie, "eve@keys-seats.test")).status).toBe(201);
    const eve = await signIn(service, "eve@keys-seats.test");
    expect(eve.accountId).toBe(owner.accountId);
    const keyOf = async (cookie: string, name: string) =>
      (await (await api("/api/keys", { method: "POST", cookie, body: { name } })).json()) as {
        key: { id: string };
        secret: string;
      };
    const eveKey = await keyOf(eve.cookie, "eve's integration");
    const ownerKey = await keyOf(owner.cookie, "owner's integration");
    expect((await api("/api/usage", { bearer: eveKey.secret })).status).toBe(200);

    expect((await api(`/api/members/${eve.userId}`, { method: "DELETE", cookie: owner.cookie })).status).toBe(204);
    const refused = await api("/api/usage", { bearer: eveKey.secret });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("AUTH_REQUIRED");
    expect((await api("/api/usage", { bearer: ownerKey.secret })).status).toBe(200);
    const [row] = await service.app.database.dataSource.query(`SELECT revoked_at FROM api_keys WHERE id = $1`, [
      eveKey.key.id,
    ]);
    expect(row.revoked_at).toBeInstanceOf(Date);

    // A key that escaped the revocation (created in a race with the removal) is refused all the same.
    await service.app.database.dataSource.query(`UPDATE api_keys SET revoked_at = NULL WHERE id = $1`, [eveKey.key.id]);
    expect((await api("/api/usage", { bearer: eveKey.secret })).status).toBe(401);
  });

  it("hides other accounts' members and invitations: 404, and nothing changes", async () => {
    const owner = await signIn(service, "owner2@seats.test");
    await setPlan(owner.accountId, "business");
    const { invitation } = await (await invite(owner.cookie, "pat@seats.test")).json();
    const stranger = await signIn(service, "stranger@seats.test");
    for (const path of [
      `/api/members/invitations/${invitation.id}`,
      `/api/members/${owner.userId}`,
      "/api/members/not-a-uuid",
    ]) {
      const response = await api(path, { method: "DELETE", cookie: stranger.cookie });
      expect(response.status, path).toBe(404);
      expect((await response.json()).error.code).toBe("NOT_FOUND");
    }
    const listed = await (await api("/api/members", { cookie: owner.cookie })).json();
    expect(listed.invitations).toHaveLength(1);
    expect(listed.members).toHaveLength(1);
  });

  it("does not seat an invitee once the plan no longer has the seat: they get their own account", async () => {
    const owner = await signIn(service, "owner3@seats.test");
    await setPlan(owner.accountId, "pro");
    await invite(owner.cookie, "late@seats.test");
    await invite(owner.cookie, "later@seats.test");
    await setPlan(owner.accountId, "free");
    const late = await signIn(service, "late@seats.test");
    expect(late.accountId).not.toBe(owner.accountId);
  });

  it("answers the same over GraphQL, where an unverified e-mail cannot take an invitation", async () => {
    const owner = await signIn(service, "owner4@seats.test");
    await setPlan(owner.accountId, "pro");
    const invited = await graphql(
      `
        mutation {
          inviteMember(input: { email: "gql@seats.test" }) {
            invitation {
              email
            }
          }
        }
      `,
      {},
      { cookie: owner.cookie },
    );
    expect(invited.data).toEqual({ inviteMember: { invitation: { email: "gql@seats.test" } } });
    const bad = await graphql(
      `
        mutation {
          inviteMember(input: { email: "not-an-address" }) {
            invitation {
              id
            }
          }
        }
      `,
      {},
      { cookie: owner.cookie },
    );
    expect(bad.errors?.[0]).toMatchObject({
      message: "email: must be an e-mail address",
      extensions: { code: "VALIDATION_FAILED" },
    });

    // A provider session whose address is not verified signs in to an account of its own.
    const { accounts } = accountsServices(service.app.database.dataSource);
    const unverified = await accounts.signIn({
      subject: "idp|unverified",
      email: "gql@seats.test",
      emailVerified: false,
      issuer: "idp",
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect(unverified.accountId).not.toBe(owner.accountId);
    const verified = await accounts.signIn({
      subject: "idp|verified",
      email: "GQL@seats.test",
      emailVerified: true,
      issuer: "idp",
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect(verified.accountId).toBe(owner.accountId);
  });
});
