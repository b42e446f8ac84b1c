import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { UsageError } from "./exit-codes.js";

/**
 * The key `pms login` stores: `$XDG_CONFIG_HOME/pms/config.json`, else
 * `~/.config/pms/config.json`; the folder 0700 and the file 0600, as for any
 * secret in a home folder. The key is kept with the service it was verified
 * against and is sent to that service only.
 */

export interface StoredLogin {
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly savedAt: string;
}

type Env = Readonly<Record<string, string | undefined>>;

export function configPath(env: Env): string {
  const base = env.XDG_CONFIG_HOME?.trim() || join(env.HOME?.trim() || homedir(), ".config");
  return join(base, "pms", "config.json");
}

/** The stored login, if any; a file that is not one is a usage error naming it (nothing is sent). */
export function readLogin(env: Env): StoredLogin | undefined {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const stored = JSON.parse(text) as Partial<StoredLogin>;
    if (typeof stored.apiUrl === "string" && typeof stored.apiKey === "string" && stored.apiKey !== "")
      return { apiUrl: stored.apiUrl, apiKey: stored.apiKey, savedAt: String(stored.savedAt ?? "") };
  } catch {
    // Reported below, as for a file of the wrong shape.
  }
  throw new UsageError(`${path} is not a pms login: run pms logout, then pms login`);
}

/** Writes the login (a new file renamed over the old, so a reader never sees half of one); answers its path. */
export function saveLogin(env: Env, login: StoredLogin): string {
  const path = configPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // mkdir's mode applies only to a folder it makes, and through the umask: set it outright.
  chmodSync(dirname(path), 0o700);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
  return path;
}

/** Removes the stored login; answers whether there was one. */
export function removeLogin(env: Env): boolean {
  const path = configPath(env);
  try {
    rmSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** Two spellings of one service address (a trailing slash, a default port) are the same service. */
export function sameService(a: string, b: string): boolean {
  const normal = (url: string) => {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
  };
  return normal(a) === normal(b);
}
