// The header's status tells the truth, in words: an endpoint that refuses connections is not
// green, and the page says why (issue 15).
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newPage, openaiUrl, startStack, type Stack } from "./harness.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ contextWindow: 8192 });
});
afterAll(async () => stack?.close());

describe("status that tells the truth", () => {
  it("an endpoint that refuses connections is not green and the page says why", async () => {
    const { context, page } = await newPage(stack.browser);
    await page.goto(openaiUrl(stack.app.url, "http://127.0.0.1:9/v1"));
    const chip = page.locator("header .chip", { hasText: "root-model @ 127.0.0.1:9" });
    await chip.getByText(/not reachable/).waitFor({ timeout: 60_000 });
    expect(await chip.locator(".dot.ok").count()).toBe(0);
    expect(await chip.locator(".dot.err").count()).toBe(1);
    const banner = page.getByRole("alert").filter({ hasText: "The model is not available" });
    await banner.getByText(/Could not reach the model server/).waitFor();
    // The first step is not ticked for an endpoint that cannot answer.
    await page
      .getByRole("region", { name: "Get an answer in three steps" })
      .getByText(/cannot be used right now/)
      .waitFor();
    await page.screenshot({ path: `${SHOTS}status-endpoint-down-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}status-endpoint-down-390.png` });
    await context.close();
  });

  it("a reachable endpoint that lists the model is connected, before any question", async () => {
    const { context, page } = await newPage(stack.browser);
    await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl));
    const chip = page.locator("header .chip", { hasText: "root-model @" });
    await chip.getByText(/connected/).waitFor({ timeout: 60_000 });
    expect(await chip.locator(".dot.ok").count()).toBe(1);
    expect(await chip.getAttribute("title")).toMatch(/reachable · 8,192-token window/);
    await context.close();
  });
});
