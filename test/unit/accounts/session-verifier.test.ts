import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";
import { afterEach, beforeAll, afterAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../../src/config.js";
import {
  createSessionVerifier,
  type SessionVerifierOptions,
} from "../../../src/modules/accounts/session/session-verifier.js";
import { startJwksServer, type JwksServer } from "./jwks-server.js";
import { rejectionOf } from "../../support/app-error.js";

const ISSUER = "https://id.example.test";
const APP = "https://app.example.test";
const NOW = new Date("2031-03-01T12:00:00Z");
const nowSeconds = Math.floor(NOW.getTime() / 1000);

interface TestKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
}

async function newKey(kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } };
}

/** A provider-shaped session token; a claim set to undefined is left out. */
function sessionToken(key: TestKey, claims: JWTPayload = {}, kid = key.kid): Promise<string> {
  return new SignJWT({
    iss: ISSUER,
    sub: "user_2abc",
    azp: APP,
    email: "ada@example.test",
    name: "Ada",
    iat: nowSeconds - 60,
    exp: nowSeconds + 600,
    ...claims,
  })
    .setProtectedHeader({ alg: "ES256", kid })
    .sign(key.privateKey);
}

let provider: JwksServer;
let current: TestKey;

beforeAll(async () => {
  current = await newKey("key-2031-03");
  provider = await startJwksServer([current.jwk]);
});
afterAll(() => provider.close());
afterEach(() => {
  vi.useRealTimers();
  provider.keys = [current.jwk];
  provider.mode = "serve";
});

function verifierFor(env: Record<string, string> = {}, options: SessionVerifierOptions = {}) {
  const config = loadConfig({
    NODE_ENV: "test",
    SESSION_JWKS_URL: provider.url,
    SESSION_ISSUER: ISSUER,
    SESSION_AUTHORIZED_PARTIES: APP,
    ...env,
  });
  return createSessionVerifier(config, { clock: () => NOW, ...options });
}

describe("session verification against the provider's JWKS", () => {
  it("accepts a valid session and reads who it is, fetching the key set once", async () => {
    const verifier = await verifierFor();
    const before = provider.requests;

    const claims = await verifier.verify(await sessionToken(current));
    await verifier.verify(await sessionToken(current, { sub: "user_other" }));

    expect(claims).toEqual({
      subject: "user_2abc",
      email: "ada@example.test",
      // The token carries no email_verified claim: the address is not taken as verified.
      emailVerified: false,
      name: "Ada",
      issuer: ISSUER,
      authorizedParty: APP,
      expiresAt: new Date((nowSeconds + 600) * 1000),
    });
    expect(provider.requests - before).toBe(1);
  });

  it("shares one fetch between concurrent requests on a cold cache", async () => {
    const verifier = await verifierFor();
    const before = provider.requests;
    const token = await sessionToken(current);

    await Promise.all(Array.from({ length: 20 }, () => verifier.verify(token)));

    expect(provider.requests - before).toBe(1);
  });

  it("refuses a token signed by another key under a known kid", async () => {
    const verifier = await verifierFor();
    const impostor = await newKey(current.kid);

    const error = await rejectionOf(verifier.verify(await sessionToken(impostor)));

    expect(error).toMatchObject({ code: "AUTH_REQUIRED", status: 401, message: "session signature invalid" });
  });

  it("tolerates 30 s of clock skew on exp and nbf, and no more", async () => {
    const verifier = await verifierFor();

    await expect(verifier.verify(await sessionToken(current, { exp: nowSeconds - 20 }))).resolves.toMatchObject({
      subject: "user_2abc",
    });
    await expect(verifier.verify(await sessionToken(current, { nbf: nowSeconds + 20 }))).resolves.toMatchObject({
      subject: "user_2abc",
    });
    expect(await rejectionOf(verifier.verify(await sessionToken(current, { exp: nowSeconds - 31 })))).toMatchObject({
      message: "session expired",
    });
    expect(await rejectionOf(verifier.verify(await sessionToken(current, { nbf: nowSeconds + 120 })))).toMatchObject({
      message: "session not yet valid",
    });
  });

  it("refuses a session without an expiry or a subject", async () => {
    const verifier = await verifierFor();

    expect(await rejectionOf(verifier.verify(await sessionToken(current, { exp: undefined })))).toMatchObject({
      message: "session has no valid expiry",
    });
    expect(await rejectionOf(verifier.verify(await sessionToken(current, { sub: undefined })))).toMatchObject({
      message: "session has no subject",
    });
    expect(await rejectionOf(verifier.verify(await sessionToken(current, { sub: "" })))).toMatchObject({
      message: "session has no subject",
    });
  });

  it("refuses another issuer", async () => {
    const verifier = await verifierFor();

    const error = await rejectionOf(verifier.verify(await sessionToken(current, { iss: "https://evil.example.test" })));

    expect(error).toMatchObject({ code: "AUTH_REQUIRED", message: "session issuer not accepted" });
  });

  it("refuses a wrong or missing authorized party when parties are configured", async () => {
    const verifier = await verifierFor({ SESSION_AUTHORIZED_PARTIES: `https://admin.example.test, ${APP}` });

    await expect(verifier.verify(await sessionToken(current))).resolves.toMatchObject({ authorizedParty: APP });
    expect(
      await rejectionOf(verifier.verify(await sessionToken(current, { azp: "https://evil.example.test" }))),
    ).toMatchObject({
      message: "session authorized party not accepted",
    });
    expect(await rejectionOf(verifier.verify(await sessionToken(current, { azp: undefined })))).toMatchObject({
      message: "session authorized party not accepted",
    });
  });

  it("accepts any authorized party, or none, when no parties are configured", async () => {
    const verifier = await verifierFor({ SESSION_AUTHORIZED_PARTIES: "" });

    await expect(
      verifier.verify(await sessionToken(current, { azp: "https://other.example.test" })),
    ).resolves.toMatchObject({
      authorizedParty: "https://other.example.test",
    });
    const claims = await verifier.verify(await sessionToken(current, { azp: undefined }));
    expect(claims.authorizedParty).toBeUndefined();
  });

  it("refuses a session minted for another application when an audience is configured, with a reason that says so", async () => {
    const verifier = await verifierFor({
      SESSION_AUDIENCE: "https://api.example.test, pms",
      SESSION_AUTHORIZED_PARTIES: "",
    });

    await expect(verifier.verify(await sessionToken(current, { aud: "pms" }))).resolves.toMatchObject({
      subject: "user_2abc",
    });
    await expect(
      verifier.verify(await sessionToken(current, { aud: ["other-app", "https://api.example.test"] })),
    ).resolves.toMatchObject({ subject: "user_2abc" });
    for (const aud of ["some-other-app", ["other-app", "third-app"], undefined]) {
      expect(
        await rejectionOf(verifier.verify(await sessionToken(current, { aud, azp: "other-client" }))),
      ).toMatchObject({
        code: "AUTH_REQUIRED",
        message: "session audience not accepted",
      });
    }
  });

  it("checks audience and authorized party together when both are configured", async () => {
    const verifier = await verifierFor({ SESSION_AUDIENCE: "pms" });

    await expect(verifier.verify(await sessionToken(current, { aud: "pms" }))).resolves.toMatchObject({
      authorizedParty: APP,
    });
    expect(
      await rejectionOf(verifier.verify(await sessionToken(current, { aud: "pms", azp: "other-client" }))),
    ).toMatchObject({ message: "session authorized party not accepted" });
    expect(await rejectionOf(verifier.verify(await sessionToken(current, { aud: "some-other-app" })))).toMatchObject({
      message: "session audience not accepted",
    });
  });

  it("refuses unsigned (alg none) and HMAC tokens", async () => {
    const verifier = await verifierFor();
    const claims = { iss: ISSUER, sub: "user_2abc", azp: APP, exp: nowSeconds + 600 };
    const unsigned = new UnsecuredJWT(claims).encode();
    const hmac = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: current.kid })
      .sign(new TextEncoder().encode(JSON.stringify(current.jwk)));

    for (const token of [unsigned, hmac]) {
      expect(await rejectionOf(verifier.verify(token))).toMatchObject({
        code: "AUTH_REQUIRED",
        message: "session algorithm not accepted",
      });
    }
  });

  it("refuses a malformed token", async () => {
    const verifier = await verifierFor();

    for (const token of ["", "not-a-jwt", "a.b.c"]) {
      expect(await rejectionOf(verifier.verify(token))).toMatchObject({
        code: "AUTH_REQUIRED",
        message: "session token malformed",
      });
    }
  });
});

describe("key rotation", () => {
  // jose measures the cooldown on the wall clock, so only Date is faked; timers,
  // sockets and the verifier's own clock stay real.
  const start = new Date("2031-03-01T12:00:00Z").getTime();

  it("refetches the key set once for a new kid, then refuses unknown kids without hammering the provider", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(start);
    const verifier = await verifierFor({}, { jwksCooldownMs: 30_000 });
    await verifier.verify(await sessionToken(current));
    const afterFirstFetch = provider.requests;

    // The provider publishes a new key and starts signing with it.
    const next = await newKey("key-2031-04");
    provider.keys = [current.jwk, next.jwk];
    vi.setSystemTime(start + 31_000);
    await expect(verifier.verify(await sessionToken(next))).resolves.toMatchObject({ subject: "user_2abc" });
    expect(provider.requests - afterFirstFetch).toBe(1);

    // Unknown kids right after a fetch: refused from the cache, no new requests.
    const stranger = await newKey("key-unknown");
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect(await rejectionOf(verifier.verify(await sessionToken(stranger)))).toMatchObject({
        message: "session signing key not recognised",
      });
    }
    expect(provider.requests - afterFirstFetch).toBe(1);

    // Once the cooldown has passed, one more look, then the same refusal.
    vi.setSystemTime(start + 62_000);
    expect(await rejectionOf(verifier.verify(await sessionToken(stranger)))).toMatchObject({
      message: "session signing key not recognised",
    });
    expect(provider.requests - afterFirstFetch).toBe(2);
  });

  it("does not see a new kid during the cooldown: providers publish keys before signing with them", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(start);
    const verifier = await verifierFor({}, { jwksCooldownMs: 30_000 });
    await verifier.verify(await sessionToken(current));

    const next = await newKey("key-early");
    provider.keys = [current.jwk, next.jwk];
    vi.setSystemTime(start + 5_000);

    expect(await rejectionOf(verifier.verify(await sessionToken(next)))).toMatchObject({
      message: "session signing key not recognised",
    });
  });
});

describe("an identity provider that cannot be reached", () => {
  it("answers 503 SERVICE_UNAVAILABLE (retryable) when the JWKS endpoint fails, and recovers on the next request", async () => {
    const verifier = await verifierFor();
    const token = await sessionToken(current);
    provider.mode = "fail";

    const error = await rejectionOf(verifier.verify(token));
    expect(error).toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      status: 503,
      retryable: true,
      message: "identity provider unavailable",
    });

    provider.mode = "serve";
    await expect(verifier.verify(token)).resolves.toMatchObject({ subject: "user_2abc" });
  });

  it("gives up after the fetch timeout", async () => {
    const verifier = await verifierFor({}, { fetchTimeoutMs: 200 });
    provider.mode = "hang";
    const started = performance.now();

    const error = await rejectionOf(verifier.verify(await sessionToken(current)));

    expect(error).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: "identity provider unavailable" });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("answers 503 when nothing listens at the JWKS address", async () => {
    const gone = await startJwksServer([current.jwk]);
    const url = gone.url;
    await gone.close();
    const verifier = await verifierFor({ SESSION_JWKS_URL: url });

    const error = await rejectionOf(verifier.verify(await sessionToken(current)));

    expect(error).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: "identity provider unavailable" });
  });
});

describe("building a verifier", () => {
  it("refuses two sources of keys at once, already when the configuration is read", () => {
    expect(() =>
      verifierFor({ SESSION_PUBLIC_KEY: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----" }),
    ).toThrow(/SESSION_PUBLIC_KEY cannot be set together with SESSION_JWKS_URL/);
  });

  it("refuses a negative clock tolerance at boot rather than every session later", async () => {
    await expect(verifierFor({}, { clockToleranceSeconds: -1 })).rejects.toThrow(/clockToleranceSeconds/);
  });
});
