// After "Apply these settings" (or "Keep my settings") in the dialog a settings link opens, focus
// goes to the question box (issue 34 #8): it fell on the body, and the next Tab started again at
// the top of the page.
import { describe, expect, it } from "vitest";
import { newPage, openaiUrl } from "./harness.ts";
import { useStack } from "./stack.ts";

const stack = useStack();

describe("the settings-link dialog", () => {
  for (const button of ["Apply these settings", "Keep my settings"]) {
    it(`leaves focus in the question box after "${button}"`, async () => {
      const { context, page, errors } = await newPage(stack.browser, {}, { linkSettings: "manual" });
      await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl));
      const dialog = page.getByRole("dialog", { name: "Settings from a link" });
      await dialog.getByRole("button", { name: button }).click();
      await dialog.waitFor({ state: "detached" });
      await expect.poll(() => page.evaluate(() => document.activeElement?.id ?? document.activeElement?.tagName)).toBe("question");
      expect(errors).toEqual([]);
      await context.close();
    }, 120_000);
  }
});
