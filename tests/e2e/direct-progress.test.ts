// A direct call says what it is while it runs (issue 34 #2): the run's line said "turn 1/6" and
// the answer "The model is exploring the document…" during what was one direct call. Now it says
// "one direct call", and while the model writes, how many tokens and how fast. The scripted model
// streams its answer slowly (30 s), so the line is seen mid-answer; then the run is stopped.
import { mkdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startStack } from "./harness.ts";
import { askInFreshPage, useStack } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
const stack = useStack(() =>
  startStack({ contextWindow: 8192, chunkChars: 4, root: { text: "The harbour log lists twelve ships. ".repeat(12), delayMs: 30_000 } }),
);

describe("a direct call while it runs", () => {
  it("is shown as one direct call, with the tokens written and their rate", async () => {
    const harbour = { name: "harbour.txt", text: "Harbour log.\n".repeat(30) };
    const { context, page, errors, outside } = await askInFreshPage(stack, harbour, "What does the log say?");

    const exchange = page.locator("article.exchange").last();
    const line = exchange.getByTestId("run-progress");
    await line.getByText(/one direct call/).waitFor({ timeout: 60_000 });
    await line
      .getByTestId("writing")
      .getByText(/writing · [\d,]+ tokens · [\d.]+ tokens\/s/)
      .waitFor({ timeout: 60_000 });
    expect(await line.textContent()).not.toMatch(/turn \d|sub-calls/);
    expect(await exchange.locator("section.answer").textContent()).toMatch(/answering in one call/);
    await page.screenshot({ path: `${SHOTS}direct-progress-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}direct-progress-390.png` });
    await line.getByRole("button", { name: "Stop run" }).click();
    await exchange.getByTestId("status").getByText("Stopped").waitFor({ timeout: 60_000 });
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);
});
