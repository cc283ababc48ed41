// One whole scripted RLM answer in the page against the same answer natively, in the same run
// (issue 26: "the time of one whole scripted RLM answer over a 1 MB document"). The page is the
// built app in Chromium with no WebGPU: a random-weight GGUF shaped like Qwen2.5-0.5B chosen as
// the model file in Settings, llama.cpp (wllama) on the CPU, the replies forced by a grammar
// through the test-only hook. Natively: the same script through `rlm --model-file`'s engine
// (bench/lib/native-answer.ts). Both at the same thread count, the app's default limits except
// the question's time limit (an hour, so a busy machine still finishes). Times per part come
// from llama.cpp's own reports (the page's "Model calls of the last question" list).
//
// Run: npm run build && node --import tsx bench/page-rlm.ts [--threads=2] [--no-native] [--tiny] [--write]
// (--write replaces the section in bench/RESULTS.md.)
import { availableParallelism } from "node:os";
import type { Page } from "playwright-core";
import { exactReplyGrammar, tinyQwenGguf } from "../tests/fixtures/gguf/index.ts";
import { blockOutside, newPage, startApp } from "../tests/e2e/harness.ts";
import { launchChromium } from "./lib/chromium.ts";
import { nativeScriptedAnswer, type RlmTiming } from "./lib/native-answer.ts";
import { CLI_SECTION, load, today, writeResultsSection } from "./lib/report.ts";
import {
  EXPECTED,
  QUESTION,
  ROOT_TURNS,
  SUB_PROMPT,
  SUB_REPLY,
  answerParts,
  restMs,
  scriptedDocument,
  type AnswerParts,
} from "./lib/scripted-answer.ts";
import { machine } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({ "no-native": { type: "boolean" }, threads: { type: "string", number: "whole" }, tiny: { type: "boolean" } });
const THREADS = Number(args.threads ?? availableParallelism());
const HOUR_S = 3600;

interface PageCall {
  role: "root" | "sub";
  prompt: number;
  cached: number;
  evaluated: number;
  generated: number;
  promptMs: number;
  predictedMs: number;
}

interface PageTiming {
  totalMs: number;
  calls: PageCall[];
  totals: string;
  window: string;
  outside: string[];
}

/** The grammar hook as an init script: sub-calls say SUB_REPLY, root turns go in order; each request's role is kept. */
function grammarScript(): string {
  const grammars = { root: ROOT_TURNS.map((t) => exactReplyGrammar(t)), sub: exactReplyGrammar(SUB_REPLY) };
  return `globalThis.__benchRoles = [];
  globalThis.__rlmTestGrammar = (messages) => {
    const g = ${JSON.stringify(grammars)};
    const sub = !messages.some((m) => m.role === "assistant") && messages[messages.length - 1].content.includes(${JSON.stringify(SUB_PROMPT)});
    globalThis.__benchRoles.push(sub ? "sub" : "root");
    if (sub) return g.sub;
    const turn = messages.filter((m) => m.role === "assistant").length;
    return g.root[Math.min(turn, g.root.length - 1)];
  };`;
}

async function chooseModel(page: Page, modelPath: string): Promise<string> {
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Settings" });
  await dialog.getByRole("radio", { name: /on the CPU \(llama\.cpp/ }).check();
  await dialog.getByLabel("Model file (GGUF)").setInputFiles(modelPath);
  await dialog.getByTestId("cpu-memory").waitFor({ timeout: 300_000 });
  await dialog.getByLabel(/^Threads/).fill(String(THREADS));
  const window = (await dialog.getByLabel("Context window").locator("option:checked").textContent()) ?? "";
  await dialog.getByLabel("Method").selectOption("rlm");
  const advanced = dialog.locator("details.advanced");
  if (!(await advanced.evaluate((d) => (d as HTMLDetailsElement).open))) await advanced.locator("summary").click();
  await dialog.getByLabel("Time limit per question (s)").fill(String(HOUR_S));
  await dialog.getByRole("button", { name: "Save" }).click();
  return window.trim();
}

async function readCalls(page: Page): Promise<PageCall[]> {
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Settings" });
  await dialog.getByText(/Last question: \d+ calls/).click();
  const rows = await dialog
    .getByRole("list", { name: "Model calls of the last question" })
    .getByRole("listitem")
    .evaluateAll((items) =>
      items.map((li) => {
        const d = (li as HTMLElement).dataset;
        return {
          prompt: Number(d.prompt),
          cached: Number(d.cached),
          evaluated: Number(d.evaluated),
          generated: Number(d.generated),
          promptMs: Number(d.promptMs),
          predictedMs: Number(d.predictedMs),
        };
      }),
    );
  const roles = (await page.evaluate(() => (globalThis as unknown as { __benchRoles: string[] }).__benchRoles)) as PageCall["role"][];
  if (roles.length !== rows.length) throw new Error(`${roles.length} requests but ${rows.length} calls reported by llama.cpp`);
  return rows.map((r, i) => ({ ...r, role: roles[i]! }));
}

async function pageAnswer(modelPath: string): Promise<PageTiming> {
  const app = await startApp();
  const browser = await launchChromium();
  try {
    const { context, page } = await newPage(browser);
    const outside = await blockOutside(context);
    await context.addInitScript(grammarScript());
    await page.goto(app.url);
    const window = await chooseModel(page, modelPath);
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 300_000 });
    await page.getByLabel("Document").setInputFiles({ name: "big.txt", mimeType: "text/plain", buffer: Buffer.from(scriptedDocument()) });
    await page.locator(".docs .name", { hasText: "big.txt" }).first().waitFor({ timeout: 300_000 });
    console.log(`page: asking (load ${load()})`);
    await page.getByRole("textbox", { name: "Question" }).fill(QUESTION);
    const started = performance.now();
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page
      .getByRole("region", { name: "Answer", exact: true })
      .last()
      .getByText(EXPECTED)
      .waitFor({ timeout: HOUR_S * 1000 });
    const totalMs = performance.now() - started;
    const totals = ((await page.locator(".exchange .totals").first().textContent()) ?? "").replace(/\s+/g, " ").trim();
    return { totalMs, calls: await readCalls(page), totals, window, outside };
  } finally {
    await browser.close();
    await app.close();
  }
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const n = (x: number) => x.toLocaleString("en-US");

/** The page's calls in the shared shape (scripted-answer.ts). */
function pageParts(calls: PageCall[]): AnswerParts {
  return answerParts(
    calls.map((c) => ({
      role: c.role,
      promptTokens: c.prompt,
      evaluatedTokens: c.evaluated,
      generatedTokens: c.generated,
      prefillMs: c.promptMs,
      generateMs: c.predictedMs,
    })),
  );
}

async function main(): Promise<void> {
  const lines: string[] = [];
  const out = (line = "") => {
    lines.push(line);
    console.log(line);
  };
  const startLoad = load();
  // --tiny: the small test model, to try the flow in a minute (its figures mean nothing).
  const modelPath = args.tiny ? await tinyQwenGguf() : await tinyQwenGguf({ shape: "qwen2.5-0.5b" });
  const native: RlmTiming | null = args["no-native"] ? null : await nativeScriptedAnswer(THREADS);
  const afterNative = load();
  const page = await pageAnswer(modelPath);
  const p = pageParts(page.calls);

  out(
    `Run ${today()}: ${machine()}; ${THREADS} llama.cpp thread(s) in both; load average ${startLoad} at the start, ${afterNative} between the two, ${load()} at the end.`,
  );
  out(
    `Page: the built app in Chromium (no WebGPU), the model file chosen in Settings, window ${page.window}, the app's default limits but an hour per question; page totals line: "${page.totals}"; requests to anywhere but this machine: ${page.outside.length}.`,
  );
  out();
  const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(1)}×` : "—");
  out("| part | page | native (`rlm --model-file`) | page / native | page tokens |");
  out("|---|---|---|---|---|");
  out(
    `| whole answer | **${s(page.totalMs)}** | ${native ? s(native.totalMs) : "—"} | ${ratio(page.totalMs, native?.totalMs)} | ${n(p.generated)} generated in all |`,
  );
  out(
    `| root prefill (${p.rootTurns} turns) | ${s(p.rootPrefillMs)} | ${native ? s(native.rootPrefillMs) : "—"} | ${ratio(p.rootPrefillMs, native?.rootPrefillMs)} | ${n(p.rootEvaluated)} evaluated of ${n(p.rootPrompt)} prompt tokens |`,
  );
  out(
    `| root generation | ${s(p.rootGenerateMs)} | ${native ? s(native.rootGenerateMs) : "—"} | ${ratio(p.rootGenerateMs, native?.rootGenerateMs)} | |`,
  );
  out(
    `| sub-call prefill (${p.subcalls} calls) | ${s(p.subPrefillMs)} | ${native ? s(native.subPrefillMs) : "—"} | ${ratio(p.subPrefillMs, native?.subPrefillMs)} | ${n(p.subPrompt)} prompt tokens |`,
  );
  out(
    `| sub-call generation | ${s(p.subGenerateMs)} | ${native ? s(native.subGenerateMs) : "—"} | ${ratio(p.subGenerateMs, native?.subGenerateMs)} | |`,
  );
  out(
    `| loading the model, Python, the loop, the rest | ${s(restMs(page.totalMs, p))} | ${native ? s(restMs(native.totalMs, native)) : "—"} | | |`,
  );

  if (args.write) {
    const command = `Command: \`npm run build && node --import tsx bench/page-rlm.ts --threads=${THREADS} --write\`.`;
    writeResultsSection(PAGE_SECTION, `${command}\n\n${lines.join("\n")}`, CLI_SECTION);
  }
}

/** Its own section, placed before the CLI's (bench/llama-cli.ts). */
const PAGE_SECTION = "### One whole scripted answer in the page against `rlm --model-file` (issue 26)";

await main();
