import { execFile } from "node:child_process";
import { accessSync, constants, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

/**
 * Where the Chromium that renders client-built pages lives (docs/api.md §11): the
 * CHROMIUM_PATH variable, else `chromium`, `chromium-browser` or `google-chrome`
 * on PATH, else the newest browser in Playwright's cache (`npx playwright install
 * chromium`), else none: rendering is off and shell sites answer CRAWL_FAILED.
 * `CHROMIUM_PATH=off` turns rendering off on purpose.
 */

export interface BrowserLocation {
  readonly path: string;
  readonly source: "CHROMIUM_PATH" | "PATH" | "playwright cache";
}

export type BrowserEnvironment = Readonly<Record<string, string | undefined>>;

const ON_PATH = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

export class BrowserPathError extends Error {}

/** Throws BrowserPathError when CHROMIUM_PATH names something that is not an executable file. */
export function locateBrowser(
  env: BrowserEnvironment,
  platform: NodeJS.Platform = process.platform,
): BrowserLocation | undefined {
  const configured = env["CHROMIUM_PATH"]?.trim();
  if (configured) {
    if (configured.toLowerCase() === "off") return undefined;
    if (!isExecutable(configured))
      throw new BrowserPathError(
        `"${configured}" is not an executable file (give a Chromium or Chrome binary, or "off")`,
      );
    return { path: configured, source: "CHROMIUM_PATH" };
  }
  for (const folder of (env["PATH"] ?? "").split(delimiter).filter(Boolean)) {
    for (const name of ON_PATH) {
      const candidate = join(folder, platform === "win32" ? `${name}.exe` : name);
      if (isExecutable(candidate)) return { path: candidate, source: "PATH" };
    }
  }
  const cached = playwrightCacheBrowser(env, platform);
  return cached ? { path: cached, source: "playwright cache" } : undefined;
}

/** Playwright's cache: PLAYWRIGHT_BROWSERS_PATH, else the per-platform default; the newest revision wins. */
function playwrightCacheBrowser(env: BrowserEnvironment, platform: NodeJS.Platform): string | undefined {
  const home = env["HOME"] ?? homedir();
  const root =
    env["PLAYWRIGHT_BROWSERS_PATH"] && env["PLAYWRIGHT_BROWSERS_PATH"] !== "0"
      ? env["PLAYWRIGHT_BROWSERS_PATH"]
      : platform === "darwin"
        ? join(home, "Library", "Caches", "ms-playwright")
        : platform === "win32"
          ? join(env["LOCALAPPDATA"] ?? join(home, "AppData", "Local"), "ms-playwright")
          : join(env["XDG_CACHE_HOME"] ?? join(home, ".cache"), "ms-playwright");
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return undefined;
  }
  // chromium-1200 before chromium_headless_shell-1200: the full browser renders as users see; newest revision first.
  const revision = (name: string) => Number(/-(\d+)$/.exec(name)?.[1] ?? 0);
  const folders = entries
    .filter((name) => /^chromium(?:_headless_shell)?-\d+$/.test(name))
    .sort((a, b) => revision(b) - revision(a) || (a.includes("headless") ? 1 : 0) - (b.includes("headless") ? 1 : 0));
  const executables: Record<string, string[]> = {
    linux: [
      "chrome-linux64/chrome",
      "chrome-linux/chrome",
      "chrome-headless-shell-linux64/chrome-headless-shell",
      "chrome-linux/headless_shell",
    ],
    darwin: [
      "chrome-mac-arm64/Chromium.app/Contents/MacOS/Chromium",
      "chrome-mac/Chromium.app/Contents/MacOS/Chromium",
      "chrome-headless-shell-mac-arm64/chrome-headless-shell",
      "chrome-headless-shell-mac-x64/chrome-headless-shell",
    ],
    win32: [
      "chrome-win64/chrome.exe",
      "chrome-win/chrome.exe",
      "chrome-headless-shell-win64/chrome-headless-shell.exe",
    ],
  };
  for (const folder of folders) {
    for (const relative of executables[platform] ?? executables["linux"]!) {
      const candidate = join(root, folder, relative);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** "Chromium 156.0.8078.108" from `<browser> --version`, or undefined when it does not answer in time. */
export function browserVersion(path: string, timeoutMs = 10_000): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      path,
      ["--version"],
      { timeout: timeoutMs, encoding: "utf8", env: { ...process.env, LANG: "C" } },
      (error, stdout) => {
        const line = stdout?.split("\n").find((candidate) => /\d+\.\d+/.test(candidate));
        resolve(error && !line ? undefined : line?.replace(/\s+built on .*$/i, "").trim() || undefined);
      },
    );
  });
}
