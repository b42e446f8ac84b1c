import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import {
  LocalIdentityProvider,
  localSubjectFor,
  usesLocalIdentityProvider,
} from "../../../src/modules/accounts/session/local-identity-provider.js";
import { createSessionVerifier } from "../../../src/modules/accounts/session/session-verifier.js";

const development = loadConfig({ NODE_ENV: "development" });
const production = loadConfig({
  NODE_ENV: "production",
  SESSION_JWKS_URL: "https://id.example.test/.well-known/jwks.json",
  SESSION_ISSUER: "https://id.example.test",
  SESSION_AUDIENCE: "pms",
});
const NOW = new Date("2031-03-01T12:00:00Z");
const DAY_MS = 24 * 60 * 60 * 1000;

async function localSetup(verifierNow: Date = NOW) {
  const provider = await LocalIdentityProvider.create(development, { clock: () => NOW });
  const verifier = await createSessionVerifier(development, {
    localIdentityProvider: provider,
    clock: () => verifierNow,
  });
  return { provider, verifier };
}

describe("local identity provider", () => {
  it("signs sessions that the session verifier accepts", async () => {
    const { provider, verifier } = await localSetup();

    const claims = await verifier.verify(await provider.issue({ email: "Ada@Example.test ", name: "Ada Lovelace" }));

    expect(claims).toEqual({
      subject: localSubjectFor("ada@example.test"),
      email: "ada@example.test",
      emailVerified: true,
      name: "Ada Lovelace",
      issuer: "pms-local-idp",
      authorizedParty: "pms-local",
      expiresAt: new Date(NOW.getTime() + 7 * DAY_MS),
    });
    expect(claims.subject).toMatch(/^local\|[0-9a-f]{16}$/);
  });

  it("gives an e-mail address the same subject every time, and another address another", async () => {
    const { provider, verifier } = await localSetup();

    const first = await verifier.verify(await provider.issue({ email: "ada@example.test" }));
    const again = await verifier.verify(await provider.issue({ email: "ADA@example.test" }));
    const other = await verifier.verify(await provider.issue({ email: "grace@example.test" }));

    expect(again.subject).toBe(first.subject);
    expect(other.subject).not.toBe(first.subject);
    expect(first.name).toBeUndefined();
  });

  it("keeps the subject across restarts: it depends on the address, not on the key pair", async () => {
    const before = await localSetup();
    const after = await localSetup();

    const first = await before.verifier.verify(await before.provider.issue({ email: "ada@example.test" }));
    const second = await after.verifier.verify(await after.provider.issue({ email: "ada@example.test" }));

    expect(second.subject).toBe(first.subject);
  });

  it("ends its sessions after seven days", async () => {
    const { provider, verifier } = await localSetup(new Date(NOW.getTime() + 7 * DAY_MS + 31_000));

    await expect(verifier.verify(await provider.issue({ email: "ada@example.test" }))).rejects.toMatchObject({
      code: "AUTH_REQUIRED",
      message: "session expired",
    });
  });

  it("does not accept sessions of another process's key pair: a restart signs everybody out", async () => {
    const { verifier } = await localSetup();
    const previousProcess = await LocalIdentityProvider.create(development, { clock: () => NOW });

    await expect(verifier.verify(await previousProcess.issue({ email: "ada@example.test" }))).rejects.toMatchObject({
      code: "AUTH_REQUIRED",
      message: "session signature invalid",
    });
  });

  it("refuses what is not an e-mail address", async () => {
    const { provider } = await localSetup();

    for (const email of ["", "ada", "ada@", "a da@example.test"]) {
      await expect(provider.issue({ email })).rejects.toMatchObject({
        code: "VALIDATION_FAILED",
        message: "email: must be an e-mail address",
      });
    }
  });

  it("refuses to exist in production", async () => {
    await expect(LocalIdentityProvider.create(production)).rejects.toThrow(/disabled in production/);
  });

  it("is used only outside production and when no provider is configured", () => {
    expect(usesLocalIdentityProvider(development)).toBe(true);
    expect(usesLocalIdentityProvider(production)).toBe(false);
    expect(usesLocalIdentityProvider(loadConfig({ SESSION_JWKS_URL: "https://id.example.test/jwks" }))).toBe(false);
  });

  it("cannot be combined with a configured provider, whose verifier would refuse its sessions", async () => {
    const provider = await LocalIdentityProvider.create(development);
    const configured = loadConfig({ SESSION_JWKS_URL: "https://id.example.test/jwks" });

    await expect(createSessionVerifier(configured, { localIdentityProvider: provider })).rejects.toThrow(
      /only used when no SESSION_JWKS_URL/,
    );
    await expect(createSessionVerifier(development)).rejects.toThrow(/No session keys/);
  });
});
