// The first answer on a processor (issue 34 #3, #2): the limits fit the engine, and the wait
// explains itself. With llama.cpp in the page and a document far larger than the window:
// - where the effort is chosen, the page says what the model's reading speed means for this
//   document (the catalog's estimate before any question, this device's measured speed after);
// - start-up (Python, the documents, loading the model) is shown apart and not against the
//   effort's time limit, while the run waits and in the answer's time split;
// - while the model writes, its rate and its time to the first token.
// Real llama.cpp, the tiny random-weight Qwen served as the catalog's download from 127.0.0.1, its
// replies fixed by grammars; the progress line's texts are recorded as they appear (a
// MutationObserver), so no assertion races the run.
import { mkdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { exactReplyGrammar } from "../fixtures/gguf/index.ts";
import { blockOutside, documentInput, newPage } from "./harness.ts";
import { useModelServer } from "./model-server.ts";
import { useAppAndBrowser } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
const stack = useAppAndBrowser();
const models = useModelServer((model, _req, res, headers) => {
  res.writeHead(200, { ...headers, "Content-Length": String(model.length), "Content-Type": "application/octet-stream" });
  res.end(model);
});

/** Root turn 1 runs code, turn 2 answers; nothing else is asked of the model. */
const ROOT_1 = "```repl\nsize = len(context)\nprint(size)\n```";
const ROOT_2 = "FINAL('The report is long.')";
const GRAMMARS = `globalThis.__rlmTestGrammar = (messages) => {
  const g = ${JSON.stringify([exactReplyGrammar(ROOT_1), exactReplyGrammar(ROOT_2)])};
  return g[Math.min(messages.filter((m) => m.role === "assistant").length, 1)];
};`;
/** Every text the run's progress line shows, once, in order. */
const RECORD_PROGRESS = `
  globalThis.__progress = [];
  new MutationObserver(() => {
    for (const line of document.querySelectorAll("[data-testid=run-progress]")) {
      const text = line.textContent.replace(/\\s+/g, " ").trim();
      if (globalThis.__progress.at(-1) !== text) globalThis.__progress.push(text);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

describe("the first answer on a processor", () => {
  it("says what the reading speed means before the effort is chosen, and keeps start-up out of the time limit", async () => {
    const { context, page, errors } = await newPage(stack.browser, {}, { python: "cold" });
    const outside = await blockOutside(context);
    await context.addInitScript(`globalThis.__rlmTestCatalogBase = ${JSON.stringify(models.base)};`);
    await context.addInitScript(GRAMMARS);
    await context.addInitScript(RECORD_PROGRESS);
    await page.goto(stack.app.url);
    const steps = page.getByRole("region", { name: "Get an answer in three steps" });
    await steps
      .getByTestId("recommended-model")
      .getByRole("button", { name: /Download it/ })
      .click();
    await steps.getByText(/Kept in this browser: it loads when you ask\./).waitFor({ timeout: 120_000 });
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 90_000 });
    // ≈ 570K tokens: far beyond the 8K window, and hours of reading at the catalog's 13 tokens/s.
    await documentInput(page).setInputFiles({
      name: "report.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("A line of a long report.\n".repeat(80_000)),
    });
    await page.locator(".docs .name", { hasText: "report.txt" }).first().waitFor({ timeout: 60_000 });

    // Before any question: the catalog's estimate, named as one, and which efforts stop first.
    const note = page.getByTestId("effort-speed");
    await note
      .getByText(
        /^At about 13 tokens\/s \(an estimate for this model until a question has run here\): reading these documents' ≈ [\d.]+K tokens once takes ≈ [\d.]+ h; Quick, Thorough and Exhaustive stop before that, with what was read so far\.$/,
      )
      .waitFor({ timeout: 30_000 });
    await page.locator(".ask").screenshot({ path: `${SHOTS}cpu-effort-estimate-1280.png` });

    await page.getByRole("textbox", { name: "Question" }).fill("How long is the report?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    const exchange = page.locator("article.exchange").last();
    await exchange.getByRole("region", { name: "Answer", exact: true }).getByText("The report is long.").waitFor({ timeout: 240_000 });

    const progress = await page.evaluate(() => (globalThis as unknown as { __progress: string[] }).__progress);
    const shown = JSON.stringify(progress);
    // While it waited for the model: start-up, apart from the limit, and no limit's clock running.
    const waiting = progress.filter((t) => /waiting for the model/.test(t));
    expect(waiting.length, shown).toBeGreaterThan(0);
    for (const t of waiting) {
      expect(t, shown).toMatch(/start-up [\d.]+ (ms|s), not counted in the time limit/);
      expect(t, shown).not.toMatch(/ of 15 min/);
    }
    // Once running, the limit's clock, with the model's rate and its first token.
    expect(
      progress.some((t) => / of 15 min/.test(t)),
      shown,
    ).toBe(true);
    expect(
      progress.some((t) => /writing · [\d,]+ tokens.* · first token after [\d.]+ (ms|s)/.test(t)),
      shown,
    ).toBe(true);
    // The time split has start-up as its own part.
    await exchange
      .getByTestId("time-split")
      .getByText(/^start-up [\d.]+ (ms|s) · model [\d.]+ (ms|s) · Python/)
      .waitFor();
    await page.screenshot({ path: `${SHOTS}cpu-first-answer-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await exchange.getByTestId("time-split").scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}cpu-first-answer-390.png` });
    await page.setViewportSize({ width: 1280, height: 860 });

    // After it: this device's measured speed, not the estimate.
    await note.getByText(/^This device read prompts at [\d,.]+ tokens\/s: reading these documents' ≈ [\d.]+K tokens once takes/).waitFor();
    await page.locator(".ask").screenshot({ path: `${SHOTS}cpu-effort-measured-1280.png` });
    // On a phone the efforts fold under one button; opened, the note is there with them.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("button", { name: /Thorough/ }).click();
    await note.waitFor();
    await page.locator(".ask").screenshot({ path: `${SHOTS}cpu-effort-measured-390.png` });
    // Where the question box meets the answer's sticky turn strip, the box is on top: nothing of
    // the page is drawn over it (the strip's buttons were, on a phone).
    const covered = await page.locator(".ask-dock").evaluate((dock) => {
      const r = dock.getBoundingClientRect();
      const over: string[] = [];
      for (let x = r.left + 4; x < r.right; x += 16) {
        for (let y = Math.max(r.top, 0) + 2; y < Math.min(r.bottom, innerHeight); y += 8) {
          const hit = document.elementFromPoint(x, y);
          if (hit && !dock.contains(hit)) over.push(`${hit.tagName}.${hit.className} at ${Math.round(x)},${Math.round(y)}`);
        }
      }
      return over;
    });
    expect(covered).toEqual([]);
    expect(outside).toEqual([]);
    expect(errors.filter((e) => !/favicon|Failed to load resource|ERR_/.test(e))).toEqual([]);
    await context.close();
  }, 400_000);
});
