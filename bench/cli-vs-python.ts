// Issue 17: the `rlm` command against the canonical Python RLM harness (alexzhang13/rlm, local
// REPL), end to end, on the same scripted OpenAI-compatible server, the same 20 MB haystack with
// one needle and the same question: three root turns (find it, confirm it with one llm_query,
// submit it through the answer dict, which both harnesses accept). Interleaved runs of:
//   - our CLI with a cold start-up cache (a new empty --cache-dir: boot, make the snapshot);
//   - our CLI with a warm cache (restore the snapshot);
//   - the canonical harness (bench/python/canonical_rlm.py).
// Plus `rlm --help`, and the peak memory of our CLI (and the harness) on a 500 MB document.
// Wall time is measured from spawn to exit; peak memory is /usr/bin/time's maximum RSS.
//
// The canonical harness is not part of this project. Point RLM_CANONICAL_PYTHON (or
// --canonical-python=PATH) at an interpreter that can `import rlm`, prepared outside the
// repository; without one, its column is skipped and the ratios are left out.
//
// --baseline=DIR adds another checkout of this project (a git worktree of an earlier commit, with
// its own node_modules) as two more interleaved columns, warm and cold cache: an A/B of two
// versions of `rlm` in the same run, the ratio against it (warm against warm, cold against cold)
// in its own column.
//
// Run: node --import tsx bench/cli-vs-python.ts [--write] [--runs=3] [--big-mb=500] [--no-big] [--baseline=DIR]
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repl as code, startScriptedServer } from "../tests/fixtures/scripted-server.ts";
import { Report, load, spread, spreadOf, today } from "./lib/report.ts";
import { machine, summarize } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({
  baseline: { type: "string" },
  "big-mb": { type: "string", number: "decimal" },
  "canonical-python": { type: "string", env: ["RLM_CANONICAL_PYTHON"] },
  "no-big": { type: "boolean" },
  runs: { type: "string", number: "whole" },
});
const RUNS = args.runs ?? 3;
const BIG_MB = args["big-mb"] ?? 500;
const canonicalPython = args["canonical-python"] ?? null;
const bin = new URL("../bin/rlm.mjs", import.meta.url).pathname;
const baselineDir = args.baseline ?? null;
const baselineBin = baselineDir ? join(baselineDir, "bin/rlm.mjs") : null;
const BASELINE = "baseline checkout, warm cache";
const BASELINE_COLD = "baseline checkout, cold cache";
const driver = new URL("./python/canonical_rlm.py", import.meta.url).pathname;
const TIME = "/usr/bin/time";
const NEEDLE = "ZEBRA-4242";
const EXTRA_CERTS_UNSET = "ours, warm cache, NODE_EXTRA_CA_CERTS unset";
const QUESTION = "What is the secret code?";

interface Timed {
  ms: number;
  maxRssMb: number | null;
  /** User + system CPU seconds: what the run costs, whatever else the machine is doing. */
  cpuS: number | null;
  stdout: string;
  stderr: string;
  code: number;
}

/** Spawns a command (under /usr/bin/time when present, for the peak RSS) and times it. */
function timed(command: string, args: string[], env: Record<string, string | undefined> = process.env): Promise<Timed> {
  const useTime = existsSync(TIME);
  const [file, argv] = useTime ? [TIME, ["-f", "__maxrss_kb=%M __cpu=%U+%S", command, ...args]] : [command, args];
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(file, argv, { env, maxBuffer: 64 * 2 ** 20, timeout: 600_000 }, (err, stdout, stderr) => {
      const ms = performance.now() - started;
      const rss = /__maxrss_kb=(\d+) __cpu=([\d.]+)\+([\d.]+)/.exec(stderr);
      resolve({
        ms,
        maxRssMb: rss ? Number(rss[1]) / 1024 : null,
        cpuS: rss ? Number(rss[2]) + Number(rss[3]) : null,
        stdout,
        stderr: stderr.replace(/__maxrss_kb=.*\n?/, ""),
        code: err ? (typeof err.code === "number" ? err.code : 1) : 0,
      });
    });
  });
}

/** A haystack of ASCII lines with the needle at the middle, written in 1 MB pieces. */
function writeHaystack(path: string, bytes: number): void {
  if (existsSync(path) && statSync(path).size >= bytes) return;
  const words = ["alpha", "beta", "gamma", "delta", "river", "stone", "cloud", "amber", "quartz", "meadow"];
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const line = () => `${Array.from({ length: 12 }, () => words[Math.floor(rand() * words.length)]).join(" ")}\n`;
  const piece = Array.from({ length: 16_000 }, line).join(""); // ~1 MB, repeated
  const fd = openSync(path, "w");
  let written = 0;
  let needleDone = false;
  while (written < bytes) {
    if (!needleDone && written >= bytes / 2) {
      written += writeSync(fd, `The secret code is ${NEEDLE}.\n`);
      needleDone = true;
    }
    written += writeSync(fd, piece);
  }
  closeSync(fd);
}

const report = new Report("cli-vs-python");
const work = join(tmpdir(), "rlm-bench-cli-vs-python");
mkdirSync(work, { recursive: true });
const hay = join(work, "haystack-20mb.txt");
writeHaystack(hay, 20 * 2 ** 20);

const server = await startScriptedServer({ contextWindow: 32_768 });
server.scripts.root = [
  code('import re\nm = re.search(r"secret code is ([\\w-]+)", context)\nfound = m.group(1)\nprint(found)'),
  code('confirmed = llm_query("Reply with just this code: " + found)\nprint(confirmed)'),
  code('answer["content"] = confirmed.strip()\nanswer["ready"] = True'),
];
server.scripts.sub = (req) => req.lastUser.split(": ").at(-1) ?? "";

const ourArgs = (doc: string, cacheDir: string, script = bin) => [
  script,
  "--context-file",
  doc,
  "--task",
  QUESTION,
  "--base-url",
  server.baseUrl,
  "--model",
  "scripted",
  "--cache-dir",
  cacheDir,
];
const canonicalArgs = (doc: string) => [driver, doc, QUESTION, server.baseUrl, "scripted"];

function check(label: string, r: Timed): void {
  if (r.code !== 0 || !r.stdout.includes(NEEDLE)) {
    throw new Error(`${label} did not answer (exit ${r.code}): ${r.stdout.slice(0, 300)} ${r.stderr.slice(-1500)}`);
  }
}

report.line(`Machine: ${machine()}. Date: ${today()}. Load average at start: ${load()}.`);
if (!canonicalPython) report.line("RLM_CANONICAL_PYTHON is not set: the canonical harness column is skipped.");
const samples: Record<string, Timed[]> = {};
const loads: string[] = [];
const warmDir = mkdtempSync(join(work, "warm-"));
const baselineWarmDir = mkdtempSync(join(work, "baseline-warm-"));
if (baselineDir) report.line(`Baseline: ${baselineDir} (another checkout of this project).`);
try {
  const warmup = await timed(process.execPath, [bin, "warmup", "--cache-dir", warmDir]);
  if (warmup.code !== 0) throw new Error(`rlm warmup failed: ${warmup.stderr}`);
  if (baselineBin) {
    const baseWarmup = await timed(process.execPath, [baselineBin, "warmup", "--cache-dir", baselineWarmDir]);
    if (baseWarmup.code !== 0) throw new Error(`the baseline's rlm warmup failed: ${baseWarmup.stderr}`);
  }
  for (let run = 0; run < RUNS; run++) {
    loads.push(load());
    const coldDir = mkdtempSync(join(work, "cold-"));
    const order: Array<[string, () => Promise<Timed>]> = [
      ["ours, warm cache", () => timed(process.execPath, ourArgs(hay, warmDir))],
      ["ours, cold cache", () => timed(process.execPath, ourArgs(hay, coldDir))],
    ];
    if (canonicalPython) order.push(["canonical Python harness", () => timed(canonicalPython, canonicalArgs(hay))]);
    if (baselineBin) {
      order.push([BASELINE, () => timed(process.execPath, ourArgs(hay, baselineWarmDir, baselineBin))]);
      order.push([BASELINE_COLD, () => timed(process.execPath, ourArgs(hay, mkdtempSync(join(coldDir, "baseline-")), baselineBin))]);
    }
    // Node parses the whole NODE_EXTRA_CA_CERTS bundle as the process starts, before any of our
    // code (~60 ms of CPU for a system bundle here); Python reads CA files only when it opens a
    // TLS connection. Where the machine sets it, also time a run without it.
    if (process.env.NODE_EXTRA_CA_CERTS) {
      const withoutExtraCerts = { ...process.env, NODE_EXTRA_CA_CERTS: undefined };
      order.push([EXTRA_CERTS_UNSET, () => timed(process.execPath, ourArgs(hay, warmDir), withoutExtraCerts)]);
    }
    // Rotate the order so a slow phase of a shared machine hits each column alike.
    for (let i = 0; i < order.length; i++) {
      const [label, go] = order[(i + run) % order.length]!;
      const r = await go();
      check(label, r);
      (samples[label] ??= []).push(r);
    }
    rmSync(coldDir, { recursive: true, force: true });
    console.error(`run ${run + 1}/${RUNS} done (load ${load()})`);
  }
  for (let i = 0; i < 5; i++) (samples["rlm --help"] ??= []).push(await timed(process.execPath, [bin, "--help"]));

  if (!args["no-big"]) {
    const big = join(work, `haystack-${BIG_MB}mb.txt`);
    writeHaystack(big, BIG_MB * 2 ** 20);
    const r = await timed(process.execPath, ourArgs(big, warmDir));
    check(`ours, ${BIG_MB} MB`, r);
    (samples[`ours, ${BIG_MB} MB document, warm cache`] ??= []).push(r);
    if (canonicalPython) {
      const c = await timed(canonicalPython, canonicalArgs(big));
      check(`canonical, ${BIG_MB} MB`, c);
      (samples[`canonical Python harness, ${BIG_MB} MB document`] ??= []).push(c);
    }
  }
} finally {
  await server.close();
  rmSync(warmDir, { recursive: true, force: true });
  rmSync(baselineWarmDir, { recursive: true, force: true });
}

const medianMs = (key: string) => (samples[key] ? summarize(samples[key]!.map((s) => s.ms)).median : NaN);
const canonical = medianMs("canonical Python harness");
const medianCpu = (key: string) =>
  samples[key]?.every((x) => x.cpuS !== null) ? summarize(samples[key]!.map((x) => x.cpuS!)).median : NaN;
report.line();
report.table([
  "20 MB needle, end to end (ms)",
  "median",
  "p10–p90",
  "runs",
  "× canonical harness (same run)",
  "peak RSS, median (MB)",
  "CPU s (user+sys), median",
  "× baseline: wall, CPU (same run)",
]);
/** What a row is compared with in the baseline column: a cold start with the baseline's cold start. */
const againstBaseline = (key: string) => (key === "ours, cold cache" || key === BASELINE_COLD ? BASELINE_COLD : BASELINE);
for (const key of ["ours, warm cache", EXTRA_CERTS_UNSET, "ours, cold cache", BASELINE, BASELINE_COLD, "canonical Python harness"]) {
  const list = samples[key];
  if (!list) continue;
  const s = spread(list.map((x) => x.ms));
  const ratio = Number.isFinite(canonical) ? `${(medianMs(key) / canonical).toFixed(2)}×` : "–";
  const rss = list.every((x) => x.maxRssMb !== null) ? spreadOf(list.map((x) => x.maxRssMb!)).median : "–";
  const cpu = list.every((x) => x.cpuS !== null)
    ? spreadOf(
        list.map((x) => x.cpuS!),
        2,
      ).median
    : "–";
  const base = againstBaseline(key);
  const vsBaseline = Number.isFinite(medianMs(base))
    ? `${(medianMs(key) / medianMs(base)).toFixed(2)}×, ${(medianCpu(key) / medianCpu(base)).toFixed(2)}×`
    : "–";
  report.row([key, s.median, s.range, s.n, ratio, rss, cpu, vsBaseline]);
}
report.line();
report.table(["other", "median", "p10–p90", "runs", "peak RSS (MB)"]);
for (const [key, list] of Object.entries(samples)) {
  if (!key.startsWith("rlm --help") && !key.includes(" MB document")) continue;
  const s = spread(list.map((x) => x.ms));
  const rss = list.every((x) => x.maxRssMb !== null) ? spreadOf(list.map((x) => x.maxRssMb!)).median : "–";
  report.row([key, s.median, s.range, s.n, rss]);
}
report.line();
report.line(`Load average per run: ${loads.join(", ")}; at the end: ${load()}.`);
if (args.write) {
  report.save();
  report.saveJson(
    "",
    Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.map(({ ms, maxRssMb, cpuS }) => ({ ms, maxRssMb, cpuS }))])),
  );
}
process.exit(0);
