// The REPL's start, this checkout against another (an A/B for a change to the REPL worker or the
// Python runtime): from createNodeRepl(...).start() to a ready REPL, in worker threads of this
// process (no sandbox process, so the figure is the worker's own start and nothing else), the two
// checkouts interleaved and their order rotated each run:
//   - restored: from a snapshot each checkout made once, before the runs (a warm start);
//   - made-snapshot: a new empty snapshot directory each run (boot, install the runtime, make the
//     snapshot, restore a fresh interpreter from it: a first start).
// Reported per column: wall time, this process's CPU time during the start (worker threads
// included), and the boot's own phases as the worker reports them.
//
// Run: node --import tsx bench/repl-start-ab.ts --baseline=DIR [--runs=10] [--kinds=restored,made-snapshot] [--write]
// DIR is another checkout of this project (a git worktree of an earlier commit, with node_modules).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Report, load, spread, today } from "./lib/report.ts";
import { machine, summarize } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

interface Start {
  wallMs: number;
  /** The boot call inside the worker (after its thread started and loaded its modules). */
  bootMs: number;
  cpuMs: number;
  phases: Array<{ phase: string; ms: number }>;
  path: string;
}

type CreateNodeRepl = (options: { sandbox: false; snapshotDir: string }) => {
  start(): Promise<{ bootMs: number; snapshot?: { path: string; phases: Array<{ phase: string; ms: number }> } }>;
  close(): void;
};

const args = scriptArgs({ baseline: { type: "string" }, kinds: { type: "string" }, runs: { type: "string", number: "whole" } });
const RUNS = args.runs ?? 10;
/** --kinds=restored (or made-snapshot) times only that kind of start. */
const KINDS = (args.kinds ?? "restored,made-snapshot").split(",");
const baselineDir = args.baseline;
if (!baselineDir) throw new Error("Name the other checkout: --baseline=DIR");

const checkouts = {
  "this checkout": new URL("../", import.meta.url).pathname,
  baseline: baselineDir.endsWith("/") ? baselineDir : `${baselineDir}/`,
};
const creators = Object.fromEntries(
  await Promise.all(
    Object.entries(checkouts).map(async ([name, dir]) => {
      const mod = (await import(`${dir}src/repl/node.ts`)) as { createNodeRepl: CreateNodeRepl };
      return [name, mod.createNodeRepl] as const;
    }),
  ),
) as Record<keyof typeof checkouts, CreateNodeRepl>;

const idle = () => new Promise((resolve) => setTimeout(resolve, 300));

async function timedStart(create: CreateNodeRepl, snapshotDir: string): Promise<Start> {
  const repl = create({ sandbox: false, snapshotDir });
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const info = await repl.start();
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  repl.close();
  await idle(); // the worker's teardown is not the next start's
  return {
    wallMs,
    bootMs: info.bootMs,
    cpuMs: (used.user + used.system) / 1000,
    phases: info.snapshot?.phases ?? [],
    path: info.snapshot?.path ?? "?",
  };
}

const work = mkdtempSync(join(tmpdir(), "rlm-repl-start-ab-"));
const warmDirs = Object.fromEntries(Object.keys(checkouts).map((name) => [name, mkdtempSync(join(work, "warm-"))]));
const samples: Record<string, Start[]> = {};
const loads: string[] = [];
try {
  for (const [name, create] of Object.entries(creators)) await timedStart(create, warmDirs[name]!); // make each one's snapshot
  for (let run = 0; run < RUNS; run++) {
    loads.push(load());
    const order: Array<[string, () => Promise<Start>]> = [];
    for (const [name, create] of Object.entries(creators)) {
      if (KINDS.includes("restored")) order.push([`${name}, restored`, () => timedStart(create, warmDirs[name]!)]);
      if (KINDS.includes("made-snapshot"))
        order.push([`${name}, made-snapshot`, () => timedStart(create, mkdtempSync(join(work, "cold-")))]);
    }
    for (let i = 0; i < order.length; i++) {
      const [label, go] = order[(i + run) % order.length]!;
      (samples[label] ??= []).push(await go());
    }
    console.error(`run ${run + 1}/${RUNS} done (load ${load()})`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const report = new Report("repl-start-ab");
report.line(`Machine: ${machine()}. Date: ${today()}. Baseline: ${checkouts.baseline}.`);
report.line();
report.table([
  "REPL start, worker thread (ms)",
  "wall: median",
  "p10–p90",
  "boot call in the worker: median",
  "CPU ms: median",
  "runs",
  "phases: median ms",
  "× baseline: wall, CPU",
]);
const median = (xs: number[]) => summarize(xs).median;
for (const kind of KINDS) {
  const base = samples[`baseline, ${kind}`]!;
  for (const name of Object.keys(checkouts)) {
    const list = samples[`${name}, ${kind}`]!;
    const wall = spread(list.map((s) => s.wallMs));
    const phaseNames = [...new Set(list.flatMap((s) => s.phases.map((p) => p.phase)))];
    const phases = phaseNames.map((p) => `${p} ${Math.round(median(list.map((s) => s.phases.find((x) => x.phase === p)?.ms ?? 0)))}`);
    const paths = [...new Set(list.map((s) => s.path))].join("/");
    const ratio = `${(median(list.map((s) => s.wallMs)) / median(base.map((s) => s.wallMs))).toFixed(2)}×, ${(median(list.map((s) => s.cpuMs)) / median(base.map((s) => s.cpuMs))).toFixed(2)}×`;
    report.row([
      `${name}, ${kind} (${paths})`,
      wall.median,
      wall.range,
      Math.round(median(list.map((s) => s.bootMs))),
      Math.round(median(list.map((s) => s.cpuMs))),
      wall.n,
      phases.join(", "),
      ratio,
    ]);
  }
}
report.line();
report.line(`Load average per run: ${loads.join(", ")}; at the end: ${load()}.`);
if (args.write) report.save();
process.exit(0);
