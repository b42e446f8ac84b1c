import { AppError } from "./errors.js";

/**
 * The dated versions of the API (docs/api.md §14), newest first. A caller picks one
 * with the `Pms-Version` request header; without it, an authenticated request uses
 * its account's pinned version (set to the newest when the account is made) and any
 * other the newest. Every API answer names the version it used in `Pms-Version`.
 *
 * A version that a newer one replaced is marked `deprecated` (the date it was) and
 * given a `sunset` at least 12 months later; answers that use it carry the
 * `Deprecation` and `Sunset` headers from then on.
 */
export interface ApiVersion {
  /** `YYYY-MM-DD`: the day it was released. */
  readonly version: string;
  readonly deprecated?: string;
  readonly sunset?: string;
}

export const API_VERSIONS: readonly ApiVersion[] = [{ version: "2026-11-01" }];

/** The newest version: what new accounts are pinned to and anonymous requests use. */
export const CURRENT_API_VERSION: string = API_VERSIONS[0]!.version;

export const API_VERSION_HEADER = "Pms-Version";

/**
 * The version a `Pms-Version` header names; undefined when none was sent. Anything
 * else is refused with VALIDATION_FAILED naming the header and the known versions.
 */
export function requestedApiVersion(
  header: string | string[] | undefined,
  versions: readonly ApiVersion[] = API_VERSIONS,
): string | undefined {
  if (header === undefined) return undefined;
  const sent = Array.isArray(header) ? header.join(", ") : header.trim();
  if (versions.some((entry) => entry.version === sent)) return sent;
  const shown = JSON.stringify(sent.length > 40 ? `${sent.slice(0, 37)}...` : sent);
  throw new AppError(
    "VALIDATION_FAILED",
    `${API_VERSION_HEADER}: ${shown} is not a version of this API; known versions: ${versions.map((entry) => entry.version).join(", ")}`,
    {
      param: API_VERSION_HEADER,
      action: `Send a known dated version in ${API_VERSION_HEADER}, or leave the header out to use your account's.`,
    },
  );
}

/**
 * The headers an answer that used `version` carries: `Pms-Version`, and while the
 * version is deprecated `Deprecation` (RFC 9745, `@<unix seconds>`) and `Sunset`
 * (RFC 8594, an HTTP date).
 */
export function apiVersionHeaders(
  version: string,
  versions: readonly ApiVersion[] = API_VERSIONS,
): Record<string, string> {
  const entry = versions.find((candidate) => candidate.version === version);
  const headers: Record<string, string> = { "pms-version": version };
  if (entry?.deprecated) headers.deprecation = `@${Math.floor(Date.parse(entry.deprecated) / 1000)}`;
  if (entry?.sunset) headers.sunset = new Date(Date.parse(entry.sunset)).toUTCString();
  return headers;
}
