import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  idempotencyKeyDigest,
  openClaimToken,
  sealClaimToken,
} from "../../../src/modules/idempotency/idempotency-seal.js";

const TOKEN = "clm_4rX0c2V3bTqQe9y1n7ZkLw8sPaDgHj5u";

describe("idempotency keys and sealed claim tokens", () => {
  it("keeps a key as the SHA-256 of its UTF-8 bytes, never as sent", () => {
    expect(idempotencyKeyDigest("order-4711")).toBe(
      `sha256:${createHash("sha256").update("order-4711").digest("hex")}`,
    );
    expect(idempotencyKeyDigest("order-4711")).not.toContain("order");
    expect(idempotencyKeyDigest("a")).not.toBe(idempotencyKeyDigest("b"));
  });

  it("opens a sealed token with the same key and scope, and only with them", () => {
    const sealed = sealClaimToken(TOKEN, "ip:203.0.113.7", "retry-me");
    expect(sealed).toMatch(/^v1\.[\w-]+$/);
    expect(sealed).not.toContain(TOKEN.slice(4));
    expect(openClaimToken(sealed, "ip:203.0.113.7", "retry-me")).toBe(TOKEN);
    expect(openClaimToken(sealed, "ip:203.0.113.7", "retry-mf")).toBeUndefined();
    expect(openClaimToken(sealed, "ip:203.0.113.8", "retry-me")).toBeUndefined();
  });

  it("seals the same token differently each time (a fresh IV), and both open", () => {
    const a = sealClaimToken(TOKEN, "ip:1", "k");
    const b = sealClaimToken(TOKEN, "ip:1", "k");
    expect(a).not.toBe(b);
    expect([openClaimToken(a, "ip:1", "k"), openClaimToken(b, "ip:1", "k")]).toEqual([TOKEN, TOKEN]);
  });

  it("refuses a tampered, truncated or foreign seal instead of answering garbage", () => {
    const sealed = sealClaimToken(TOKEN, "ip:1", "k");
    const bytes = Buffer.from(sealed.slice(3), "base64url");
    bytes[14] = bytes[14]! ^ 1;
    expect(openClaimToken(`v1.${bytes.toString("base64url")}`, "ip:1", "k")).toBeUndefined();
    expect(openClaimToken(sealed.slice(0, 20), "ip:1", "k")).toBeUndefined();
    expect(openClaimToken(`v2.${sealed.slice(3)}`, "ip:1", "k")).toBeUndefined();
    expect(openClaimToken("", "ip:1", "k")).toBeUndefined();
  });
});
