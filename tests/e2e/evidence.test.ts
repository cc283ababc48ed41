// Answers you can check, in real Chromium against the built app and the scripted model server:
// drop a long file, ask, see the sources under the answer, open the first one and find the
// needle highlighted in the document viewer; the same with the keyboard only; the viewer from
// the document list, PDF pages, and phone width.
import { mkdirSync, readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { buildPdf } from "../fixtures/docs/index.ts";
import { between, repl as code, type ScriptedRequest } from "../fixtures/scripted-server.ts";
import { documentInput, newPage } from "./harness.ts";
import { useStack } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const stack = useStack();
beforeAll(() => {
  stack.server.scripts.root = (req: ScriptedRequest) => {
    if (!req.firstUser.startsWith("Question: What is the launch code")) return code("FINAL('unknown question')");
    if (req.turn === 0) {
      return code(
        [
          "import re",
          "m = re.search(r'launch code is', context)",
          "reply = llm_query('<<' + context[m.start() - 400:m.end() + 400] + '>> What is the launch code?')",
          "print(context[:200])",
          "print(reply)",
        ].join("\n"),
      );
    }
    return code("FINAL(reply)");
  };
  stack.server.scripts.sub = (req) => {
    const m = /launch code is ([A-Z]+-\d+)/.exec(between(req.lastUser, "<<", ">>"));
    return m ? `The launch code is ${m[1]}.` : "Not in this part.";
  };
});

const NEEDLE_LINE = 48_213;

/** Drops a ~6 MB report with the needle on one line, the way a person drops a file. */
async function dropReport(page: Page): Promise<void> {
  await page.evaluate((needleLine) => {
    const lines: string[] = [];
    for (let i = 1; i <= 100_000; i++) {
      lines.push(
        i === needleLine
          ? "Memo 7: the launch code is ZEBRA-4471, do not share it."
          : `Line ${i} of the quarterly report: nothing to see, just filler text.`,
      );
    }
    const file = new File([lines.join("\n")], "report.txt", { type: "text/plain" });
    const dt = new DataTransfer();
    dt.items.add(file);
    for (const type of ["dragenter", "dragover", "drop"])
      window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, NEEDLE_LINE);
  await page.locator(".docs .name", { hasText: "report.txt" }).waitFor({ timeout: 60_000 });
}

async function askAndWait(page: Page): Promise<void> {
  await page.getByRole("textbox", { name: "Question" }).fill("What is the launch code?");
  await page.getByRole("button", { name: "Ask", exact: true }).click();
  await page.getByRole("region", { name: "Answer", exact: true }).getByText("The launch code is ZEBRA-4471.").waitFor({ timeout: 90_000 });
}

const open = (page: Page) => stack.open(page, {}, 90_000);

const viewer = (page: Page) => page.getByRole("dialog");

describe("answers you can check", () => {
  it("shows the sources under the answer; the first opens the document at the needle, highlighted", async () => {
    const { context, page, errors } = await newPage(stack.browser);
    await open(page);
    await dropReport(page);
    await askAndWait(page);

    const sources = page.getByRole("region", { name: "Sources" });
    const first = sources.getByRole("button").first();
    await expect(first.textContent()).resolves.toContain(`report.txt · line ${NEEDLE_LINE.toLocaleString("en-US")}`);
    await page.screenshot({ path: `${SHOTS}evidence-chips-1280.png`, fullPage: false });
    await first.click();

    const dialog = viewer(page);
    await dialog.waitFor();
    const target = dialog.locator("mark.target");
    await target.first().waitFor({ timeout: 30_000 });
    expect((await target.allTextContents()).join("")).toContain("ZEBRA-4471");
    // The line number of the highlighted row, and the surrounding text.
    const row = dialog.locator(".row", { has: page.locator("mark.target") }).first();
    expect(await row.locator(".ln").textContent()).toBe(NEEDLE_LINE.toLocaleString("en-US"));
    await dialog.getByText(`Line ${NEEDLE_LINE + 1} of the quarterly report`).waitFor();
    await page.screenshot({ path: `${SHOTS}evidence-viewer-1280.png` });

    // Find: next and previous through the matches, with a count.
    await dialog.getByRole("searchbox", { name: "Find in document" }).fill("memo 7");
    await dialog.getByRole("status").filter({ hasText: "1 of 1" }).waitFor({ timeout: 30_000 });
    await dialog.getByRole("searchbox", { name: "Find in document" }).fill("quarterly report");
    await dialog
      .getByRole("status")
      .filter({ hasText: /of 10,000\+/ })
      .waitFor({ timeout: 30_000 });
    await dialog.getByRole("button", { name: "Next match" }).click();
    expect(await dialog.locator("mark.current").count()).toBe(1);

    // The exported answer quotes its sources.
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export answer (.md)" }).click(),
    ]);
    const md = readFileSync((await download.path())!, "utf8");
    expect(md).toContain(`report.txt · line ${NEEDLE_LINE.toLocaleString("en-US")}`);
    expect(md).toMatch(/^\s*> Memo 7: the \*\*launch code is ZEBRA-4471\*\*, do not share it\.$/m);

    // At phone width the chips wrap and the viewer fills the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}evidence-chips-390.png`, fullPage: false });
    await first.click();
    await viewer(page).locator("mark.target").first().waitFor({ timeout: 30_000 });
    const box = await viewer(page).boundingBox();
    expect(box!.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // Long lines wrap: the text never scrolls sideways.
    const text = viewer(page).locator(".text");
    expect(await text.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}evidence-viewer-390.png` });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("works with the keyboard alone: reach the source, open it, find, close, and come back", async () => {
    const { context, page, errors } = await newPage(stack.browser);
    await open(page);
    await dropReport(page);
    await askAndWait(page);

    // Tab from the answer to the first source chip.
    await page
      .getByRole("region", { name: "Answer", exact: true })
      .last()
      .evaluate((el) => {
        el.setAttribute("tabindex", "-1");
        (el as HTMLElement).focus();
      });
    const chipFocused = () =>
      page.evaluate(() => {
        const el = document.activeElement;
        return (
          el?.tagName === "BUTTON" && !!el.closest("[aria-label='Sources']") && (el.textContent ?? "").includes("report.txt · line 48,213")
        );
      });
    for (let i = 0; i < 10 && !(await chipFocused()); i++) await page.keyboard.press("Tab");
    expect(await chipFocused()).toBe(true);
    await page.keyboard.press("Enter");

    const dialog = viewer(page);
    await dialog.locator("mark.target").first().waitFor({ timeout: 30_000 });
    // The text has focus: the keyboard scrolls it.
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Text of report.txt");
    const before = await dialog.locator(".text").evaluate((el) => el.scrollTop);
    await page.keyboard.press("PageDown");
    await page.waitForFunction((b) => (document.querySelector("dialog .text") as HTMLElement).scrollTop > b, before);

    // Ctrl+F, type, Enter jumps to the match; Escape closes the viewer, from the find box too
    // (a search field's own Escape only emptied it, so the first Escape seemed to do nothing).
    await page.keyboard.press("Control+f");
    await page.keyboard.type("ZEBRA");
    await page.keyboard.press("Enter");
    await dialog.locator("mark.current").first().waitFor({ timeout: 30_000 });
    expect(await dialog.locator("mark.current").first().textContent()).toBe("ZEBRA");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Find in document");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(await chipFocused()).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("opens any document from the document list; a PDF shows its pages", async () => {
    const { context, page, errors } = await newPage(stack.browser);
    await open(page);
    const pdf = buildPdf([
      ["Cover of the annual report"],
      ["Budget overview: the total is 4,200 crowns."],
      ["Appendix: the deadline is 12 May."],
    ]);
    await documentInput(page).setInputFiles({ name: "annual.pdf", mimeType: "application/pdf", buffer: Buffer.from(pdf) });
    await page.locator(".docs .name", { hasText: "annual.pdf" }).waitFor({ timeout: 60_000 });
    await page.getByRole("button", { name: "Read annual.pdf" }).click();
    const dialog = viewer(page);
    await dialog.getByText("3 pages").waitFor({ timeout: 30_000 });
    await dialog.locator(".row.marker", { hasText: "--- page 2 ---" }).waitFor();
    await dialog.getByRole("spinbutton", { name: "Go to page" }).fill("3");
    await dialog.getByRole("spinbutton", { name: "Go to page" }).press("Enter");
    await dialog.getByText("Appendix: the deadline is 12 May.").waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
