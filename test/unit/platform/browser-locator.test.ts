import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BrowserPathError, browserVersion, locateBrowser } from "../../../src/platform/browser-locator.js";

const root = mkdtempSync(join(tmpdir(), "pms-locator-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** A stand-in browser: answers --version like Chromium does. */
function fakeBrowser(path: string, version = "Chromium 130.0.6723.58 built on Debian"): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, `#!/bin/sh\necho "${version}"\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("finding the browser", () => {
  it("takes CHROMIUM_PATH first, and refuses one that is not an executable file; 'off' turns rendering off", () => {
    const configured = fakeBrowser(join(root, "configured", "chrome"));
    fakeBrowser(join(root, "bin", "chromium"));
    expect(locateBrowser({ CHROMIUM_PATH: configured, PATH: join(root, "bin") })).toEqual({
      path: configured,
      source: "CHROMIUM_PATH",
    });
    expect(() => locateBrowser({ CHROMIUM_PATH: join(root, "missing") })).toThrow(BrowserPathError);
    writeFileSync(join(root, "plain-file"), "not a program");
    expect(() => locateBrowser({ CHROMIUM_PATH: join(root, "plain-file") })).toThrow(/not an executable file/);
    expect(locateBrowser({ CHROMIUM_PATH: "off", PATH: join(root, "bin") })).toBeUndefined();
  });

  it("then chromium, chromium-browser or google-chrome on PATH, in that order", () => {
    const a = join(root, "path-a");
    const b = join(root, "path-b");
    fakeBrowser(join(b, "google-chrome"));
    fakeBrowser(join(b, "chromium-browser"));
    expect(locateBrowser({ PATH: `${a}:${b}`, HOME: join(root, "nohome") })).toEqual({
      path: join(b, "chromium-browser"),
      source: "PATH",
    });
  });

  it("then the newest Chromium in Playwright's cache (PLAYWRIGHT_BROWSERS_PATH or ~/.cache/ms-playwright)", () => {
    const cache = join(root, "cache");
    fakeBrowser(join(cache, "chromium-1140", "chrome-linux", "chrome"));
    const newest = fakeBrowser(join(cache, "chromium-1200", "chrome-linux64", "chrome"));
    fakeBrowser(join(cache, "chromium_headless_shell-1200", "chrome-headless-shell-linux64", "chrome-headless-shell"));
    expect(locateBrowser({ PATH: "", PLAYWRIGHT_BROWSERS_PATH: cache }, "linux")).toEqual({
      path: newest,
      source: "playwright cache",
    });
    const home = join(root, "home");
    const cached = fakeBrowser(join(home, ".cache", "ms-playwright", "chromium-1100", "chrome-linux", "chrome"));
    expect(locateBrowser({ PATH: "", HOME: home }, "linux")).toEqual({ path: cached, source: "playwright cache" });
    expect(locateBrowser({ PATH: "", HOME: join(root, "empty-home") }, "linux")).toBeUndefined();
  });

  it("reads the version the binary reports", async () => {
    expect(await browserVersion(fakeBrowser(join(root, "v", "chromium")))).toBe("Chromium 130.0.6723.58");
    expect(await browserVersion(join(root, "v", "absent"))).toBeUndefined();
  });
});
