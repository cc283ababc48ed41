// llama.cpp in the page, for real: Chromium without WebGPU, a random-weight Qwen GGUF chosen as
// the model through Settings, and a question run to its answer through the whole RLM loop (a
// ```repl turn, Python, an llm_query answered by the same local model, FINAL) with real token
// counts from llama.cpp and no request leaving the machine.
//
// The model's replies are fixed by a GBNF grammar through the test-only hook
// (`__rlmTestGrammar`, set here by an init script; see
// src/engines/test-grammar.ts). The test asserts on flow: what ran, token counts, and that the
// second root turn took the first one's prompt from llama.cpp's KV cache despite the sub-call
// in between. Never on prose.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { exactReplyGrammar, tinyQwenGguf } from "../fixtures/gguf/index.ts";
import { gguf, writeGguf } from "../fixtures/gguf/writer.ts";
import { splitGguf } from "./gguf-split.ts";
import { documentInput, blockOutside, newPage, settledAnswer, waitForServiceWorker } from "./harness.ts";
import { useAppAndBrowser } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const ROOT_1 = [
  "```repl",
  "answer_text = f'{len(context)} characters'",
  "reply = llm_query('SUBCALL-MARKER: say ok')",
  "print(answer_text, len(reply))",
  "```",
].join("\n");
const ROOT_2 = "FINAL_VAR(answer_text)";
const DOC = "Harbour log.\n".repeat(40);

// The app and Chromium come up beside the model files this file prepares.
const used = useAppAndBrowser(120_000);
let modelPath: string;
/** Files a person might pick by mistake, or that llama.cpp cannot run. */
const bad = { text: "", cut: "", huge: "", unknownArch: "", split: [] as string[] };

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "rlm-gguf-"));
  modelPath = join(dir, "tiny-qwen3.gguf");
  copyFileSync(await tinyQwenGguf(), modelPath);
  const model = readFileSync(modelPath);
  bad.text = join(dir, "notes.gguf");
  writeFileSync(bad.text, "Meeting notes, not a model.\n".repeat(50));
  bad.cut = join(dir, "cut-download.gguf");
  writeFileSync(bad.cut, model.subarray(0, Math.floor(model.length * 0.9)));
  // A header that describes a model far beyond 4 GiB of KV cache (and no weights to speak of).
  bad.huge = join(dir, "huge.gguf");
  const arch = "qwen3";
  await writeGguf(bad.huge, {
    metadata: [
      ["general.architecture", gguf.str(arch)],
      [`${arch}.block_count`, gguf.u32(4000)],
      [`${arch}.embedding_length`, gguf.u32(8192)],
      [`${arch}.attention.head_count`, gguf.u32(64)],
      [`${arch}.attention.head_count_kv`, gguf.u32(64)],
      [`${arch}.context_length`, gguf.u32(32768)],
    ],
    tensors: [],
  });
  // The tiny model renamed to an architecture llama.cpp has never heard of ("qwen3" → "qwenx"
  // in its header only: every key and general.architecture).
  bad.unknownArch = join(dir, "mystery-arch.gguf");
  const renamed = Buffer.from(model);
  const header = renamed.subarray(0, 8 << 20);
  for (let i = header.indexOf("qwen3"); i >= 0; i = header.indexOf("qwen3", i + 1)) header.write("qwenx", i);
  writeFileSync(bad.unknownArch, renamed);
  bad.split = await splitGguf(modelPath, 2, dir, "tiny-split");
}, 120_000);

/** The scripted replies, as the page's init script: the sub-call says "ok", root turns go in order. */
function grammarScript(): string {
  const grammars = {
    root: [exactReplyGrammar(ROOT_1), exactReplyGrammar(ROOT_2)],
    sub: exactReplyGrammar("ok"),
    long: exactReplyGrammar("```repl\n" + "x = 1\n".repeat(2000) + "```"),
  };
  return `globalThis.__rlmTestGrammar = (messages) => {
    const g = ${JSON.stringify(grammars)};
    if (!messages.some((m) => m.role === "assistant") && messages[messages.length - 1].content.includes("SUBCALL-MARKER")) return g.sub;
    if (messages.some((m) => m.content.includes("LONG-REPLY"))) return g.long;
    const turn = messages.filter((m) => m.role === "assistant").length;
    return g.root[Math.min(turn, g.root.length - 1)];
  };`;
}

async function shots(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}${name}-1280.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${SHOTS}${name}-390.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 860 });
}

/** A page that blocks (and records) any request leaving 127.0.0.1, with the scripted grammars. */
/** `scripted: false`: no grammar, so the random-weight model says whatever it says. */
async function openApp({ scripted = true } = {}) {
  const { context, page, errors } = await newPage(used.browser);
  const outside = await blockOutside(context);
  if (scripted) await context.addInitScript(grammarScript());
  await page.goto(used.app.url);
  return { context, page, errors, outside };
}

async function openSettings(page: Page) {
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Settings" });
  await dialog.getByLabel("Model file (GGUF)").waitFor();
  return dialog;
}

async function askAndWait(page: Page, question: string, expected: string) {
  await page.getByRole("textbox", { name: "Question" }).fill(question);
  await page.getByRole("button", { name: "Ask", exact: true }).click();
  await page.getByRole("region", { name: "Answer", exact: true }).last().getByText(expected).waitFor({ timeout: 180_000 });
}

async function addDocument(page: Page) {
  await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 90_000 });
  await documentInput(page).setInputFiles({ name: "log.txt", mimeType: "text/plain", buffer: Buffer.from(DOC) });
  await page.locator(".docs .name", { hasText: "log.txt" }).first().waitFor({ timeout: 60_000 });
}

describe("llama.cpp in the page (wllama, CPU)", () => {
  it("runs a question to its answer with a GGUF file chosen in Settings, and nothing leaves the machine", async () => {
    const { context, page, errors } = await newPage(used.browser);
    const outside = await blockOutside(context);
    await context.addInitScript(grammarScript());
    await page.goto(used.app.url);

    // No WebGPU here: the page offers a model file for the CPU.
    const steps = page.getByRole("region", { name: "Get an answer in three steps" });
    await steps.getByRole("button", { name: "Choose a model file" }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    expect(await dialog.getByRole("radio", { name: /on the CPU \(llama\.cpp/ }).isChecked()).toBe(true);
    await dialog.getByLabel("Model file (GGUF)").setInputFiles(modelPath);
    await dialog
      .getByRole("radio", { name: "tiny-qwen3" })
      .or(dialog.getByRole("radio", { name: /tiny/ }))
      .first()
      .waitFor({ timeout: 60_000 });
    await dialog
      .getByTestId("cpu-memory")
      .getByText(/weights \d+ MiB \+ KV cache/)
      .waitFor();
    await dialog.screenshot({ path: `${SHOTS}wllama-settings-model-file.png` });
    await dialog.getByLabel("Method").selectOption("rlm");
    await dialog.getByRole("button", { name: "Save" }).click();

    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 90_000 });
    await documentInput(page).setInputFiles({ name: "log.txt", mimeType: "text/plain", buffer: Buffer.from(DOC) });
    await page.locator(".docs .name", { hasText: "log.txt" }).first().waitFor({ timeout: 60_000 });
    await page.getByRole("textbox", { name: "Question" }).fill("How long is the log?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();

    const answer = page.getByRole("region", { name: "Answer", exact: true }).last();
    await answer.getByText(`${DOC.length} characters`).waitFor({ timeout: 180_000 });
    const totals = page.locator(".exchange .totals").first();
    const text = (await totals.textContent()) ?? "";
    expect(text).toMatch(/2 turns · 1 sub-call/);
    const [, prompt, completion] = /([\d,.]+K?) \+ ([\d,.]+K?) tokens/.exec(text) ?? [];
    expect(prompt).toBeTruthy();
    expect(Number(completion!.replace(/[,K]/g, ""))).toBeGreaterThan(0);
    await shots(page, "wllama-answer");

    // llama.cpp's own counts: root turn 1, the sub-call, root turn 2. The second root turn took
    // the first one's prompt from the KV cache although the sub-call ran in between.
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    // The speed this device reached, from llama.cpp's own counts, for planning the next question.
    await dialog
      .getByTestId("device-speed")
      .getByText(/On this device, the last question: [\d,.]+ tokens\/s reading prompts, [\d,.]+ writing/)
      .waitFor();
    const calls = dialog.getByRole("list", { name: "Model calls of the last question" });
    await dialog.getByText(/Last question: 3 calls/).click();
    const rows = await calls.getByRole("listitem").evaluateAll((items) =>
      items.map((li) => ({
        prompt: Number((li as HTMLElement).dataset.prompt),
        cached: Number((li as HTMLElement).dataset.cached),
        evaluated: Number((li as HTMLElement).dataset.evaluated),
      })),
    );
    expect(rows).toHaveLength(3);
    const [root1, sub, root2] = rows as [(typeof rows)[0], (typeof rows)[0], (typeof rows)[0]];
    expect(root1.prompt).toBeGreaterThan(200);
    expect(sub.prompt).toBeGreaterThan(0);
    // Qwen3's template renders the first turn's generation prompt (an empty <think> block) but not
    // in the history, so the last few tokens of turn 1's prompt differ: the rest is reused.
    expect(root2.cached).toBeGreaterThanOrEqual(root1.prompt - 8);
    expect(root2.evaluated).toBeLessThan(root2.prompt - root1.prompt + 50);
    await dialog.screenshot({ path: `${SHOTS}wllama-settings-calls.png` });

    expect(outside).toEqual([]);
    expect(errors.filter((e) => !/favicon/.test(e))).toEqual([]);
    await context.close();
  }, 300_000);

  it("refuses what it cannot use before loading, says why, and keeps the model it had", async () => {
    const { context, page, errors, outside } = await openApp();
    const dialog = await openSettings(page);
    const picker = dialog.getByLabel("Model file (GGUF)");
    await picker.setInputFiles(modelPath);
    const good = dialog.getByRole("radio", { name: /random-weight tiny/ });
    await good.waitFor({ timeout: 60_000 });
    const alert = dialog.getByRole("alert");

    await picker.setInputFiles(bad.text);
    await alert.getByText(/notes\.gguf is not a GGUF model file \(it does not start with the GGUF signature\)/).waitFor();
    await picker.setInputFiles(bad.cut);
    await alert.getByText(/cut-download\.gguf is incomplete: .* The download was probably cut off/).waitFor();
    await picker.setInputFiles(bad.huge);
    await alert
      .getByText(/does not fit llama\.cpp's memory in the page with this window: weights 0 MiB \+ KV cache 4,096 tokens .* > the 4,096 MiB/)
      .waitFor();
    await dialog.screenshot({ path: `${SHOTS}wllama-settings-too-big.png` });
    await picker.setInputFiles(bad.split.slice(1));
    await alert.getByText(/tiny-split-00001-of-00002\.gguf is missing/).waitFor();
    // Nothing was kept of any of them, and the chosen model is still the good one.
    expect(
      await dialog
        .getByRole("radio")
        .filter({ hasText: /notes|cut-download|huge|tiny-split/ })
        .count(),
    ).toBe(0);
    expect(await good.isChecked()).toBe(true);

    // An architecture llama.cpp does not know passes the header checks and fails at load, in
    // llama.cpp's words; the model that worked still does.
    await picker.setInputFiles(bad.unknownArch);
    await dialog.locator(".model", { hasText: "qwenx" }).getByRole("radio").check();
    await dialog.getByLabel("Method").selectOption("rlm");
    await dialog.getByRole("button", { name: "Save" }).click();
    await addDocument(page);
    await page.getByRole("textbox", { name: "Question" }).fill("How long is the log?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page
      .getByText(/does not know the model architecture "qwenx"/)
      .first()
      .waitFor({ timeout: 120_000 });
    await page.getByRole("button", { name: "Open Settings (model file)" }).first().click();
    const again = page.getByRole("dialog", { name: "Settings" });
    await again.locator(".model", { hasText: "(qwen3, seed 0)" }).getByRole("radio").check();
    await again.getByRole("button", { name: "Save" }).click();
    await askAndWait(page, "How long is the log?", `${DOC.length} characters`);

    expect(outside).toEqual([]);
    expect(errors.filter((e) => !/favicon/.test(e))).toEqual([]);
    await context.close();
  }, 300_000);

  it("comes to a clear end with the random model and no script, with llama.cpp's token counts", async () => {
    // What a person gets from a model that writes nonsense: never code, so the run ends by its
    // limits (or the harness reads the small document itself), and says so; nothing hangs.
    const { context, page, errors, outside } = await openApp({ scripted: false });
    const dialog = await openSettings(page);
    await dialog.getByLabel("Model file (GGUF)").setInputFiles(modelPath);
    await dialog.getByTestId("cpu-memory").waitFor({ timeout: 60_000 });
    await dialog.getByLabel("Method").selectOption("rlm");
    await dialog.getByRole("radio", { name: /^Quick/ }).check();
    await dialog.getByText("Advanced", { exact: true }).click();
    await dialog.getByLabel("Max tokens per turn (0 = auto)").fill("64");
    // Two turns prove it: the loop, the fallback and the last ask for a best answer all run, and
    // the Quick preset's turns of random babble took minutes on a loaded machine (issue 38).
    await dialog.getByLabel("Max iterations").fill("2");
    await dialog.getByRole("button", { name: "Save" }).click();
    await addDocument(page);
    await page.getByRole("textbox", { name: "Question" }).fill("Which harbour is named first?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    const exchange = await settledAnswer(page, 240_000);
    const status = ((await exchange.locator(".chip").first().textContent()) ?? "").trim();
    expect(status).toMatch(/Answered|Out of turns|Out of time|Failed|best answer/i);
    const totals = ((await exchange.locator(".totals").first().textContent()) ?? "").replace(/\s+/g, " ");
    const [, prompt, completion] = /([\d,.]+K?) \+ ([\d,.]+K?) tokens/.exec(totals) ?? [];
    expect(Number(prompt!.replace(/[,K]/g, ""))).toBeGreaterThan(0);
    expect(Number(completion!.replace(/[,K]/g, ""))).toBeGreaterThan(0);
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await page
      .getByRole("dialog", { name: "Settings" })
      .getByText(/Last question: \d+ calls/)
      .waitFor();

    expect(outside).toEqual([]);
    expect(errors.filter((e) => !/favicon/.test(e))).toEqual([]);
    await context.close();
  }, 400_000);

  it("a model file the browser will not keep still runs, for this visit, and Settings says why", async () => {
    const { context, page, errors, outside } = await openApp();
    // A private window or a nearly full disk: the origin may keep 1 MiB, and the model is 11 MB.
    // The Python snapshot this returning visitor has stored (31 MB) is already past it: listing and
    // keeping models once failed there with the browser's raw quota error, and no model ran.
    const cdp = await context.newCDPSession(page);
    await cdp.send("Storage.overrideQuotaForOrigin", { origin: new URL(used.app.url).origin, quotaSize: 1024 ** 2 });
    const dialog = await openSettings(page);
    await dialog.getByLabel("Model file (GGUF)").setInputFiles(modelPath);
    // Chromium's estimate() does not show the lowered quota; its writes do: either way, the reason.
    const kept = dialog.locator(".model", {
      hasText:
        /for this visit only \((the browser allows this page [\d,]+ MiB more and the model needs \d+ MiB|the browser stopped accepting its bytes: its storage quota or the disk is full)/,
    });
    await kept.waitFor({ timeout: 60_000 });
    expect(await kept.getByRole("radio").isChecked()).toBe(true);
    expect(await dialog.getByRole("alert").count()).toBe(0);
    await dialog.screenshot({ path: `${SHOTS}wllama-visit-only.png` });
    await dialog.getByLabel("Method").selectOption("rlm");
    await dialog.getByRole("button", { name: "Save" }).click();
    await addDocument(page);
    await askAndWait(page, "How long is the log?", `${DOC.length} characters`);

    expect(outside).toEqual([]);
    expect(errors.filter((e) => !/favicon/.test(e))).toEqual([]);
    await context.close();
  }, 300_000);

  it("a split model is kept across a reload and an offline visit; Stop ends a long reply within a second", async () => {
    const { context, page, errors, outside } = await openApp();
    const dialog = await openSettings(page);
    await dialog.getByLabel("Model file (GGUF)").setInputFiles(bad.split);
    await dialog.locator(".model", { hasText: "2 parts" }).getByRole("radio").check();
    await dialog.getByLabel("Method").selectOption("rlm");
    await dialog.getByRole("button", { name: "Save" }).click();
    await addDocument(page);
    await askAndWait(page, "How long is the log?", `${DOC.length} characters`);

    // Kept: after a reload, and with the network gone, the model is still there and answers.
    await waitForServiceWorker(page);
    await context.setOffline(true);
    await page.reload();
    await page.locator(".docs .name", { hasText: "log.txt" }).first().waitFor({ timeout: 90_000 });
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 90_000 });
    await askAndWait(page, "How long is the log, offline?", `${DOC.length} characters`);

    // A reply of thousands of tokens: Stop ends it within a second or so, and the engine goes on.
    await page.getByRole("textbox", { name: "Question" }).fill("LONG-REPLY please");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page.getByText("writing…").first().waitFor({ timeout: 60_000 });
    const stopped = Date.now();
    await page.getByRole("button", { name: "Stop", exact: true }).first().click();
    await page.locator(".exchange .chip", { hasText: "Stopped" }).waitFor({ timeout: 10_000 });
    const stopMs = Date.now() - stopped;
    expect(stopMs).toBeLessThan(3_000);
    await askAndWait(page, "How long is the log, after a stop?", `${DOC.length} characters`);

    expect(outside).toEqual([]);
    expect(errors.filter((e) => !/favicon|ERR_INTERNET_DISCONNECTED/.test(e))).toEqual([]);
    await context.close();
  }, 300_000);
});
