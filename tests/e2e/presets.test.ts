// Effort presets next to Ask (issue 15): each says its limits as limits (issue 28: never a
// made-up estimate), changes what a run is allowed (turns, sub-calls…), and the individual
// limits sit under "Advanced".
import { mkdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { repl as code } from "../fixtures/scripted-server.ts";
import { documentInput, newPage, openaiUrl, settledAnswer, startStack } from "./harness.ts";
import { useStack } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

// A model that never finishes: the run ends at its turn limit, which the preset sets.
// (Different code each turn: repeating the same cell trips the stuck-model guard.)
const stack = useStack(() =>
  startStack({ contextWindow: 8192, root: (req) => code(`print('still looking ${req.turn}')`), sub: "nothing here" }),
);

/** These runs are about turns: when one asks whether the harness should read the document itself, the person says "Stop here". */
const settled = (page: import("playwright-core").Page) => settledAnswer(page, 90_000);
const rootRequests = (question: string) => stack.server.requests.filter((r) => r.isRoot && r.firstUser.includes(question)).length;

describe("effort presets", () => {
  it("show their limits, change the limits a run is given, and leave the details to Advanced", async () => {
    const { context, page, errors } = await newPage(stack.browser);
    await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl));
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 60_000 });
    const efforts = page.getByRole("radiogroup", { name: "Effort", exact: true });
    expect(await efforts.getByRole("radio", { name: /Thorough/ }).isChecked()).toBe(true);
    await documentInput(page).setInputFiles({
      name: "long.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("A line of a long report.\n".repeat(20_000)),
    });
    await page.locator(".docs .name", { hasText: "long.txt" }).waitFor({ timeout: 60_000 });
    // Each preset says what it allows, as a limit.
    for (const [name, limits] of [
      ["Quick", "up to 3 min · 20 sub-calls"],
      ["Thorough", "up to 15 min · 200 sub-calls"],
      ["Exhaustive", "up to 1 h · 1,000 sub-calls"],
    ]) {
      await efforts.locator("label", { hasText: name }).getByText(limits!, { exact: true }).waitFor();
    }
    await page.locator(".ask").screenshot({ path: `${SHOTS}effort-presets-1280.png` });

    await efforts.getByRole("radio", { name: /Quick/ }).check();
    await page.getByRole("textbox", { name: "Question" }).fill("Quick question");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await settled(page);
    // Six turns, then the one request for its best answer that ends every run out of turns.
    expect(rootRequests("Quick question")).toBe(6 + 1);

    // Settings: presets first, the individual limits folded under Advanced, matching the preset.
    await page.getByRole("button", { name: "Settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    expect(await dialog.getByRole("radio", { name: /^Quick/ }).isChecked()).toBe(true);
    expect(await dialog.getByLabel("Max iterations").isVisible()).toBe(false);
    await dialog.getByText("Advanced", { exact: true }).click();
    expect(await dialog.getByLabel("Max iterations").inputValue()).toBe("6");
    expect(await dialog.getByLabel("Max sub-calls per question").inputValue()).toBe("20");
    await dialog.getByRole("radio", { name: /^Exhaustive/ }).check();
    expect(await dialog.getByLabel("Max iterations").inputValue()).toBe("40");
    expect(await dialog.getByLabel("Max depth (2 = child RLMs)").inputValue()).toBe("2");
    // A limit changed by hand is no preset: the page says "custom" rather than a wrong name.
    await dialog.getByLabel("Max iterations").fill("3");
    await dialog.getByText("Custom limits below").waitFor();
    await dialog.screenshot({ path: `${SHOTS}settings-effort-advanced.png` });
    await dialog.getByRole("button", { name: "Save" }).click();
    await efforts.getByText("Custom limits: 3 turns, up to 1 h · 1,000 sub-calls (Settings › Advanced)").waitFor();
    await page.getByRole("textbox", { name: "Question" }).fill("Custom question");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await settled(page);
    expect(rootRequests("Custom question")).toBe(3 + 1);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}effort-presets-390.png`, fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
