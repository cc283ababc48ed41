// Debian's Chromium through playwright-core, plus the memory of every Chromium process this
// benchmark started, read from /proc (Linux only). Chromium is a child of this Node process, so
// its processes are exactly our descendants.
import { readFileSync, readdirSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { BASE_ARGS, CHROMIUM } from "../../tests/e2e/harness.ts";

export { BASE_ARGS, CHROMIUM };

export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, ...extraArgs], headless: true });
}

const PAGE = 4096;

interface Proc {
  pid: number;
  ppid: number;
}

function allProcs(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // The command name may contain spaces and parentheses: fields start after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.push({ pid: Number(name), ppid: Number(fields[1]) });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

export interface ChromiumProcesses {
  renderers: number[];
  others: number[];
}

/** Every descendant of this Node process, split into renderers (page + its workers) and the rest. */
export function chromiumProcesses(): ChromiumProcesses {
  const procs = allProcs();
  const children = new Map<number, number[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const found: number[] = [];
  const stack = [...(children.get(process.pid) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    found.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  const renderers: number[] = [];
  const others: number[] = [];
  for (const pid of found) {
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    (cmd.includes("--type=renderer") ? renderers : others).push(pid);
  }
  return { renderers, others };
}

function rssOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * PAGE;
  } catch {
    return 0;
  }
}

export interface ChromiumRss {
  /** The largest single renderer process (the page, its workers and their WebAssembly heaps). */
  renderer: number;
  /** All renderer processes together (the page's, and a sandboxed frame's of its own). */
  renderers: number;
  /** All Chromium processes (browser process, GPU, network, utility, renderers). */
  total: number;
}

/** RSS now. Process list is re-read at most every 500 ms (workers do not add processes). */
export function chromiumRssReader(): () => ChromiumRss {
  let procs = chromiumProcesses();
  let listedAt = performance.now();
  return () => {
    if (performance.now() - listedAt > 500) {
      procs = chromiumProcesses();
      listedAt = performance.now();
    }
    let renderer = 0;
    let renderers = 0;
    for (const pid of procs.renderers) {
      const r = rssOf(pid);
      renderer = Math.max(renderer, r);
      renderers += r;
    }
    let total = renderers;
    for (const pid of procs.others) total += rssOf(pid);
    return { renderer, renderers, total };
  };
}

/** Samples both figures every `intervalMs` and keeps each one's peak. */
export function sampleChromiumPeak(intervalMs = 20): { stop(): ChromiumRss } {
  const read = chromiumRssReader();
  const peak = read();
  const timer = setInterval(() => {
    const v = read();
    peak.renderer = Math.max(peak.renderer, v.renderer);
    peak.renderers = Math.max(peak.renderers, v.renderers);
    peak.total = Math.max(peak.total, v.total);
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const v = read();
      return {
        renderer: Math.max(peak.renderer, v.renderer),
        renderers: Math.max(peak.renderers, v.renderers),
        total: Math.max(peak.total, v.total),
      };
    },
  };
}
