// llama.cpp in the page, for real: Chromium without WebGPU, a random-weight Qwen GGUF chosen as
// the model through Settings, and a question run to its answer through the whole RLM loop (a
// ```repl turn, Python, an llm_query answered by the same local model, FINAL) with real token
// counts from llama.cpp and no request leaving the machine.
//
// The model's replies are fixed by a GBNF grammar through the test-only hook
// (`__rlmTestGrammar`, set here by an init script; see testGrammarFor in
// src/engines/wllama/engine.ts). The test asserts on flow: what ran, token counts, and that the
// second root turn took the first one's prompt from llama.cpp's KV cache despite the sub-call
// in between. Never on prose.
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exactReplyGrammar, tinyQwenGguf } from "../fixtures/gguf/index.ts";
import { launch, newPage, startApp } from "./harness.ts";

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

let app: { url: string; close: () => Promise<void> };
let browser: Awaited<ReturnType<typeof launch>>;
let modelPath: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "rlm-gguf-"));
  modelPath = join(dir, "tiny-qwen3.gguf");
  copyFileSync(await tinyQwenGguf(), modelPath);
  app = await startApp();
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** The scripted replies, as the page's init script: the sub-call says "ok", root turns go in order. */
function grammarScript(): string {
  const grammars = { root: [exactReplyGrammar(ROOT_1), exactReplyGrammar(ROOT_2)], sub: exactReplyGrammar("ok") };
  return `globalThis.__rlmTestGrammar = (messages) => {
    const g = ${JSON.stringify(grammars)};
    if (!messages.some((m) => m.role === "assistant") && messages[messages.length - 1].content.includes("SUBCALL-MARKER")) return g.sub;
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

describe("llama.cpp in the page (wllama, CPU)", () => {
  it("runs a question to its answer with a GGUF file chosen in Settings, and nothing leaves the machine", async () => {
    const { context, page, errors } = await newPage(browser);
    const outside: string[] = [];
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.hostname !== "127.0.0.1" && url.protocol !== "blob:" && url.protocol !== "data:") {
        outside.push(url.href);
        return route.abort();
      }
      return route.continue();
    });
    await context.addInitScript(grammarScript());
    await page.goto(app.url);

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
    await page.getByLabel("Document").setInputFiles({ name: "log.txt", mimeType: "text/plain", buffer: Buffer.from(DOC) });
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
});
