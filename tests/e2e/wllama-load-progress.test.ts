// llama.cpp's load in the page says where it is, by stage and by bytes (issue 34 #2): the page
// said "50% loaded" for 50 s while an 11 MB model loaded, nothing telling a slow start from a
// stuck one. Now: "Starting llama.cpp…", "Reading the model: 3.1 MB of 11 MB", "Setting up the
// model and its 8,192-token memory…". Every status text the page shows is recorded as it appears
// (a MutationObserver), so the test never races a fast load. Real llama.cpp, the tiny random-
// weight Qwen (tests/fixtures/gguf), its one direct answer fixed by a grammar.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exactReplyGrammar, tinyQwenGguf } from "../fixtures/gguf/index.ts";
import { blockOutside, documentInput, launch, newPage, startApp } from "./harness.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
const REPLY = "The log is short.";
let app: { url: string; close: () => Promise<void> };
let browser: Awaited<ReturnType<typeof launch>>;
let modelPath: string;

beforeAll(async () => {
  modelPath = join(mkdtempSync(join(tmpdir(), "rlm-load-")), "tiny-qwen3.gguf");
  copyFileSync(await tinyQwenGguf(), modelPath);
  [app, browser] = await Promise.all([startApp(), launch()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Records each load stage the page shows, once, in order. */
const RECORD_STAGES = `
  globalThis.__stages = [];
  const stage = /Starting llama\\.cpp…|Reading the model: [\\d.,]+ MB of [\\d.,]+ MB|Setting up the model and its [\\d,]+-token memory…/g;
  new MutationObserver((changes) => {
    for (const c of changes) {
      const text = c.target.textContent ?? "";
      if (text.length > 4000) continue;
      for (const m of text.match(stage) ?? []) if (!globalThis.__stages.includes(m)) globalThis.__stages.push(m);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

describe("loading llama.cpp in the page", () => {
  it("says its stage and how many megabytes of the model it has read", async () => {
    const { context, page, errors } = await newPage(browser);
    const outside = await blockOutside(context);
    await context.addInitScript(`globalThis.__rlmTestGrammar = () => ${JSON.stringify(exactReplyGrammar(REPLY))};`);
    await context.addInitScript(RECORD_STAGES);
    await page.goto(app.url);
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    await dialog.getByLabel("Model file (GGUF)").setInputFiles(modelPath);
    await dialog.getByRole("radio", { name: /tiny/ }).first().waitFor({ timeout: 60_000 });
    await dialog.getByRole("button", { name: "Save" }).click();
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 90_000 });
    await documentInput(page).setInputFiles({ name: "log.txt", mimeType: "text/plain", buffer: Buffer.from("Harbour log.\n".repeat(20)) });
    await page.locator(".docs .name", { hasText: "log.txt" }).first().waitFor({ timeout: 60_000 });
    await page.getByRole("textbox", { name: "Question" }).fill("How long is the log?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page.getByRole("region", { name: "Answer", exact: true }).last().getByText(REPLY).waitFor({ timeout: 180_000 });

    const stages = await page.evaluate(() => (globalThis as unknown as { __stages: string[] }).__stages);
    const mb = readFileSync(modelPath).length / 1e6;
    const size = mb < 10 ? mb.toFixed(1).replace(/\.0$/, "") : String(Math.round(mb));
    expect(stages[0], JSON.stringify(stages)).toBe("Starting llama.cpp…");
    const reads = stages.filter((s) => s.startsWith("Reading the model"));
    expect(reads.length, JSON.stringify(stages)).toBeGreaterThan(0);
    for (const r of reads) expect(r).toMatch(new RegExp(`^Reading the model: [\\d.]+ MB of ${size} MB$`));
    expect(stages.at(-1)).toMatch(/^Setting up the model and its [\d,]+-token memory…$/);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 300_000);
});
