// Save pressed while a chosen GGUF is still being kept in the browser (issue 34 #1). A real model
// takes many seconds to copy, so nearly everyone presses Save meanwhile; the draft took the model
// only once the copy ended, so the saved settings had none and the header said "no model file
// chosen". The Save here is clicked by a MutationObserver the moment "Keeping …" appears: the
// copy's end arrives as a worker message, a later task, so the click is always during the copy,
// with no timing involved.
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { tinyQwenGguf } from "../fixtures/gguf/index.ts";
import { blockOutside, newPage } from "./harness.ts";
import { useAppAndBrowser } from "./stack.ts";

// The app and Chromium come up beside the model files this file prepares.
const used = useAppAndBrowser(120_000);
const models = { first: "", second: "" };

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "rlm-keep-"));
  const tiny = await tinyQwenGguf();
  models.first = join(dir, "first-model.gguf");
  models.second = join(dir, "second-model.gguf");
  copyFileSync(tiny, models.first);
  copyFileSync(tiny, models.second);
}, 120_000);

async function openSettings(page: Page) {
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Settings" });
  await dialog.getByLabel("Model file (GGUF)").waitFor();
  return dialog;
}

/** A kept model's radio, by its id (both files carry the same general.name). */
function kept(dialog: Locator, base: string): Locator {
  return dialog.locator(`input[name="cpu-model"][value^="${base}-"]`);
}

/** Chooses a model file and presses Save as soon as the dialog says it is being kept. */
async function chooseAndSaveDuringCopy(page: Page, file: string): Promise<void> {
  const dialog = await openSettings(page);
  await dialog.getByRole("radio", { name: /on the CPU \(llama\.cpp/ }).check();
  await page.evaluate(() => {
    const box = document.querySelector("dialog[open]")!;
    const observer = new MutationObserver(() => {
      const keeping = [...box.querySelectorAll("[role=status]")].find((el) => el.textContent?.includes("Keeping"));
      if (!keeping) return;
      observer.disconnect();
      (globalThis as { __savedDuringCopy?: string }).__savedDuringCopy = keeping.textContent ?? "";
      [...box.querySelectorAll("button")].find((b) => b.textContent?.trim() === "Save")!.click();
    });
    observer.observe(box, { childList: true, subtree: true, characterData: true });
  });
  await dialog.getByLabel("Model file (GGUF)").setInputFiles(file);
  await dialog.waitFor({ state: "hidden", timeout: 60_000 });
  expect(await page.evaluate(() => (globalThis as { __savedDuringCopy?: string }).__savedDuringCopy)).toMatch(/Keeping .*gguf/);
}

describe("a model file chosen in Settings (llama.cpp in the page)", () => {
  it("stays the model when Save is pressed while the file is being kept, the first time and when it replaces another", async () => {
    const { context, page, errors } = await newPage(used.browser);
    const outside = await blockOutside(context);
    await page.goto(used.app.url);
    const chip = page.locator("header .chip").filter({ hasText: "llama.cpp" });

    await chooseAndSaveDuringCopy(page, models.first);
    // Once kept, the header names the model (never "no model file chosen") and Settings shows it chosen.
    await chip.getByText(/random-weight .*\(llama\.cpp, CPU\).*kept, not loaded/).waitFor({ timeout: 60_000 });
    expect(await chip.textContent()).not.toContain("no model file chosen");
    let dialog = await openSettings(page);
    await expect.poll(() => kept(dialog, "first-model").isChecked(), { timeout: 30_000 }).toBe(true);
    await dialog.getByRole("button", { name: "Close settings" }).click();

    // A second file chosen over the first, saved during its copy, replaces it.
    await chooseAndSaveDuringCopy(page, models.second);
    await chip.getByText(/random-weight .*\(llama\.cpp, CPU\).*kept, not loaded/).waitFor({ timeout: 60_000 });
    dialog = await openSettings(page);
    await expect.poll(() => kept(dialog, "second-model").isChecked(), { timeout: 30_000 }).toBe(true);
    expect(await kept(dialog, "first-model").isChecked()).toBe(false);

    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);
});
