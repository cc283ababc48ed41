// `npm test`'s test step: two vitest processes at once, each line of output prefixed with its
// lane, failing if either fails (issue 38). Lane A runs browser tests; lane B runs the unit and
// Node tests and then the browser files tests/lanes.ts names, so both lanes end near the same
// time instead of lane B waiting idle for half the run.
//
// Why two processes: in one vitest run the projects cannot overlap. e2e runs one file at a time
// (fileParallelism: false) and vitest runs sequence groups one after another, so unit, node and
// e2e took turns while one core mostly waited on a browser. Two processes let the Pyodide and
// llama.cpp tests use the core the browser tests leave idle.
//
// Arguments are passed to both lanes (e.g. file filters); a lane that a filter leaves empty passes.
// Each browser file runs in one lane only, whatever the filter.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { E2E_LANE_ENV, type E2ELane } from "../tests/lanes.ts";
import { slowestFilesTable, SLOWEST_FILES_JSON, type FileTime } from "../tests/reporters/slowest-files.ts";

interface Lane {
  name: string;
  /** Which browser files the lane's e2e project holds (tests/lanes.ts). */
  e2e: E2ELane;
  projects: string[];
}

// Within one vitest process projects run one after another (their sequence.groupOrder), so lane
// B's browser files start once its unit and Node tests are done.
const LANES: Lane[] = [
  { name: "e2e", e2e: "a", projects: ["e2e"] },
  { name: "unit+node+e2e", e2e: "b", projects: ["unit", "node", "e2e"] },
];

interface LaneResult {
  lane: Lane;
  code: number;
  ms: number;
  files: FileTime[];
}

// vitest's own command (its package exports only package.json, not the bin file).
const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const scratch = mkdtempSync(join(tmpdir(), "rlm-test-all-"));
const children: ChildProcess[] = [];

function runLane(lane: Lane, args: string[]): Promise<LaneResult> {
  const timesFile = join(scratch, `${lane.name}.json`);
  const projects = lane.projects.flatMap((p) => ["--project", p]);
  const started = Date.now();
  const child = spawn(process.execPath, [vitest, "run", "--configLoader", "runner", ...projects, "--passWithNoTests", ...args], {
    env: { ...process.env, [SLOWEST_FILES_JSON]: timesFile, [E2E_LANE_ENV]: lane.e2e },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const prefix = `[${lane.name}]`.padEnd(16);
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    createInterface({ input: from, crlfDelay: Infinity }).on("line", (line) => to.write(`${prefix}${line}\n`));
  }
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      resolve({ lane, code: code ?? (signal ? 1 : 0), ms: Date.now() - started, files: readTimes(timesFile) });
    });
  });
}

function readTimes(path: string): FileTime[] {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as FileTime[];
  } catch {
    return []; // the lane ended before its reporter wrote (a crash): its log says why
  }
}

// Ctrl-C reaches the children through the process group; a plain kill of this script should too.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
  });
}

const results = await Promise.all(LANES.map((lane) => runLane(lane, process.argv.slice(2))));
rmSync(scratch, { recursive: true, force: true });

const table = slowestFilesTable(results.flatMap((r) => r.files));
if (table) process.stdout.write(`\nBoth lanes together. ${table}\n`);
for (const r of results) {
  const verdict = r.code === 0 ? "passed" : `FAILED (exit ${r.code})`;
  process.stdout.write(`  ${r.lane.name.padEnd(14)} ${verdict} in ${(r.ms / 1000).toFixed(1)} s\n`);
}
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
