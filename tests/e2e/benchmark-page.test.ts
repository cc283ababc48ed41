// The Benchmark page in the real app: suites run with the current model, RLM against direct
// answering, with progress, a summary table and charts that survive a reload.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { repl as code, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { newPage, openaiUrl, startStack, type Stack } from "./harness.ts";

let stack: Stack;
let server: ScriptedServer;
let app: Stack["app"];
let browser: Browser;

beforeAll(async () => {
  stack = await startStack({
    contextWindow: 8192,
    root: (req) => {
      if (req.messages[0]?.content.includes("Read the document, then answer")) {
        const key = /special magic number for ([\w-]+) mentioned/.exec(req.messages[1]!.content)?.[1];
        return new RegExp(`magic numbers for ${key} is: (\\d+)`).exec(req.messages[1]!.content)?.[1] ?? "not in what I saw";
      }
      const key = /special magic number for ([\w-]+) mentioned/.exec(req.firstUser)?.[1];
      return req.turn === 0
        ? code(`import re\nfound = re.search(r"magic numbers for ${key} is: (\\d+)", context).group(1)\nprint(found)`)
        : code("FINAL(found)");
    },
  });
  ({ server, app, browser } = stack);
});
afterAll(async () => stack?.close());

describe("Benchmark page", () => {
  it("runs S-NIAH with both methods and shows progress, a summary and charts", async () => {
    const { context, page, errors } = await newPage(browser);
    await page.goto(openaiUrl(app.url, server.baseUrl, { view: "benchmark" }));
    await page.getByRole("heading", { name: "Benchmark" }).waitFor();
    // Only the needle suite at the smallest size.
    await page.getByLabel("Counting across records (OOLONG-style)").uncheck();
    await page.getByLabel("112K").uncheck();
    await page.getByRole("button", { name: "Run benchmark" }).click();
    await page.getByText("6 of 6 runs").waitFor({ timeout: 120_000 });
    const table = page.getByRole("table", { name: "Benchmark summary" });
    const rows = await table.locator("tbody tr").allTextContents();
    expect(rows).toHaveLength(2);
    const rlm = rows.find((r) => r.includes("RLM"))!;
    expect(rlm).toContain("niah");
    expect(rlm).toContain("1.00");
    expect(await page.locator(".chart svg").count()).toBeGreaterThan(0);
    await page.screenshot({ path: new URL("../../test-results/screenshots/benchmark.png", import.meta.url).pathname, fullPage: true });
    // Results and choices stay after a reload; running again reuses the results.
    await page.reload();
    await page.getByRole("table", { name: "Benchmark summary" }).waitFor();
    const before = server.requests.length;
    await page.getByRole("button", { name: "Run benchmark" }).click();
    await page.getByText("6 of 6 runs").waitFor({ timeout: 60_000 });
    expect(server.requests.length).toBe(before);
    await page.getByRole("button", { name: "Clear results" }).click();
    expect(await page.getByRole("table", { name: "Benchmark summary" }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
