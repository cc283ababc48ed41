// Every choice in Settings can be read whole (issue 34 #8): a closed select cannot wrap, and "When
// the model cannot drive a run" showed "Read the document with the he…", its other options cut the
// same way. At a laptop's and a phone's width, each visible select is as wide as its longest option.
import { mkdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { newPage } from "./harness.ts";
import { useAppAndBrowser } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const stack = useAppAndBrowser();

describe("Settings' selects", () => {
  for (const viewport of [
    { width: 1280, height: 860 },
    { width: 390, height: 844 },
  ]) {
    it(`show each option whole (${viewport.width} px)`, async () => {
      const { context, page, errors } = await newPage(stack.browser, { viewport });
      await page.goto(stack.app.url);
      await page.getByRole("button", { name: "Settings" }).click();
      const dialog = page.getByRole("dialog", { name: "Settings" });
      const fallback = dialog.getByLabel("When the model cannot drive a run");
      await fallback.waitFor();
      // The text's width in the select's own font, against the room inside it (padding and the arrow).
      const clipped = await dialog.locator("select").evaluateAll((selects) => {
        const ctx = document.createElement("canvas").getContext("2d")!;
        return selects
          .filter((s) => s.getClientRects().length > 0)
          .flatMap((s) => {
            const style = getComputedStyle(s);
            ctx.font = style.font;
            const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
            return Array.from((s as HTMLSelectElement).options)
              .filter((o) => ctx.measureText(o.text).width > room)
              .map((o) => `${o.text} (${Math.round(ctx.measureText(o.text).width)} px in ${Math.round(room)} px)`);
          });
      });
      expect(clipped).toEqual([]);
      await fallback.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}settings-fallback-select-${viewport.width}.png` });
      expect(errors).toEqual([]);
      await context.close();
    }, 120_000);
  }
});
