// A first visit, as a new user makes it: an empty browser profile without WebGPU, reaching an
// answer using only the buttons the page offers (issue 15). Skipping a step must never be a
// dead end: the failed question carries the button that fixes it.
import { mkdirSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { repl as code } from "../fixtures/scripted-server.ts";
import { newPage, startStack } from "./harness.ts";
import { useStack } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const stack = useStack(() => startStack({ contextWindow: 8192, root: [code("FINAL('The ledger runs from 1871 to 1931.')")] }));

async function shots(page: Page, name: string) {
  await page.screenshot({ path: `${SHOTS}${name}-1280.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${SHOTS}${name}-390.png`, fullPage: true });
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
  await page.setViewportSize({ width: 1280, height: 860 });
}

describe("a first visit", () => {
  it("goes from an empty browser to an answer through the page's own buttons", async () => {
    const { context, page, errors } = await newPage(stack.browser, {}, { python: "cold" });
    await page.goto(stack.app.url);
    const steps = page.getByRole("region", { name: "Get an answer in three steps" });
    await steps.getByText(/The model runs on this computer.s processor \(llama\.cpp\)/).waitFor({ timeout: 60_000 });
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 60_000 });
    await shots(page, "start-empty");

    // Step 2 first: the bundled sample, no file needed.
    await steps.getByRole("button", { name: "Open the sample document" }).click();
    await page.locator(".docs .name", { hasText: "harrow-point-lighthouse.md" }).waitFor({ timeout: 60_000 });
    const suggestions = steps.getByRole("group", { name: "Suggested questions" }).getByRole("button");
    await suggestions.first().waitFor();
    expect(await suggestions.first().textContent()).toContain("harrow-point-lighthouse.md");
    // Without a model they are offered but cannot be asked yet, and the page says why.
    expect(await suggestions.first().isDisabled()).toBe(true);
    await steps.getByText("Choose a model (step 1) to ask these.").waitFor();

    // Skipping step 1 anyway: the question is held, not failed. It stays in the box, and the
    // page shows the missing step with a real button to the right Settings tab.
    const box = page.getByRole("textbox", { name: "Question" });
    await box.fill("Who built the light?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    const held = page.locator(".held[role=alert]");
    await held.getByText(/pick a \.gguf model file in Settings, or drop one on the page/).waitFor({ timeout: 30_000 });
    expect(await box.inputValue()).toBe("Who built the light?");
    expect(await page.locator("article.exchange").count()).toBe(0);
    await shots(page, "start-held-with-fix");
    const fix = held.locator("button.remedy");
    // Without WebGPU the local model runs on the CPU (llama.cpp): the fix opens its model-file tab.
    expect(await fix.textContent()).toBe("Open Settings (model file)");
    await fix.click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    expect(await dialog.getByRole("radio", { name: /on the CPU \(llama\.cpp/ }).isChecked()).toBe(true);
    await dialog.getByLabel("Model file (GGUF)").waitFor();
    // This visitor has a model server instead.
    await dialog.getByRole("radio", { name: /OpenAI-compatible endpoint/ }).check();

    // An endpoint cannot be saved without a model.
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog
      .getByRole("alert")
      .getByText(/Choose a model for this endpoint/)
      .waitFor();
    expect(await dialog.isVisible()).toBe(true);

    // Test connection lists the server's models (with the window it reports); pick one.
    await dialog.getByLabel("Base URL").fill(stack.server.baseUrl);
    await dialog.getByRole("button", { name: "Test connection" }).click();
    await dialog.getByText(/Connected: 2\s+models on this server/).waitFor();
    const models = dialog.getByRole("group", { name: "Models on this server" });
    expect(await models.getByRole("button").allTextContents()).toEqual([
      "root-model · 8,192-token window",
      "sub-model · 8,192-token window",
    ]);
    await dialog.screenshot({ path: `${SHOTS}settings-test-connection.png` });
    await models.getByRole("button", { name: /^root-model/ }).click();
    expect(await dialog.getByRole("textbox", { name: "Model", exact: true }).inputValue()).toBe("root-model");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "hidden" });
    await steps.getByText(/Questions go to root-model/).waitFor();
    // The step is done, so the held question's notice goes; the question is still in the box.
    await held.waitFor({ state: "detached" });
    expect(await box.inputValue()).toBe("Who built the light?");

    // Step 3: a suggested question, one click, answered.
    await suggestions.first().click();
    await page
      .getByRole("region", { name: "Answer", exact: true })
      .last()
      .getByText("The ledger runs from 1871 to 1931.")
      .waitFor({ timeout: 60_000 });
    // Once a question is answered the steps have done their job.
    await steps.waitFor({ state: "detached" });
    await shots(page, "start-answered");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a server that refuses connections is not reported as connected", async () => {
    const { context, page } = await newPage(stack.browser, {}, { python: "cold" });
    await page.goto(stack.app.url);
    await page
      .getByRole("region", { name: "Get an answer in three steps" })
      .getByRole("button", { name: "Use an endpoint instead" })
      .click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    await dialog.getByLabel("Base URL").fill("http://127.0.0.1:9/v1");
    await dialog.getByRole("button", { name: "Test connection" }).click();
    await dialog.getByText(/Not connected\. Could not reach the model server/).waitFor();
    expect(await dialog.getByText(/Connected:/).count()).toBe(0);
    await context.close();
  });
});
