// How much a clumsy root costs the harness (issue 13). The scripted server plays a root that
// knows how to solve every generated task; once cleanly, once failing in the small-model
// catalogue's modes at a set, seeded rate (tests/fixtures/weak-model.ts). Both go through the
// real `rlm bench` command at a 4,096-token window, so the share of tasks answered correctly is
// the harness's tolerance, not a model's skill. Re-run after a harness change to compare.
//
// Run: node --experimental-wasm-stack-switching --import tsx bench/weak-model.ts [--write]
//      [--rates 0.3,0.5] [--seed 1] [--sizes 28K,112K] [--repeats 4] [--label "before"]
// --write also replaces this run's row block in bench/RESULTS.md (section "Weak-model simulator").
import { execSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trajectoryFileName } from "../src/bench/node.ts";
import { parseResultsJsonl } from "../src/bench/results.ts";
import { parseJsonl } from "../src/core/trajectory.ts";
import type { BenchResult } from "../src/bench/types.ts";
import { main } from "../src/cli/main.ts";
import { startScriptedServer } from "../tests/fixtures/scripted-server.ts";
import { chunkSubModel, weakRoot, type FailureMode } from "../tests/fixtures/weak-model.ts";
import { load, today } from "./lib/report.ts";
import { machine } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const v = scriptArgs({
  rates: { type: "string" },
  seed: { type: "string", number: "whole" },
  sizes: { type: "string" },
  repeats: { type: "string", number: "whole" },
  window: { type: "string", number: "whole" },
  label: { type: "string" },
});
const seed = v.seed ?? 1;
const sizes = v.sizes ?? "28K,112K";
const repeats = v.repeats ?? 4;
const SUITES = "niah,docqa,oolong,oolong-pairs";
const rates = (v.rates ?? "0.3,0.5").split(",").map(Number);
const window = v.window ?? 4096;

interface Condition {
  name: string;
  failureRate: number;
}

interface Outcome {
  condition: Condition;
  results: BenchResult[];
  /** Tasks whose answer the harness's fallback produced (from their trajectories). */
  byFallback: Set<string>;
  failures: Map<FailureMode, number>;
  rootTurns: number;
  seconds: number;
}

async function runCondition(condition: Condition): Promise<Outcome> {
  const failures = new Map<FailureMode, number>();
  const server = await startScriptedServer({
    contextWindow: window,
    root: weakRoot({
      seed,
      failureRate: condition.failureRate,
      onFailure: (mode) => failures.set(mode, (failures.get(mode) ?? 0) + 1),
    }),
    sub: chunkSubModel(),
  });
  const out = mkdtempSync(join(tmpdir(), "rlm-weak-"));
  const started = Date.now();
  const errors: string[] = [];
  try {
    const code = await main(
      [
        "bench",
        ["--base-url", server.baseUrl],
        ["--model", `simulated-${condition.name}`],
        ["--context-window", String(window)],
        ["--methods", "rlm"],
        ["--suites", SUITES],
        ["--sizes", sizes],
        ["--repeats", String(repeats)],
        ["--seed", String(seed)],
        ["--out", out],
      ].flat(),
      { stdout: () => undefined, stderr: (s) => void errors.push(s), readStdin: async () => null, env: {} },
    );
    if (code !== 0) throw new Error(`rlm bench exited with ${code}: ${errors.join("")}`);
    const results = parseResultsJsonl(readFileSync(join(out, "results.jsonl"), "utf8"));
    const rootTurns = server.requests.filter((r) => r.isRoot).length;
    return {
      condition,
      results,
      byFallback: answeredByFallback(out, results),
      failures,
      rootTurns,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await server.close();
    rmSync(out, { recursive: true, force: true });
  }
}

/** The tasks whose trajectory ends in a fallback step that gave the answer. */
function answeredByFallback(out: string, results: BenchResult[]): Set<string> {
  const ids = new Set<string>();
  for (const r of results) {
    const path = join(out, "trajectories", trajectoryFileName(r.taskId));
    if (!existsSync(path)) continue;
    const last = parseJsonl(readFileSync(path, "utf8")).iterations.at(-1);
    if (last?.fallback && last.final_answer) ids.add(r.taskId);
  }
  return ids;
}

const correct = (r: BenchResult) => r.score >= 0.999;
const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

function row(label: string, o: Outcome, suite?: string): string {
  const rs = suite ? o.results.filter((r) => r.suite === suite) : o.results;
  const share = rs.filter(correct).length / Math.max(1, rs.length);
  const mean = rs.reduce((s, r) => s + r.score, 0) / Math.max(1, rs.length);
  const statuses = new Map<string, number>();
  for (const r of rs) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  const ends = [...statuses].map(([s, n]) => `${s} ${n}`).join(", ");
  const fallback = rs.filter((r) => o.byFallback.has(r.taskId));
  const viaFallback = `${fallback.length} (${fallback.filter(correct).length} correct)`;
  return `| ${label} | ${o.condition.name} | ${suite ?? "all"} | ${rs.length} | ${pct(share)} | ${mean.toFixed(2)} | ${ends} | ${viaFallback} |`;
}

const commit = execSync("git rev-parse --short HEAD", { cwd: new URL("..", import.meta.url).pathname })
  .toString()
  .trim();
const label = v.label || commit;
const startLoad = load();
const outcomes: Outcome[] = [];
for (const condition of [{ name: "clean", failureRate: 0 }, ...rates.map((r) => ({ name: `weak ${r}`, failureRate: r }))]) {
  outcomes.push(await runCondition(condition));
}

const lines: string[] = [];
lines.push(
  `Run "${label}" (commit ${commit}): ${today()}, ${machine()}, load average ${startLoad} at start, ${load()} at end. ` +
    `Window ${window} tokens (root and sub), sizes ${sizes}, ${repeats} repeat(s), seed ${seed}.`,
);
lines.push("");
lines.push("| run | root | suite | tasks | answered correctly | mean score | how runs ended | answered by the fallback |");
lines.push("|---|---|---|---|---|---|---|---|");
for (const o of outcomes) {
  lines.push(row(label, o));
  for (const suite of SUITES.split(",")) lines.push(row(label, o, suite));
}
lines.push("");
for (const o of outcomes) {
  const total = [...o.failures.values()].reduce((a, b) => a + b, 0);
  const injected = [...o.failures]
    .sort((a, b) => b[1] - a[1])
    .map(([m, n]) => `${m} ${n}`)
    .join(", ");
  lines.push(
    `- ${o.condition.name}: ${total} failures injected in ${o.rootTurns} root turns${injected ? ` (${injected})` : ""}; ${o.seconds.toFixed(0)} s.`,
  );
}
const block = lines.join("\n");
console.log(block);

if (v.write) {
  const path = new URL("RESULTS.md", import.meta.url);
  const text = readFileSync(path, "utf8");
  const heading = "## Weak-model simulator: what a clumsy root costs the harness (issue 13)";
  const intro = [
    heading,
    "",
    "This measures the harness, not a model. The scripted server plays a root that knows how to solve",
    "every generated task (S-NIAH, LongDocQA, OOLONG, OOLONG-pairs); the weak run makes the same root",
    "fail in the small-model catalogue's modes (prose only, wrong fence, FINAL misuse, invented output,",
    "thinking leakage, tool-call JSON, repetition, premature guesses, cut-off fences) on a seeded share",
    "of its turns. The sub-model answers chunk questions correctly in both runs. Both go through",
    '`rlm bench` at a 4,096-token window. "Answered correctly" = score 1.',
    "",
    "Command: `node --experimental-wasm-stack-switching --import tsx bench/weak-model.ts --write --label <name>`.",
    "",
  ].join("\n");
  const marker = `<!-- weak-model run: ${label} -->`;
  const entry = `${marker}\n${block}\n<!-- end weak-model run: ${label} -->`;
  let next: string;
  if (!text.includes(heading)) {
    next = `${text.replace(/\s*$/, "")}\n\n${intro}\n${entry}\n`;
  } else if (text.includes(marker)) {
    const end = `<!-- end weak-model run: ${label} -->`;
    next = text.slice(0, text.indexOf(marker)) + entry + text.slice(text.indexOf(end) + end.length);
  } else {
    next = `${text.replace(/\s*$/, "")}\n\n${entry}\n`;
  }
  writeFileSync(path, next);
  console.log(`\nWrote ${path.pathname}`);
}
