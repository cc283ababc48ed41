// What --verbose says about start-up and, at the end, where the time went (like the app's time split).
import type { UsageSummary } from "../core/types.ts";
import type { ReplBootInfo } from "../repl/protocol.ts";

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/**
 * One line about how Python started: restored, made a snapshot, or booted without one, and why.
 * `cacheOff`: what turned the cache off (--no-cache, RLM_CACHE_DIR=off), if something did.
 */
export function describeStart(info: ReplBootInfo, cacheOff?: string): string {
  return `${describePython(info, cacheOff)}; ${describeSandbox(info)}`;
}

/** Which walls Python stands behind (see src/node/python-sandbox.mjs), in a person's words. */
export function describeSandbox(info: ReplBootInfo): string {
  const s = info.sandbox;
  if (!s) return "Python runs in a thread of this process, with no sandbox";
  const walls = [
    s.permission ? "Node's permission model (reads only its files, the cache and the documents; no writes, processes or addons)" : "",
    s.envVars <= 1 ? "no environment" : "",
    s.noStringCode ? "no code from strings" : "",
    s.lockdown ? "no network, host modules or Pyodide loaders (lockdown)" : "",
  ].filter(Boolean);
  return walls.length ? `sandbox: a separate process with ${walls.join(", ")}` : "sandbox: a separate process with NO walls up";
}

function describePython(info: ReplBootInfo, cacheOff?: string): string {
  const report = info.snapshot;
  const took = seconds(info.bootMs);
  if (!report) return `Python started in ${took}`;
  const note = cacheOff ? `start-up cache off: ${cacheOff}` : report.note;
  const why = note ? ` (${note})` : "";
  switch (report.path) {
    case "restored": {
      const checked = report.verified === "stamp" ? "checksum skipped: the file is unchanged since it was checked" : "";
      const detail = [note, checked].filter(Boolean).join("; ");
      return `Python started in ${took} from the snapshot in ${report.where ?? "the cache"}${detail ? ` (${detail})` : ""}`;
    }
    case "made-snapshot":
      return report.stored === "failed"
        ? `Python started in ${took} without a snapshot${why}`
        : `Python started in ${took} without a snapshot${why}; made one in ${report.where ?? "the cache"} for next time`;
    default:
      return `Python started in ${took} without a snapshot${why}`;
  }
}

export interface TimeSplit {
  /** From the start of the process to the answer. */
  totalMs: number;
  /** How Python started, and how long it took as the worker measured it. */
  boot: ReplBootInfo;
  /** Documents into `context`. */
  documentMs: number;
  usage: UsageSummary;
}

const START_PATHS = { restored: "restored", "made-snapshot": "booted, snapshot made", plain: "booted" } as const;

/** "time 2.10 s: Python start (restored) 0.45 s · document 0.20 s · model 1.10 s · Python 0.05 s · sub-calls 0.20 s · other 0.10 s" */
export function timeSplitLine(t: TimeSplit): string {
  const parts: Array<[string, number]> = [
    [`Python start (${START_PATHS[t.boot.snapshot?.path ?? "plain"]})`, t.boot.bootMs],
    ["document", t.documentMs],
    ["model", t.usage.generationMs],
    ["Python", t.usage.replMs],
    ["sub-calls", t.usage.subcallMs],
  ];
  const other = Math.max(0, t.totalMs - parts.reduce((sum, [, ms]) => sum + ms, 0));
  return `time ${seconds(t.totalMs)}: ${[...parts, ["other", other] as [string, number]].map(([name, ms]) => `${name} ${seconds(ms)}`).join(" · ")}`;
}
