// The document viewer on a phone breaks long lines at spaces (issue 34 #8): it cut them every n
// characters, so words broke mid-word ("harbo" / "ur"). A paragraph-per-line document opened at
// 390 px: every row that continues on the next ends after a space, and the rows put back
// together give the line.
import { mkdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { newPage, uploadText } from "./harness.ts";
import { useAppAndBrowser } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const PARAGRAPH =
  "The harbour master logged twelve ships before noon, each with its cargo, its crew and the weather it met on the way in; " +
  "the ledger keeps them all, in a hand that grows smaller as the years go by.";
const DOCUMENT = Array.from({ length: 30 }, (_, i) => `${i + 1}. ${PARAGRAPH}`).join("\n");

const stack = useAppAndBrowser();

describe("the document viewer on a phone", () => {
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 860 },
  ]) {
    it(`breaks long lines at spaces, never inside a word (${viewport.width} px)`, async () => {
      const { context, page, errors } = await newPage(stack.browser, { viewport });
      await page.goto(stack.app.url);
      await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 90_000 });
      await uploadText(page, "harbour.txt", DOCUMENT);
      await page.getByRole("button", { name: "Read harbour.txt" }).first().click();
      const text = page.getByRole("region", { name: "Text of harbour.txt" });
      await text.getByText("The harbour master", { exact: false }).first().waitFor({ timeout: 30_000 });
      // The viewer's rows, as shown: a row with no line number continues the line above.
      const rows = await text
        .locator(".row")
        .evaluateAll((els) =>
          els.map((el) => ({ ln: el.querySelector(".ln")?.textContent ?? "", tx: el.querySelector(".tx")?.textContent ?? "" })),
        );
      expect(rows.length).toBeGreaterThan(10);
      const lines: string[] = [];
      rows.forEach((row, i) => {
        const continued = rows[i + 1] && rows[i + 1]!.ln === "";
        if (continued) expect(row.tx, JSON.stringify(rows.slice(i, i + 2))).toMatch(/\s$/);
        if (row.ln) lines.push(row.tx);
        else if (lines.length) lines[lines.length - 1] += row.tx;
      });
      // Whole lines shown (the last may be cut off by the screen) are the document's lines.
      const whole = lines.slice(0, -1);
      expect(whole.length).toBeGreaterThan(0);
      whole.forEach((l, i) => expect(l).toBe(DOCUMENT.split("\n")[i]));
      await page.screenshot({ path: `${SHOTS}viewer-wrap-${viewport.width}.png` });
      expect(errors).toEqual([]);
      await context.close();
    }, 180_000);
  }
});
