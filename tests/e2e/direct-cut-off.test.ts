// A direct answer that stopped at the output limit (issue 34 #4): the scripted model ends its first
// answer with finish_reason "length". The page must not call it a plain green "Answered": it says
// it is cut off and offers Continue, which asks for the rest (the answer so far as the model's own
// turn) and joins it to what was written.
import { mkdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { settledAnswer, startStack } from "./harness.ts";
import { askInFreshPage, useStack } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
const FIRST = "The harbour log lists twelve ships, and the last one";
const REST = " left before the storm.";

const stack = useStack(() =>
  startStack({ contextWindow: 8192, root: (req) => (req.turn === 0 ? { text: FIRST, finishReason: "length" } : REST) }),
);

describe("a direct answer cut off at the output limit", () => {
  it("says it is cut off, and Continue writes the rest after it", async () => {
    const harbour = { name: "harbour.txt", text: "Harbour log.\n".repeat(30) };
    const { context, page, errors, outside } = await askInFreshPage(stack, harbour, "What does the log say?");

    let exchange = await settledAnswer(page, 90_000);
    const status = exchange.getByTestId("status");
    await expect.poll(() => status.textContent()).toMatch(/cut off/);
    await exchange
      .getByTestId("how-answered")
      .getByText(/stopped at the model's output limit \([\d,]+ tokens\)/)
      .waitFor();
    await page.screenshot({ path: `${SHOTS}direct-cut-off-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}direct-cut-off-390.png` });
    await page.setViewportSize({ width: 1280, height: 860 });
    await exchange.getByRole("button", { name: "Continue" }).click();

    exchange = page.locator("article.exchange").last();
    await exchange.locator("section.answer").getByText(`${FIRST}${REST}`).waitFor({ timeout: 90_000 });
    exchange = await settledAnswer(page, 90_000);
    await expect.poll(() => status.textContent()).toMatch(/^\s*Answered\s*$/);
    expect(await exchange.getByRole("button", { name: "Continue" }).count()).toBe(0);

    // The continuation went on from the answer so far, as the model's own turn.
    const second = stack.server.requests.filter((r) => r.isRoot).at(-1)!;
    expect(second.messages.at(-2)).toEqual({ role: "assistant", content: FIRST });
    expect(second.lastUser).toMatch(/stopped at the output limit/);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);
});
