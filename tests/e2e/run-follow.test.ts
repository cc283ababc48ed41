// A run a person can follow and answers they can act on (issue 15), in real Chromium against
// the built app and the scripted model server: the view follows a slow run while they are at
// the bottom and stays put (with "Latest") when they scroll up, the steps panel stays open when
// the answer arrives, the running exchange shows its progress against its limits, Esc stops,
// Continue goes on with the variables of the stopped run, and Copy / Retry / Edit & re-ask work
// (Retry and Edit as fresh tries in the question's place, issue 28 §4).
import { mkdirSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { repl as code, gate } from "../fixtures/scripted-server.ts";
import { askQuestion, newPage, stopThenContinue, turnShown, uploadText } from "./harness.ts";
import { useRoutedStack } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const { routes, stack } = useRoutedStack();

const open = (page: Page) => stack.open(page, { maxIterations: "12" });

const atBottom = (page: Page) => page.evaluate(() => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 60);
const turnsShown = (page: Page) => page.locator(".exchange").last().locator(".turn").count();

describe("a run you can follow", () => {
  it("follows a slow run at the bottom, stays put with a Latest button when scrolled up, and never folds the steps", async () => {
    // Six slow turns, each printing a tall block, then the answer. From the third on they wait
    // until the reader has scrolled up, and the answer until they pressed Latest: with delays
    // alone a busy machine ended the run first, and Latest was gone before the click (issue 38).
    const scrolledUp = gate();
    const backDown = gate();
    routes.set("Walk slowly", (req) =>
      req.turn < 6
        ? {
            text: code(`for i in range(25):\n    print('step ${req.turn} line', i)`),
            delayMs: 900,
            after: req.turn >= 2 ? scrolledUp.opened : undefined,
          }
        : { text: code("FINAL('walked')"), after: backDown.opened },
    );
    const { context, page, errors } = await newPage(stack.browser, { viewport: { width: 1280, height: 700 } });
    await open(page);
    await uploadText(page, "notes.txt", "some notes");
    await askQuestion(page, "Walk slowly");
    const progress = page.getByTestId("run-progress");
    await progress.getByText(/turn 2\/12/).waitFor({ timeout: 30_000 });
    await expect.poll(() => progress.textContent()).toMatch(/sub-calls 0\/\d+/);
    await expect.poll(() => progress.getByTestId("elapsed").textContent()).toMatch(/ of /);
    await expect.poll(() => atBottom(page), { timeout: 10_000 }).toBe(true);
    // Scrolled up to read: the page does not move, and "Latest" appears once more arrives. A
    // step's output can land in the same task as the scroll, before the scroll event does (at
    // load ~11 in a fresh-clone run the page went back down and "Latest" never came): the page
    // must take the scroll as the reader's all the same.
    await page.evaluate(() => {
      window.scrollTo(0, 0);
      [...document.querySelectorAll(".exchange .turn")].at(-1)?.append(document.createComment("output"));
    });
    // A frame later the page has had the scroll event (it runs before animation frames).
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    const before = await turnsShown(page);
    scrolledUp.open();
    await expect.poll(() => turnsShown(page), { timeout: 20_000 }).toBeGreaterThan(before);
    await page.getByRole("button", { name: "Latest" }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    await page.screenshot({ path: `${SHOTS}run-follow-scrolled-up.png` });
    await page.getByRole("button", { name: "Latest" }).click();
    await expect.poll(() => atBottom(page)).toBe(true);
    await expect.poll(() => page.getByRole("button", { name: "Latest" }).count()).toBe(0);
    backDown.open();
    // The answer arrives with the steps still open.
    await page.locator(".exchange .chip", { hasText: "Answered" }).waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByRole("button", { name: /Hide steps/ }).getAttribute("aria-expanded")).toBe("true");
    expect(await page.getByRole("region", { name: "Trajectory" }).count()).toBe(1);
    // The turn timeline steps through the turns by keys, as the rlm visualizer does.
    const timeline = page.getByRole("toolbar", { name: /Turns/ });
    const steps = await timeline.getByRole("button").count();
    expect(steps).toBeGreaterThan(2);
    await timeline.getByRole("button", { name: `Turn ${steps}`, exact: true }).focus();
    await page.keyboard.press("ArrowLeft");
    await expect.poll(() => timeline.locator("[aria-current=step]").getAttribute("aria-label")).toBe(`Turn ${steps - 1}`);
    await page.keyboard.press("Home");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Turn 1");
    expect(await page.locator('.turn.picked[data-turn="0"]').count()).toBe(1);
    await page.keyboard.press("j");
    await expect.poll(() => timeline.locator("[aria-current=step]").getAttribute("aria-label")).toBe("Turn 2");
    await page.screenshot({ path: `${SHOTS}run-follow-answered.png`, fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("Esc stops, Continue goes on with the stopped run's variables, and Copy / Retry / Edit & re-ask act on the answer", async () => {
    routes.set("Keep a secret", stopThenContinue("secret = 'PLUM-' + str(6 * 7)\nprint('kept')", "FINAL(secret)"));
    routes.set("Keep a fruit", () => code("FINAL('no fruit')"));
    const { context, page, errors } = await newPage(stack.browser, { permissions: ["clipboard-read", "clipboard-write"] });
    await open(page);
    await uploadText(page, "notes.txt", "some notes");
    await askQuestion(page, "Keep a secret");
    await turnShown(page, 2);
    await page.keyboard.press("Escape");
    await page.locator(".exchange .chip", { hasText: "Stopped" }).waitFor({ timeout: 10_000 });
    // Focus lands on Continue, not at the top of the page.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Continue");
    await page.keyboard.press("Enter");
    const exchange = page.locator(".exchange").first();
    await exchange.locator(".chip", { hasText: "Answered" }).waitFor({ timeout: 30_000 });
    await exchange.getByRole("region", { name: "Answer", exact: true }).getByText("PLUM-42").waitFor();
    expect(await page.locator(".exchange").count()).toBe(1); // continued in place

    await exchange.getByRole("button", { name: "Copy answer" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe("PLUM-42");
    await page.getByText("Answer copied.").waitFor({ state: "attached" });

    // Retry of an answer: keep both, the new try in the question's place as its second version (issue 28 §4).
    await exchange.getByRole("button", { name: "Retry" }).click();
    await exchange.getByRole("button", { name: "Keep both" }).click();
    const retried = page.locator(".exchange").first();
    await retried.locator(".chip", { hasText: /Stopped|Working/ }).waitFor();
    expect(await retried.getByTestId("version").innerText()).toBe("Version 2 of 2");
    await page.getByRole("button", { name: "Stop", exact: true }).click();
    await retried.locator(".chip", { hasText: "Stopped" }).waitFor({ timeout: 10_000 });

    // Edit of a try without an answer replaces it once the edited question is answered.
    await retried.getByRole("button", { name: "Edit question", exact: true }).click();
    const edit = retried.getByRole("textbox", { name: "Edit the question" });
    await edit.fill("Keep a fruit");
    await edit.press("Enter");
    const edited = page.locator(".exchange").first();
    await edited.locator("h3", { hasText: "Keep a fruit" }).waitFor();
    await edited.getByRole("region", { name: "Answer", exact: true }).getByText("no fruit").waitFor({ timeout: 30_000 });
    expect(await page.locator(".exchange").count()).toBe(1);
    expect(await edited.getByTestId("version").innerText()).toBe("Version 2 of 2");
    await edited.getByRole("button", { name: "Previous version" }).click();
    await page.locator(".exchange").first().getByText("PLUM-42").waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a failed run carries the buttons that fix it: Retry and Open Settings", async () => {
    let fail = true;
    routes.set("Fail once", () => (fail ? { text: "", status: 500, error: "the model server broke" } : code("FINAL('fixed')")));
    const { context, page, errors } = await newPage(stack.browser);
    await open(page);
    await uploadText(page, "notes.txt", "some notes");
    await askQuestion(page, "Fail once");
    const exchange = page.locator(".exchange").first();
    await exchange.locator(".chip", { hasText: "Failed" }).waitFor({ timeout: 60_000 });
    await exchange.getByRole("button", { name: "Open Settings" }).click();
    await page.getByRole("dialog", { name: "Settings" }).waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog", { name: "Settings" }).waitFor({ state: "hidden" });
    fail = false;
    // Nothing to lose: Retry replaces the failed run in its place.
    await exchange.getByRole("button", { name: "Retry" }).click();
    await page
      .locator(".exchange")
      .first()
      .getByRole("region", { name: "Answer", exact: true })
      .getByText("fixed")
      .waitFor({ timeout: 30_000 });
    expect(await page.locator(".exchange").count()).toBe(1);
    expect(errors.filter((e) => !e.includes("500"))).toEqual([]);
    await context.close();
  });
});
