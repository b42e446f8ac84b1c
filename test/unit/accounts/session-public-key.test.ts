import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { createSessionVerifier } from "../../../src/modules/accounts/session/session-verifier.js";
import { rejectionOf } from "../../support/app-error.js";

const ISSUER = "https://id.example.test";
const NOW = new Date("2031-03-01T12:00:00Z");
const nowSeconds = Math.floor(NOW.getTime() / 1000);

function sessionToken(alg: string, privateKey: CryptoKey | Uint8Array, claims: JWTPayload = {}): Promise<string> {
  return new SignJWT({ iss: ISSUER, sub: "user_pem", exp: nowSeconds + 600, ...claims })
    .setProtectedHeader({ alg })
    .sign(privateKey);
}

function verifierFor(pem: string) {
  const config = loadConfig({ NODE_ENV: "test", SESSION_PUBLIC_KEY: pem, SESSION_ISSUER: ISSUER });
  return createSessionVerifier(config, { clock: () => NOW });
}

describe("session verification against a configured PEM public key", () => {
  let rsa: { privateKey: CryptoKey; pem: string };

  beforeAll(async () => {
    const pair = await generateKeyPair("RS256");
    rsa = { privateKey: pair.privateKey, pem: await exportSPKI(pair.publicKey) };
  });

  it("accepts a session signed with the matching private key", async () => {
    const verifier = await verifierFor(rsa.pem);

    await expect(verifier.verify(await sessionToken("RS256", rsa.privateKey))).resolves.toMatchObject({
      subject: "user_pem",
      issuer: ISSUER,
    });
  });

  it("reads a PEM written on one line with literal \\n, as environment variables carry it", async () => {
    const verifier = await verifierFor(rsa.pem.trim().replace(/\n/g, "\\n"));

    await expect(verifier.verify(await sessionToken("RS256", rsa.privateKey))).resolves.toMatchObject({
      subject: "user_pem",
    });
  });

  it("refuses a session signed by another key", async () => {
    const verifier = await verifierFor(rsa.pem);
    const other = await generateKeyPair("RS256");

    expect(await rejectionOf(verifier.verify(await sessionToken("RS256", other.privateKey)))).toMatchObject({
      code: "AUTH_REQUIRED",
      message: "session signature invalid",
    });
  });

  it("refuses an HS256 token whose secret is the public key itself (algorithm confusion)", async () => {
    const verifier = await verifierFor(rsa.pem);
    const forged = await sessionToken("HS256", new TextEncoder().encode(rsa.pem));

    expect(await rejectionOf(verifier.verify(forged))).toMatchObject({
      code: "AUTH_REQUIRED",
      message: "session algorithm not accepted",
    });
  });

  it("takes the algorithm from the key, not from the token", async () => {
    const verifier = await verifierFor(rsa.pem);
    const ec = await generateKeyPair("ES256");

    expect(await rejectionOf(verifier.verify(await sessionToken("ES256", ec.privateKey)))).toMatchObject({
      message: "session algorithm not accepted",
    });
  });

  it.each(["ES256", "EdDSA"] as const)("accepts %s keys", async (alg) => {
    const pair = await generateKeyPair(alg);
    const verifier = await verifierFor(await exportSPKI(pair.publicKey));

    await expect(verifier.verify(await sessionToken(alg, pair.privateKey))).resolves.toMatchObject({
      subject: "user_pem",
    });
  });

  it("refuses an unreadable or non-public key at boot without echoing it", async () => {
    const garbage = "-----BEGIN PUBLIC KEY-----\nc2VjcmV0LW1hdGVyaWFs\n-----END PUBLIC KEY-----";
    const secp384 = await exportSPKI((await generateKeyPair("ES384")).publicKey);

    await expect(verifierFor(garbage)).rejects.toThrow(/^SESSION_PUBLIC_KEY is not a readable PEM public key$/);
    await expect(verifierFor("c2VjcmV0LW1hdGVyaWFs")).rejects.toThrow(/^SESSION_PUBLIC_KEY must be a PEM public key/);
    await expect(verifierFor(secp384)).rejects.toThrow(/unsupported key type \(ec secp384r1\)/);
  });
});
