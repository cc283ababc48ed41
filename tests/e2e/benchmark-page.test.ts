// The Benchmark page in the real app: suites run with the current model, RLM against direct
// answering, with progress, a summary table and charts that survive a reload.
import { describe, expect, it } from "vitest";

import { repl as code, type ScriptedRequest } from "../fixtures/scripted-server.ts";
import { newPage, openaiUrl, startStack } from "./harness.ts";
import { useStack } from "./stack.ts";

const stack = useStack(() =>
  startStack({
    contextWindow: 8192,
    // Each reply takes a moment, as a model's does: the page has runs to measure the time left by.
    root: (req) => ({ text: reply(req), delayMs: 250 }),
  }),
);

function reply(req: ScriptedRequest): string {
  if (req.messages[0]?.content.includes("Read the document, then answer")) {
    const key = /special magic number for ([\w-]+) mentioned/.exec(req.messages[1]!.content)?.[1];
    return new RegExp(`magic numbers for ${key} is: (\\d+)`).exec(req.messages[1]!.content)?.[1] ?? "not in what I saw";
  }
  const key = /special magic number for ([\w-]+) mentioned/.exec(req.firstUser)?.[1];
  return req.turn === 0
    ? code(`import re\nfound = re.search(r"magic numbers for ${key} is: (\\d+)", context).group(1)\nprint(found)`)
    : code("FINAL(found)");
}

const SHOTS = process.env.UX_SHOTS ?? new URL("../../test-results/screenshots/", import.meta.url).pathname;

describe("Benchmark page", () => {
  it("runs S-NIAH with both methods and shows progress, a summary and charts", async () => {
    const { context, page, errors } = await newPage(stack.browser);
    await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl, { view: "benchmark" }));
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
    await page.screenshot({ path: `${SHOTS}benchmark.png`, fullPage: true });
    // Results and choices stay after a reload; running again reuses the results.
    await page.reload();
    await page.getByRole("table", { name: "Benchmark summary" }).waitFor();
    const before = stack.server.requests.length;
    await page.getByRole("button", { name: "Run benchmark" }).click();
    await page.getByText("6 of 6 runs").waitFor({ timeout: 60_000 });
    expect(stack.server.requests.length).toBe(before);
    await page.getByRole("button", { name: "Clear results" }).click();
    expect(await page.getByRole("table", { name: "Benchmark summary" }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("calls the direct method one thing everywhere, follows dark mode, says the time left, and opens each task (issue 28)", async () => {
    const { context, page, errors } = await newPage(stack.browser, { colorScheme: "dark" });
    await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl, { view: "benchmark" }));
    await page.getByRole("heading", { name: "Benchmark" }).waitFor();
    await page.getByLabel("Counting across records (OOLONG-style)").uncheck();
    await page.getByLabel("112K").uncheck();
    await page.getByRole("button", { name: "Run benchmark" }).click();
    // Once a run has finished, the time left, from what the finished runs took.
    const progress = page.getByRole("status").filter({ hasText: /of 6 runs/ });
    await progress.filter({ hasText: /[1-5] of 6 runs · (under a minute|about \d+ min) left/ }).waitFor({ timeout: 120_000 });
    await page.getByText("6 of 6 runs").waitFor({ timeout: 120_000 });

    // One word for the direct method: the choice, the table and the charts.
    const text = await page.locator(".bench").innerText();
    expect(text).not.toMatch(/vanilla/i);
    const rows = await page.getByRole("table", { name: "Benchmark summary" }).locator("tbody tr").allInnerTexts();
    expect(rows.some((r) => r.includes("Direct"))).toBe(true);
    const legends = await page.locator(".chart svg").allTextContents();
    expect(legends.join(" ")).toContain("Direct");
    expect(legends.join(" ")).not.toMatch(/vanilla/i);

    // The charts follow the theme: no white card, ink in the text colour.
    const colours = await page.evaluate(() => {
      const svg = document.querySelector(".chart svg")!;
      const ink = [...svg.querySelectorAll("text")].map((t) => getComputedStyle(t).fill);
      return {
        background: getComputedStyle(svg.querySelector("rect")!).fill,
        figure: getComputedStyle(svg.closest("figure")!).backgroundColor,
        ink: [...new Set(ink)],
        text: getComputedStyle(document.body).color,
      };
    });
    expect(colours.background).not.toBe("rgb(255, 255, 255)");
    expect(colours.figure).not.toBe("rgb(255, 255, 255)");
    expect(colours.ink).toContain(colours.text);

    // Each task opens to what each method answered against what was expected.
    const tasks = page.getByRole("region", { name: /Per task/ });
    const first = tasks.locator("details").first();
    await first.locator("summary").click();
    await first.getByText("Expected").waitFor();
    expect(await first.getByRole("heading", { name: "Direct" }).count()).toBe(1);
    expect(await first.getByRole("heading", { name: "RLM" }).count()).toBe(1);
    expect(await first.locator("pre.answer").count()).toBe(2);
    await page.screenshot({ path: `${SHOTS}benchmark-dark-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}benchmark-dark-390.png`, fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
