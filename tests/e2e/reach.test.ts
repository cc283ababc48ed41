// Phone, keyboard, screen reader and scale (issue 15), in real Chromium against the built app:
// no sideways scroll at 360–414 px in the main states, axe-core finds no serious or critical
// violation in them, the whole ask–stop–continue–read flow works with Tab, Enter and Esc only,
// and a 113-file zip lists every file.
import { mkdirSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { zipOf } from "../fixtures/docs/index.ts";
import { repl as code } from "../fixtures/scripted-server.ts";
import { documentInput, axeProblems, newPage, stopThenContinue } from "./harness.ts";
import { useRoutedStack } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const { routes, stack } = useRoutedStack();

async function upload(page: Page, name: string, content: string | Uint8Array, mimeType = "text/plain") {
  await documentInput(page).setInputFiles({ name, mimeType, buffer: Buffer.from(content) });
}

const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

const LONG_NAME = `${"quarterly-report-of-the-regional-office-with-no-spaces-at-all-".repeat(3)}final.txt`;
const LONG_CODE = `x = '${"A".repeat(400)}'\nprint(len(x))`;

describe("phone, keyboard, screen reader and scale", () => {
  it("no sideways scroll and no serious axe violation in the main states, at 1280, 390 and 360 px", async () => {
    routes.set("Show long code", (req) =>
      req.turn === 0 ? code(LONG_CODE) : req.turn === 1 ? { text: code("print(1)"), delayMs: 60_000 } : "FINAL('x')",
    );
    routes.set("Answer with long code", (req) => (req.turn === 0 ? code(LONG_CODE) : code("FINAL(context[:20])")));
    const { context, page, errors } = await stack.openPage({ viewport: { width: 390, height: 800 } });
    const problems: string[] = [];
    const check = async (state: string) => {
      for (const width of [1280, 390, 360]) {
        await page.setViewportSize({ width, height: 800 });
        // Laid out and painted at the new width.
        await page.waitForFunction((w) => window.innerWidth === w, width, { timeout: 30_000 });
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const over = await sideways(page);
        if (over > 0) problems.push(`${state} @${width}px: ${over}px of sideways scroll`);
        for (const p of await axeProblems(page)) problems.push(`${state} @${width}px: ${p}`);
        if (width !== 360) await page.screenshot({ path: `${SHOTS}reach-${state}-${width}.png`, fullPage: false });
      }
    };
    await check("empty");
    await upload(page, LONG_NAME, "The quarterly figures are in. Revenue rose 4 percent.");
    await page.locator(".docs .name").first().waitFor({ timeout: 60_000 });
    await check("documents");
    await page.getByRole("textbox", { name: "Question" }).fill("Show long code");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page
      .getByTestId("run-progress")
      .getByText(/turn 2/)
      .waitFor({ timeout: 30_000 });
    await check("running");
    await page.getByRole("button", { name: "Stop", exact: true }).click();
    await page.locator(".exchange .chip", { hasText: "Stopped" }).waitFor({ timeout: 10_000 });
    await page.getByRole("textbox", { name: "Question" }).fill("Answer with long code");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page.locator(".exchange .chip", { hasText: "Answered" }).waitFor({ timeout: 30_000 });
    // Opened with the run, and still open now that the answer is in.
    await page
      .locator(".exchange")
      .last()
      .getByRole("button", { name: /Hide steps/ })
      .waitFor();
    await check("answered-steps-open");
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await page.getByRole("dialog", { name: "Settings" }).waitFor();
    await check("settings");
    await page.keyboard.press("Escape");
    await page.getByRole("dialog", { name: "Settings" }).waitFor({ state: "hidden" });
    await page
      .getByRole("button", { name: /^Read / })
      .first()
      .click();
    await page.locator("dialog.viewer[open]").waitFor();
    await check("viewer");
    await page.keyboard.press("Escape");
    await page.locator("dialog.viewer[open]").waitFor({ state: "detached" });
    expect(problems).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("Tab, Enter and Esc alone: add a document with the picker button, ask, stop, continue, open a source", async () => {
    routes.set(
      "Where is the code",
      stopThenContinue("i = context.find('code')\nfound = context[i:i+16]\nprint(context[max(0, i - 20):i + 40])", "FINAL(found)"),
    );
    const { context, page, errors } = await newPage(stack.browser);
    // Playwright catches file choosers only once a listener has switched that on; switched on
    // here, long before Enter, so the chooser Enter opens is never missed under load.
    const chooserOpened = page.waitForEvent("filechooser", { timeout: 180_000 });
    await stack.open(page);
    const tabTo = async (matches: (el: { tag: string; text: string; label: string; cls: string }) => boolean, what: string) => {
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press("Tab");
        const el = await page.evaluate(() => {
          const a = document.activeElement as HTMLElement | null;
          return {
            tag: a?.tagName ?? "",
            text: a?.textContent?.trim() ?? "",
            label: a?.getAttribute("aria-label") ?? "",
            cls: a?.className ?? "",
            width: a?.getBoundingClientRect().width ?? 0,
          };
        });
        // Nothing invisible takes the focus (the hidden file inputs once did).
        expect(el.width, `${el.tag} "${el.label || el.text}" has focus but no size`).toBeGreaterThan(2);
        if (matches(el)) return;
      }
      throw new Error(`Tab never reached ${what}`);
    };
    await tabTo((el) => el.tag === "BUTTON" && el.text === "Choose files…", "the file picker");
    await page.keyboard.press("Enter");
    const chooser = await chooserOpened;
    await chooser.setFiles({ name: "memo.txt", mimeType: "text/plain", buffer: Buffer.from("Filler. The code is TANGO-19. More filler.") });
    await page.locator(".docs .name", { hasText: "memo.txt" }).waitFor({ timeout: 60_000 });
    await tabTo((el) => el.tag === "TEXTAREA", "the question box");
    await page.keyboard.type("Where is the code");
    await page.keyboard.press("Enter");
    await page
      .getByTestId("run-progress")
      .getByText(/turn 2/)
      .waitFor({ timeout: 30_000 });
    await page.keyboard.press("Escape");
    await page.locator(".exchange .chip", { hasText: "Stopped" }).waitFor({ timeout: 10_000 });
    // Focus was in the question box, so it stays there; Tab reaches Continue.
    await tabTo((el) => el.text === "Continue", "Continue");
    await page.keyboard.press("Enter");
    await page.locator(".exchange .chip", { hasText: "Answered" }).waitFor({ timeout: 30_000 });
    await page.getByRole("region", { name: "Answer", exact: true }).getByText("TANGO-19").waitFor();
    await page.getByRole("region", { name: "Sources" }).waitFor();
    await tabTo((el) => el.tag === "BUTTON" && el.cls.includes("source") && /memo\.txt/.test(el.text), "a source");
    await page.keyboard.press("Enter");
    await page.locator("dialog.viewer[open]").waitFor();
    await page.keyboard.press("Escape");
    await page.locator("dialog.viewer[open]").waitFor({ state: "detached" });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a 113-file zip lists every file, grouped by folder, and Remove all empties the list", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 113; i++) files[`repo/${i % 2 ? "src" : "docs"}/file-${String(i).padStart(3, "0")}.txt`] = `file number ${i}`;
    const { context, page, errors } = await stack.openPage();
    await upload(page, "repo.zip", zipOf(files), "application/zip");
    await expect.poll(() => page.locator(".docs .name").count(), { timeout: 60_000 }).toBe(113);
    expect(await page.getByText(/and \d+ more/).count()).toBe(0);
    expect(await page.locator(".docs .folder").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("repo/docs/"), expect.stringContaining("repo/src/")]),
    );
    await page.getByRole("button", { name: "Remove all…" }).click();
    await page.getByRole("button", { name: "Remove all", exact: true }).click();
    await expect.poll(() => page.locator(".docs .name").count(), { timeout: 30_000 }).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("sessions at scale", () => {
  it("search, rename and date groups in the session list, kept across a reload", async () => {
    const { context, page, errors } = await stack.openPage();
    const names = ["alpha-notes.txt", "beta-notes.txt", "gamma-notes.txt", "delta-notes.txt"];
    for (const [i, name] of names.entries()) {
      if (i) {
        await page.getByRole("button", { name: "+ New" }).click();
        // As a person would: the new, empty session is on screen before its file is added.
        await page.getByText("Drop files anywhere on this page").waitFor();
      }
      await upload(page, name, `text of ${name}`);
      await page.locator(".docs .name", { hasText: name }).waitFor({ timeout: 60_000 });
    }
    const nav = page.getByRole("navigation", { name: "Sessions" });
    await expect.poll(() => nav.locator("li .title").count()).toBe(4);
    await nav.getByRole("heading", { name: "Today" }).waitFor();
    await nav.getByRole("searchbox", { name: "Search sessions" }).fill("GAMMA");
    await expect.poll(() => nav.locator("li .title").allTextContents()).toEqual(["gamma-notes.txt"]);
    await nav.getByRole("button", { name: "Rename session gamma-notes.txt" }).click();
    const field = nav.getByRole("textbox", { name: "Session name" });
    await field.fill("Quarterly figures");
    await field.press("Enter");
    await nav.getByRole("searchbox", { name: "Search sessions" }).fill("");
    await nav.locator("li .title", { hasText: "Quarterly figures" }).waitFor();
    await page.screenshot({ path: `${SHOTS}reach-sessions-1280.png` });
    await page.reload();
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 60_000 });
    await nav.locator("li .title", { hasText: "Quarterly figures" }).waitFor();
    await nav.getByRole("searchbox", { name: "Search sessions" }).fill("quarterly");
    await expect.poll(() => nav.locator("li .title").allTextContents()).toEqual(["Quarterly figures"]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
