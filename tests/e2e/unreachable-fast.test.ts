// A question to an endpoint the page already knows is unreachable fails at once (issue 34 #7). It
// waited for Python to start first (14 s on a fresh visit) and then failed with the message the
// banner already showed. Python's start is held here (its files are not served until the test
// lets them go), so the question can only fail at once, or never while Python is held: no timing.
import { createServer } from "node:net";
import type { Route } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { askQuestion, blockOutside, newPage, openaiUrl, uploadText } from "./harness.ts";
import { useAppAndBrowser } from "./stack.ts";

let deadPort = 0;

const stack = useAppAndBrowser();

beforeAll(async () => {
  // A port that was free a moment ago and has nobody listening: connections are refused.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  deadPort = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}, 120_000);

describe("an endpoint known to be unreachable", () => {
  it("fails a question at once, without waiting for Python to start", async () => {
    const { context, page } = await newPage(stack.browser);
    const outside = await blockOutside(context);
    const held: Route[] = [];
    await context.route("**/pyodide/**", (route) => void held.push(route));
    await page.goto(openaiUrl(stack.app.url, `http://127.0.0.1:${deadPort}/v1`, { mode: "auto" }));
    await page.locator("header .chip", { hasText: "not reachable" }).waitFor({ timeout: 60_000 });
    await uploadText(page, "notes.txt", "Some notes.\n".repeat(20));
    await askQuestion(page, "What do the notes say?");

    const exchange = page.locator("article.exchange").last();
    await exchange.getByTestId("status").getByText("Failed").waitFor({ timeout: 60_000 });
    expect(await exchange.textContent()).toMatch(/127\.0\.0\.1:\d+/);
    // Python never started: the failure did not wait for it.
    expect(await page.locator("header .chip", { hasText: "Python ready" }).count()).toBe(0);
    expect(held.length).toBeGreaterThan(0);

    await context.unroute("**/pyodide/**");
    for (const route of held) await route.continue().catch(() => undefined);
    expect(outside).toEqual([]);
    await context.close();
  }, 180_000);
});
