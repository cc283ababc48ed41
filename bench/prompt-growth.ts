// Root prompt size per turn as the document grows from 10 KB to 100 MB. The document must
// never enter the root model's window, so every column should stay flat across sizes.
// The same 4-turn script runs over each size: look at the start, map 8 chunks with
// llm_query_batched, carelessly print 200,000 characters (the harness must clip it), answer.
// The in-memory engine records every root request it receives.
//
// Run: node --import tsx bench/prompt-growth.ts [--write] [--quick: 10 KB and 10 MB only, a smoke test]
// No JSPI flag needed (sub-calls use the SharedArrayBuffer channel without it).
import { runRlm } from "../src/core/loop.ts";
import { DEFAULT_CONFIG } from "../src/core/types.ts";
import { estimateMessagesTokens } from "../src/engines/tokens.ts";
import type { ChatRequest } from "../src/engines/types.ts";
import { createNodeRepl } from "../src/repl/node.ts";
import { InstantEngine } from "../tests/fixtures/instant-engine.ts";
import { Report, load, today } from "./lib/report.ts";
import { asciiBlobOfBytes } from "./lib/text.ts";
import { machine } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({ quick: { type: "boolean" } });

const ALL_SIZES: Array<[string, number]> = [
  ["10 KB", 10 * 1024],
  ["1 MB", 2 ** 20],
  ["10 MB", 10 * 2 ** 20],
  ["100 MB", 100 * 2 ** 20],
];
// 10 MB is in the smoke test: from there the 8 chunks' text repeats (the filler is one block).
const SIZES = args.quick ? ALL_SIZES.filter(([label]) => label === "10 KB" || label === "10 MB") : ALL_SIZES;
const WINDOWS = [32_768, 4_096];

const fence = (code: string) => `Let me look.\n\`\`\`repl\n${code}\n\`\`\``;
const SCRIPT = [
  fence("print(type(context).__name__, len(context))\nprint(context[:500])"),
  fence(
    "n = len(context)\nstep = max(1, n // 8)\nchunks = [context[i:i + 4000] for i in range(0, n, step)][:8]\n" +
      // Numbered: the document repeats one block, and identical prompts are now answered once.
      "replies = llm_query_batched([f'Summarize part {i + 1} of {len(chunks)}: {c}' for i, c in enumerate(chunks)])\nprint(replies)",
  ),
  fence("print(context[:200000])"),
  fence("FINAL(f'{len(replies)} summaries of {len(context)} characters')"),
];

interface RootRequest {
  chars: number;
  tokens: number;
  messages: number;
  largestMessage: number;
}

const measure = (req: ChatRequest): RootRequest => ({
  chars: req.messages.reduce((s, m) => s + m.content.length, 0),
  tokens: estimateMessagesTokens(req.messages),
  messages: req.messages.length,
  largestMessage: Math.max(...req.messages.map((m) => m.content.length)),
});

const report = new Report("prompt-growth");
report.line(`Machine: ${machine()}. Date: ${today()}. Load average at start: ${load()}.`);
const results = new Map<string, RootRequest[]>(); // `${window}/${size}` → per turn
const repl = createNodeRepl();
await repl.start();
for (const [label, bytes] of SIZES) {
  const info = await repl.loadDocuments([{ name: "doc.txt", data: asciiBlobOfBytes(bytes) }]);
  if (info.total_chars !== bytes) throw new Error(`context has ${info.total_chars} characters, expected ${bytes}`);
  for (const window of WINDOWS) {
    await repl.resetNamespace();
    const seen: RootRequest[] = [];
    const root = new InstantEngine(
      "root",
      (req) => {
        seen.push(measure(req));
        return SCRIPT[Math.min(seen.length - 1, SCRIPT.length - 1)]!;
      },
      window,
    );
    const sub = new InstantEngine("sub", (req) => `summary of ${req.messages[0]?.content.length ?? 0} characters`, window);
    const result = await runRlm({
      question: "What is this document about?",
      repl,
      rootEngine: root,
      subEngine: sub,
      config: DEFAULT_CONFIG,
    });
    if (result.status !== "answered" || !result.answer.startsWith("8 summaries")) {
      throw new Error(`run over ${label} ended with ${result.status}: ${result.answer}`);
    }
    if (sub.calls !== 8) throw new Error(`expected 8 sub-calls, saw ${sub.calls}`);
    results.set(`${window}/${label}`, seen);
  }
}
repl.close();

for (const window of WINDOWS) {
  report.line();
  report.line(`Root window ${window.toLocaleString("en-US")} tokens. Each cell: characters / estimated tokens of the whole root request.`);
  report.line();
  report.table(["document", ...SCRIPT.map((_, i) => `turn ${i + 1}`), "largest message (chars)"]);
  for (const [label] of SIZES) {
    const seen = results.get(`${window}/${label}`)!;
    report.row([
      label,
      ...seen.map((r) => `${r.chars.toLocaleString("en-US")} / ${r.tokens.toLocaleString("en-US")}`),
      Math.max(...seen.map((r) => r.largestMessage)).toLocaleString("en-US"),
    ]);
  }
  const first = results.get(`${window}/${SIZES[0]![0]}`)!;
  const last = results.get(`${window}/${SIZES[SIZES.length - 1]![0]}`)!;
  const growth = last.map((r, i) => (r.chars / first[i]!.chars).toFixed(3));
  report.line();
  report.line(`Ratio 100 MB / 10 KB per turn: ${growth.join(", ")}.`);
}
if (args.write) {
  report.save();
  report.saveJson("", Object.fromEntries(results));
}
process.exit(0);
