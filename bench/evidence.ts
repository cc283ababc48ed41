// Do an answer's sources point at the passage it came from, and what does recording them cost?
//
// 1. Source quality. The generated suites (S-NIAH, LongDocQA, code-repo QA) are answered by a
//    scripted model that explores each document in one of several ways a small model does
//    (bench/lib/evidence-scripts.ts: regex then a sub-call, find then print, a map over chunks,
//    findall, a compiled pattern; for code also ways that leave no trace Python can see). For
//    every correct answer: is the gold passage among the first three sources?
// 2. Overhead. The harness's per-turn method (bench/lib/harness-runs.ts) and a realistic turn
//    over 1–100 MB documents (regex or str.find, print a window, a sub-call on it), each on a
//    REPL with recording on and one with it off, in the same run.
//
// Run: node --import tsx bench/evidence.ts [--write] [--quick] [--only=quality|overhead]
import { planTasks } from "../src/bench/plan.ts";
import { defaultCodeRepo } from "../src/bench/node.ts";
import { loadTaskContext } from "../src/bench/runner.ts";
import { scoreAnswer } from "../src/bench/scoring.ts";
import type { BenchTask } from "../src/bench/types.ts";
import { runRlm } from "../src/core/loop.ts";
import { DEFAULT_CONFIG, type RlmEvent } from "../src/core/types.ts";
import type { ReplClient } from "../src/repl/client.ts";
import { createNodeRepl } from "../src/repl/node.ts";
import { InstantEngine } from "../tests/fixtures/instant-engine.ts";
import { goldPassage, rootModel, strategiesFor, subModel } from "./lib/evidence-scripts.ts";
import { perTurn } from "./lib/harness-runs.ts";
import { Report, load, spread, today } from "./lib/report.ts";
import { asciiBlob } from "./lib/text.ts";
import { machine, summarize } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({ only: { type: "string" }, quick: { type: "boolean" } });

const quick = args.quick;
const report = new Report("evidence");
report.line(`Machine: ${machine()}. Date: ${today()}. Load average at start: ${load()}.`);

// --- 1. source quality ----------------------------------------------------------------------------

interface Row {
  suite: string;
  strategy: string;
  traceless: boolean;
  correct: boolean;
  /** 1-based rank of the first source (its focus) that overlaps the gold passage; 0 = none. */
  rank: number;
  sources: number;
  /** Characters of the first source's passage (a whole document would make "overlaps" meaningless). */
  firstChars: number;
}

function rankOfGold(task: BenchTask, sources: Array<{ doc: string; start: number; end: number }>): number {
  const gold = goldPassage(task);
  const i = sources.findIndex((s) => s.doc === gold.doc && s.start < gold.end && gold.start < s.end);
  return i + 1;
}

async function qualityRows(repl: ReplClient): Promise<Row[]> {
  const sizes = quick ? [28_000, 448_000] : [28_000, 448_000, 2_000_000, 8_000_000];
  const repeats = quick ? 1 : 4;
  const code = defaultCodeRepo();
  const specs = [
    ...planTasks({ suites: ["niah"], sizes, repeats, seed: 7 }),
    ...planTasks({ suites: ["docqa"], sizes, repeats: repeats * 3, seed: 7 }),
    ...planTasks({ suites: ["code"], repeats: quick ? 3 : 9, seed: 7, code: { ...code, kinds: ["function-file", "dependency-version"] } }),
  ];
  const rows: Row[] = [];
  const turnOf = new Map<string, number>(); // round robin of strategies per suite and variant
  for (const spec of specs) {
    const task = spec.build();
    const key = `${task.suite}/${task.suite === "code" ? task.variant : ""}`;
    const n = turnOf.get(key) ?? 0;
    turnOf.set(key, n + 1);
    const strategies = strategiesFor(task);
    const strategy = strategies[n % strategies.length]!;
    await loadTaskContext(repl, task);
    const result = await runRlm({
      question: task.question,
      repl,
      rootEngine: new InstantEngine("root", rootModel(strategy), 32_768),
      subEngine: new InstantEngine("sub", subModel, 32_768),
      config: { ...DEFAULT_CONFIG, maxIterations: 4, cellTimeoutMs: 120_000 },
    });
    const correct = scoreAnswer(task.expected, result.answer) >= 1;
    const sources = result.sources ?? [];
    const firstChars = sources[0] ? sources[0].end - sources[0].start : 0;
    rows.push({
      suite: task.suite,
      strategy: strategy.name,
      traceless: strategy.traceless,
      correct,
      rank: rankOfGold(task, sources),
      sources: sources.length,
      firstChars,
    });
    process.stderr.write(
      `${task.id} [${strategy.name}] ${correct ? "correct" : `WRONG (${result.status}: ${result.answer.slice(0, 60)})`} gold at ${rankOfGold(task, sources) || "-"}\n`,
    );
  }
  return rows;
}

function qualityTable(rows: Row[]): void {
  const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : "–");
  report.table([
    "suite",
    "strategy",
    "tasks",
    "correct",
    "gold in top 3 (of correct)",
    "gold first",
    "first source, characters (median)",
    "no source at all",
  ]);
  const groups = new Map<string, Row[]>();
  for (const r of rows) groups.set(`${r.suite}\u0000${r.strategy}`, [...(groups.get(`${r.suite}\u0000${r.strategy}`) ?? []), r]);
  const line = (label: string[], list: Row[]) => {
    const correct = list.filter((r) => r.correct);
    const top3 = correct.filter((r) => r.rank >= 1 && r.rank <= 3).length;
    const first = correct.filter((r) => r.rank === 1).length;
    const chars = correct.length ? summarize(correct.map((r) => r.firstChars)).median : 0;
    report.row([
      ...label,
      list.length,
      correct.length,
      `${top3} (${pct(top3, correct.length)})`,
      pct(first, correct.length),
      chars,
      correct.filter((r) => !r.sources).length,
    ]);
  };
  for (const [key, list] of groups) line(key.split("\u0000"), list);
  line(["**all**", "**every strategy**"], rows);
  line(
    ["**all**", "**strategies Python can see**"],
    rows.filter((r) => !r.traceless),
  );
}

// --- 2. overhead -----------------------------------------------------------------------------------

/** `mb` MiB of filler with up to ten unique needle lines spread through it. */
function needleDocument(mb: number): { blob: Blob; needles: string[] } {
  const parts: BlobPart[] = [];
  const needles: string[] = [];
  const block = asciiBlob(1);
  const every = Math.max(1, Math.floor(mb / 10));
  for (let i = 0; i < mb; i++) {
    parts.push(block);
    if (i % every === every - 1 || mb === 1) {
      needles.push(`NEEDLE-${i}:`);
      parts.push(`NEEDLE-${i}: the code for vault ${i} is ZX-${(i + 1) * 7919}.\n`);
    }
  }
  return { blob: new Blob(parts), needles };
}

/** Whole-turn times of a scripted run that looks up each needle once. */
async function realisticTurns(repl: ReplClient, needles: string[], hint: "regex" | "find"): Promise<number[]> {
  const times: number[] = [];
  let turnStart = 0;
  const onEvent = (e: RlmEvent) => {
    if (e.type !== "turn-started" || e.depth !== 0) return;
    const now = performance.now();
    if (turnStart) times.push(now - turnStart);
    turnStart = now;
  };
  const lookup = (needle: string) =>
    hint === "regex"
      ? `import re\nm = re.search(${JSON.stringify(needle)}, context)\ni = m.start()`
      : `i = context.find(${JSON.stringify(needle)})`;
  const root = new InstantEngine("root", (req) => {
    const turn = req.messages.filter((m) => m.role === "assistant").length;
    if (turn >= needles.length) return "```repl\nFINAL(reply)\n```";
    return `\`\`\`repl\n${lookup(needles[turn]!)}\nw = context[max(0, i - 300):i + 300]\nprint(w)\nreply = llm_query("<<" + w + ">> What is the code?")\n\`\`\``;
  });
  await repl.resetNamespace();
  const result = await runRlm({
    question: "bench",
    repl,
    rootEngine: root,
    subEngine: new InstantEngine("sub", () => "ZX"),
    config: { ...DEFAULT_CONFIG, maxIterations: needles.length + 2 },
    onEvent,
  });
  if (result.status !== "answered") throw new Error(`realistic run ended ${result.status}: ${result.message ?? ""}`);
  return times;
}

async function overhead(): Promise<void> {
  const on = createNodeRepl({ syncMode: "sab" });
  const off = createNodeRepl({ syncMode: "sab", recordSources: false });
  await Promise.all([on.start(), off.start()]);
  report.line();
  report.line(`Load average before the overhead runs: ${load()}.`);
  report.line();
  report.table(["measurement (ms)", "recording on: median (p10–p90)", "off: median (p10–p90)", "on − off (median)", "on / off", "samples"]);
  const row = (name: string, a: number[], b: number[]) => {
    const sa = spread(a);
    const sb = spread(b);
    const ma = summarize(a).median;
    const mb = summarize(b).median;
    report.row([
      name,
      `${sa.median} (${sa.range})`,
      `${sb.median} (${sb.range})`,
      (ma - mb).toFixed(2),
      `${(ma / mb).toFixed(2)}×`,
      `${sa.n} / ${sb.n}`,
    ]);
  };
  for (const r of [on, off]) await r.setContextText("benchmark context");
  // Interleaved so both see the same machine load.
  const tinyOn: number[][] = [[], []];
  const tinyOff: number[][] = [[], []];
  for (let i = 0; i < (quick ? 2 : 5); i++) {
    const a = await perTurn(on, 40, 1);
    const b = await perTurn(off, 40, 1);
    tinyOn[0]!.push(...a.turn);
    tinyOn[1]!.push(...a.harness);
    tinyOff[0]!.push(...b.turn);
    tinyOff[1]!.push(...b.harness);
  }
  row("root turn, tiny context: whole turn", tinyOn[0]!, tinyOff[0]!);
  row("root turn, tiny context: harness only (turn − model − cell)", tinyOn[1]!, tinyOff[1]!);
  for (const mb of quick ? [1, 10] : [1, 10, 100]) {
    const { blob, needles } = needleDocument(mb);
    for (const r of [on, off]) await r.loadDocuments([{ name: "big.txt", data: blob }]);
    for (const hint of ["regex", "find"] as const) {
      const a: number[] = [];
      const b: number[] = [];
      for (let run = 0; run < (quick ? 1 : 3); run++) {
        a.push(...(await realisticTurns(on, needles, hint)));
        b.push(...(await realisticTurns(off, needles, hint)));
      }
      row(`${mb} MB document, ${hint === "regex" ? "re.search" : "str.find"} + print a window + llm_query on it: whole turn`, a, b);
    }
  }
  on.close();
  off.close();
}

// --only=quality or --only=overhead runs one part.
const only = args.only;
let rows: Row[] = [];
if (only !== "overhead") {
  const repl = createNodeRepl({ syncMode: "sab" });
  await repl.start();
  rows = await qualityRows(repl);
  repl.close();
  report.line();
  qualityTable(rows);
}
if (only !== "quality") await overhead();
report.line();
report.line(`Load average at the end: ${load()}.`);
if (args.write) {
  console.log(`written: ${report.save()}`);
  report.saveJson("-rows", rows);
}
