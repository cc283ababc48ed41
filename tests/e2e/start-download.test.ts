// Without WebGPU, step 1 of the start panel offers a model (issue 34 #5): it offered only a file
// chooser and an endpoint, the catalog's downloads folded inside Settings. Now it names the
// recommended download with its size and speed, downloads it with its progress in megabytes
// (issue 34 #2: "Downloading: 3 MB of 11 MB", not a bare bar), and the model is chosen once kept.
// The catalog is served from 127.0.0.1 (never the internet), slowly, so the progress is seen.
import { mkdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { newPage } from "./harness.ts";
import { useModelServer } from "./model-server.ts";
import { useAppAndBrowser } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
const paths: string[] = [];

const stack = useAppAndBrowser();

const models = useModelServer((model, req, res, headers) => {
  paths.push(req.url ?? "");
  res.writeHead(200, { ...headers, "Content-Length": String(model.length), "Content-Type": "application/octet-stream" });
  // 512 KB every 200 ms: the ~11 MB file takes a few seconds, long enough to be watched.
  let at = 0;
  const next = () => {
    if (res.destroyed) return;
    const end = Math.min(model.length, at + 512 * 1024);
    res.write(model.subarray(at, end));
    at = end;
    if (at < model.length) setTimeout(next, 200);
    else res.end();
  };
  next();
});

describe("step 1 without WebGPU", () => {
  it("offers the recommended download with its size and speed, shows its progress in megabytes, and chooses it once kept", async () => {
    const { context, page, errors } = await newPage(stack.browser);
    await context.addInitScript(`globalThis.__rlmTestCatalogBase = ${JSON.stringify(models.base)};`);
    await page.goto(stack.app.url);
    const steps = page.getByRole("region", { name: "Get an answer in three steps" });
    const offer = steps.getByTestId("recommended-model");
    await offer.getByText(/Qwen2\.5 0\.5B Instruct \(Q8_0\)/).waitFor({ timeout: 30_000 });
    const facts = ((await offer.textContent()) ?? "").replace(/\s+/g, " ");
    expect(facts).toMatch(/676 MB from Hugging Face/);
    expect(facts).toMatch(/About [\d.]+ tokens\/s writing and [\d.]+ reading prompts at one thread/);
    await page.screenshot({ path: `${SHOTS}start-download-offer-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await steps.screenshot({ path: `${SHOTS}start-download-offer-390.png` });
    await page.setViewportSize({ width: 1280, height: 860 });

    await offer.getByRole("button", { name: /Download it \(676 MB\)/ }).click();
    await offer
      .getByRole("status")
      .getByText(/Downloading: [\d.]+ (KB|MB) of [\d.]+ MB/)
      .waitFor({ timeout: 60_000 });
    await steps.screenshot({ path: `${SHOTS}start-download-progress-1280.png` });
    // Kept, then chosen: step 1 names the model and says it is kept.
    await steps.getByText(/runs on this computer's processor, in the page/).waitFor({ timeout: 120_000 });
    await steps.getByText(/Kept in this browser: it loads when you ask\.|Loaded\./).waitFor({ timeout: 60_000 });
    expect(paths).toEqual(["/models/qwen2.5-0.5b-instruct-q8_0.gguf"]);
    await steps.screenshot({ path: `${SHOTS}start-download-done-1280.png` });
    // Settings agrees: the kept model is the one chosen.
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    const kept = dialog.locator(".model", { hasText: "random-weight tiny" });
    expect(await kept.getByRole("radio").isChecked()).toBe(true);
    expect(errors.filter((e) => !/favicon|Failed to load resource|ERR_/.test(e))).toEqual([]);
    await context.close();
  }, 240_000);
});
