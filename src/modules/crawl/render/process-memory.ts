import { readdirSync, readFileSync } from "node:fs";

/**
 * The browser's processes as Linux's /proc shows them, for the memory ceiling:
 * the process whose command line carries a marker, and everything below it.
 * Elsewhere (no /proc) it finds nothing, and only the browser's own limits apply.
 */

export interface BrowserProcess {
  readonly pid: number;
  /** Resident memory, in bytes. */
  readonly rss: number;
  /** Chromium's process type: "renderer", "gpu-process", "utility", "zygote"; "browser" for the root. */
  readonly type: string;
}

const PAGE_SIZE = 4096;

/** The process tree under the process whose command line contains `marker`, root first; empty when there is none. */
export function browserProcesses(marker: string): BrowserProcess[] {
  const pids = allPids();
  const root = pids.find((pid) => {
    const line = commandLine(pid);
    return line.includes(marker) && !line.includes("--type=");
  });
  return root === undefined ? [] : processTree(root, pids);
}

/** A process and everything below it, root first (a worker and the browser it started, for benchmarks). */
export function processTree(root: number, pids = allPids()): BrowserProcess[] {
  const children = new Map<number, number[]>();
  for (const pid of pids) {
    const parent = parentOf(pid);
    if (parent === undefined) continue;
    const list = children.get(parent);
    if (list) list.push(pid);
    else children.set(parent, [pid]);
  }
  const found: BrowserProcess[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const rss = residentBytes(pid);
    if (rss !== undefined)
      found.push({
        pid,
        rss,
        type: pid === root ? "browser" : (/--type=([\w-]+)/.exec(commandLine(pid))?.[1] ?? "other"),
      });
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

function allPids(): number[] {
  try {
    return readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\u0000/g, " ");
  } catch {
    return "";
  }
}

function residentBytes(pid: number): number | undefined {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]);
    return Number.isFinite(pages) ? pages * PAGE_SIZE : undefined;
  } catch {
    return undefined;
  }
}

/** Proportional set size (shared pages split between their users), for honest totals in benchmarks. */
export function proportionalBytes(pid: number): number | undefined {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const kb = /^Pss:\s+(\d+) kB/m.exec(rollup)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}
