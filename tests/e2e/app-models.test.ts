// Local models in the real app: with a (software) WebGPU adapter the catalog and a
// recommendation show, and an uncached model offline fails clearly; without WebGPU the page
// says so and the OpenAI-compatible endpoint still works.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repl as code, startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { documentInput, WEBGPU_ARGS, newPage, startApp } from "./harness.ts";
import { useBrowser } from "./stack.ts";

let server: ScriptedServer;
let app: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 8192, root: [code("FINAL('from the endpoint')")] });
  app = await startApp();
});
afterAll(async () => {
  await app?.close();
  await server?.close();
});

describe("local models in the app", () => {
  const gpu = useBrowser(WEBGPU_ARGS);

  it("shows the catalog and a recommendation for the GPU, and an uncached model offline fails clearly", async () => {
    const { context, page, errors } = await newPage(gpu.browser);
    // No model downloads here: Hugging Face and the model libraries are unreachable.
    await context.route(/huggingface\.co|githubusercontent\.com/, (route) => route.abort("internetdisconnected"));
    await page.goto(app.url);
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 60_000 });
    // The chip says, in words, that the recommended model is not in this browser yet.
    await page.locator("header .chip", { hasText: /\(in browser\) · not downloaded/ }).waitFor({ timeout: 60_000 });
    await page.getByRole("button", { name: "Settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    await dialog.getByText(/Recommended for this GPU: /).waitFor({ timeout: 60_000 });
    // SwiftShader has no shader-f16: the recommendation is a q4f32 build, and the app says why.
    expect(await dialog.getByText(/Recommended for this GPU: .*q4f32/).count()).toBe(1);
    const models = dialog.getByRole("combobox", { name: "Model", exact: true });
    const options = await models.locator("option").allTextContents();
    for (const family of ["Qwen2.5-Coder", "Qwen2.5", "Qwen3"]) {
      expect(options.some((o) => o.startsWith(family))).toBe(true);
    }
    expect(options.some((o) => /download/.test(o) && /GPU/.test(o))).toBe(true);
    await models.selectOption({ label: options.find((o) => o.startsWith("Qwen3 4B") && /q4f16/.test(o))! });
    await dialog
      .getByText(/shader-f16/)
      .first()
      .waitFor();
    // The memory estimate follows the choice being edited (the q4f32 twin of Qwen3 4B: over 4 GB).
    await dialog.getByText(/Needs about [4-9]\.\d GB of GPU memory/).waitFor();
    const windows = await dialog.getByLabel("Context window").locator("option").allTextContents();
    expect(windows.some((w) => /^8,192 tokens · about [\d.]+ GB/.test(w))).toBe(true);
    await page.screenshot({ path: new URL("../../test-results/screenshots/local-models.png", import.meta.url).pathname, fullPage: true });
    await dialog.getByRole("button", { name: "Cancel" }).click();

    await documentInput(page).setInputFiles({ name: "a.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
    await page.locator(".docs .name", { hasText: "a.txt" }).waitFor();
    await page.getByRole("textbox", { name: "Question" }).fill("Anything?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    const banner = page.getByRole("alert").filter({ hasText: "The model is not available" });
    await banner.waitFor({ timeout: 60_000 });
    expect(await banner.textContent()).toMatch(/not downloaded yet.*load it once/);
    await banner.getByRole("button", { name: "Try again" }).waitFor();
    expect(errors.filter((e) => !/Failed to load resource|net::ERR/.test(e))).toEqual([]);
    await context.close();
  });
});

describe("without WebGPU", () => {
  const chromium = useBrowser();

  it("offers llama.cpp on the CPU instead of WebLLM, and an OpenAI-compatible endpoint still answers", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await page.goto(app.url);
    // WebLLM cannot run without WebGPU: llama.cpp on the CPU becomes the local model.
    await page.locator(".chip", { hasText: "llama.cpp: no model file chosen" }).waitFor({ timeout: 60_000 });
    await page.getByRole("button", { name: "Settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    expect(await dialog.getByRole("radio", { name: /on the CPU \(llama\.cpp/ }).isChecked()).toBe(true);
    expect(await dialog.getByRole("radio", { name: /on the GPU \(WebLLM, WebGPU\) — no WebGPU here/ }).isDisabled()).toBe(true);
    await dialog.getByRole("radio", { name: /OpenAI-compatible endpoint/ }).check();
    await dialog.getByLabel("Base URL").fill(server.baseUrl);
    await dialog.getByRole("textbox", { name: "Model", exact: true }).fill("root-model");
    await dialog.getByRole("button", { name: "Save" }).click();
    await documentInput(page).setInputFiles({ name: "b.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
    await page.locator(".docs .name", { hasText: "b.txt" }).waitFor();
    await page.getByRole("textbox", { name: "Question" }).fill("Works?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page.getByRole("region", { name: "Answer", exact: true }).getByText("from the endpoint").waitFor({ timeout: 60_000 });
    expect(errors).toEqual([]);
    await context.close();
  });
});
