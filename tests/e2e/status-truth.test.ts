// The header's status tells the truth, in words: an endpoint that refuses connections is not
// green, and the page says why (issue 15). Issue 28, item 5: a step is done, and the chip green,
// only when its thing works. A question that failed on an unreachable endpoint turned the chip
// green "connected" and ticked the start's model step; a local model that was not downloaded, or
// a model file llama.cpp could not load, was ticked too (after an effort was chosen, or a reload).
//
// Run: npm run build && npx vitest run --project e2e tests/e2e/status-truth.test.ts
// (STATUS_SHOTS=<dir> puts the screenshots of the header and start panel there.)
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page, Request } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { findCatalogEntry } from "../../src/engines/webllm/catalog.ts";
import { resolveWeightsBaseUrl } from "../../src/engines/webllm/custom-model.ts";
import { exactReplyGrammar, tinyQwenGguf } from "../fixtures/gguf/index.ts";
import { repl as code, startScriptedServer } from "../fixtures/scripted-server.ts";
import { WEBGPU_ARGS, askQuestion, newPage, openaiUrl, startStack, uploadText } from "./harness.ts";
import { useStack, useBrowser } from "./stack.ts";
import { waitUntil } from "./waits.ts";

const SHOTS = process.env.STATUS_SHOTS ?? new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const stack = useStack(() => startStack({ contextWindow: 8192 }));

/** The model's chip: the last chip of the header (the first is Python's). */
const modelChip = (page: Page) => page.locator("header .chips .chip").last();
const steps = (page: Page) => page.getByRole("region", { name: "Get an answer in three steps" });
/** Step 1 of the start panel, with its "(done)" / "(to do)" as a screen reader hears it. */
const modelStep = (page: Page) => steps(page).getByRole("listitem").first();

async function expectChip(page: Page, words: RegExp, tone: "ok" | "err" | "none"): Promise<void> {
  const chip = modelChip(page);
  await chip.getByText(words).waitFor({ timeout: 60_000 });
  expect(await chip.locator(".dot.ok").count()).toBe(tone === "ok" ? 1 : 0);
  expect(await chip.locator(".dot.err").count()).toBe(tone === "err" ? 1 : 0);
}

async function expectStep(page: Page, done: boolean): Promise<void> {
  const step = modelStep(page);
  await step.getByText(done ? "(done)" : "(to do)").waitFor({ timeout: 60_000 });
  expect(await step.locator(".mark").textContent()).toBe(done ? "✓" : "1");
}

/** The header and start panel (the top of the page) at laptop and phone widths. */
async function shots(page: Page, name: string): Promise<void> {
  const size = page.viewportSize() ?? { width: 1280, height: 860 };
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.screenshot({ path: `${SHOTS}status-${name}-1280.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${SHOTS}status-${name}-390.png` });
  await page.setViewportSize(size);
}

/** A new session (its start panel shows again), from the sessions list. */
async function newSession(page: Page): Promise<void> {
  await page.getByRole("button", { name: "+ New" }).click();
  await steps(page).waitFor({ timeout: 60_000 });
}

/** Presses the banner's Try again and waits until the page has asked the endpoint and settled. */
async function tryAgain(page: Page): Promise<void> {
  let asked = 0;
  const onModels = (request: Request) => {
    if (request.url().endsWith("/v1/models")) asked += 1;
  };
  page.on("requestfinished", onModels);
  page.on("requestfailed", onModels);
  try {
    await page.getByRole("alert").filter({ hasText: "The model is not available" }).getByRole("button", { name: "Try again" }).click();
    await waitUntil(() => asked > 0, { timeout: 60_000, what: "the page to ask the endpoint for its models" });
    await modelChip(page)
      .getByText(/checking…/)
      .waitFor({ state: "detached", timeout: 60_000 });
  } finally {
    page.off("requestfinished", onModels);
    page.off("requestfailed", onModels);
  }
}

describe("status that tells the truth: an endpoint", () => {
  it("an endpoint that refuses connections is not green and the page says why", async () => {
    const { context, page } = await newPage(stack.browser);
    await page.goto(openaiUrl(stack.app.url, "http://127.0.0.1:9/v1"));
    const chip = page.locator("header .chip", { hasText: "root-model @ 127.0.0.1:9" });
    await chip.getByText(/not reachable/).waitFor({ timeout: 60_000 });
    expect(await chip.locator(".dot.ok").count()).toBe(0);
    expect(await chip.locator(".dot.err").count()).toBe(1);
    const banner = page.getByRole("alert").filter({ hasText: "The model is not available" });
    await banner.getByText(/Could not reach the model server/).waitFor();
    // The first step is not ticked for an endpoint that cannot answer.
    await steps(page)
      .getByText(/cannot be used right now/)
      .waitFor();
    await expectStep(page, false);
    await shots(page, "endpoint-down");

    // A question does not turn it green (it did: the engine was built on a guess and called
    // "connected"), nor does the banner's Try again.
    await uploadText(page, "notes.txt", "Nothing much.");
    await askQuestion(page, "Is anyone there?");
    await page.locator("article.exchange .chip", { hasText: "Failed" }).waitFor({ timeout: 60_000 });
    await expectChip(page, /not reachable/, "err");
    await tryAgain(page);
    await expectChip(page, /not reachable/, "err");
    await banner.waitFor();
    await newSession(page);
    await expectStep(page, false);
    await shots(page, "endpoint-down-after-question");
    await context.close();
  });

  it("a reachable endpoint that lists the model is connected, before any question", async () => {
    const { context, page } = await newPage(stack.browser);
    await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl));
    const chip = page.locator("header .chip", { hasText: "root-model @" });
    await chip.getByText(/connected/).waitFor({ timeout: 60_000 });
    expect(await chip.locator(".dot.ok").count()).toBe(1);
    expect(await chip.getAttribute("title")).toMatch(/reachable · 8,192-token window/);
    await expectStep(page, true);
    await context.close();
  });

  it("a question that fails on an endpoint gone away turns the chip red and unticks the step, until it answers again", async () => {
    const first = await startScriptedServer({ contextWindow: 8192, root: code("FINAL('back again')") });
    const port = Number(new URL(first.url).port);
    const { context, page } = await newPage(stack.browser);
    await page.goto(openaiUrl(stack.app.url, first.baseUrl));
    await expectChip(page, /· connected/, "ok");
    await expectStep(page, true);
    await shots(page, "endpoint-connected");

    await uploadText(page, "notes.txt", "The harbour opens at six.");
    await first.close();
    await askQuestion(page, "When does the harbour open?");
    await page.locator("article.exchange .chip", { hasText: "Failed" }).waitFor({ timeout: 60_000 });
    // It stayed green "connected" here, and a reload turned it red.
    await expectChip(page, /· not reachable/, "err");
    const banner = page.getByRole("alert").filter({ hasText: "The model is not available" });
    await banner.getByText(/Could not reach the model server/).waitFor();
    await shots(page, "endpoint-gone-after-question");
    await newSession(page);
    await expectStep(page, false);
    await shots(page, "endpoint-gone-new-session");

    // The server is back on the same address: Try again asks it, and only then is it green.
    const again = await startScriptedServer({ contextWindow: 8192, root: code("FINAL('back again')") }, port);
    try {
      await tryAgain(page);
      await expectChip(page, /· connected/, "ok");
      await expectStep(page, true);
      expect(await banner.count()).toBe(0);
    } finally {
      await again.close();
    }
    await context.close();
  });
});

describe("status that tells the truth: a local model on the GPU (WebLLM) that is not downloaded", () => {
  const gpu = useBrowser(WEBGPU_ARGS);

  it("is not a done step, and a load that failed stays red when an effort is chosen", async () => {
    const { context, page } = await newPage(gpu.browser);
    // No model downloads here: Hugging Face and the model libraries are unreachable.
    await context.route(/huggingface\.co|githubusercontent\.com/, (route) => route.abort("internetdisconnected"));
    await page.goto(stack.app.url);
    await expectChip(page, /\(in browser\) · not downloaded/, "none");
    await expectStep(page, false);
    await steps(page)
      .getByText(/Not downloaded yet\./)
      .waitFor();
    await steps(page).getByRole("button", { name: "Download now" }).waitFor();
    await shots(page, "webllm-not-downloaded");

    await uploadText(page, "a.txt", "hello");
    await askQuestion(page, "Anything?");
    const banner = page.getByRole("alert").filter({ hasText: "The model is not available" });
    await banner.getByText(/not downloaded yet/).waitFor({ timeout: 120_000 });
    await expectChip(page, /\(in browser\) · not available/, "err");
    // Choosing an effort is a settings change: it cleared the failure (banner gone, step ticked).
    await page.getByRole("radiogroup", { name: "Effort" }).getByText("Quick", { exact: true }).click();
    await expectChip(page, /· not available/, "err");
    await banner.waitFor();
    await newSession(page);
    await expectStep(page, false);
    await shots(page, "webllm-failed");
    await context.close();
  });
});

describe("status that tells the truth: a local model on the GPU (WebLLM) that is downloaded", () => {
  const gpu = useBrowser(WEBGPU_ARGS);

  it("is a done step that loads when asked, and not done once it failed to load", async () => {
    const id = "Qwen2.5-0.5B-Instruct-q4f32_1-MLC";
    const { context, page } = await newPage(gpu.browser);
    await context.route(/huggingface\.co|githubusercontent\.com/, (route) => route.abort("internetdisconnected"));
    await page.goto(`${stack.app.url}?${new URLSearchParams({ backend: "webllm", model: id })}`);
    await expectChip(page, /\(in browser\) · not downloaded/, "none");
    // Its weights in the browser's cache, as WebLLM keeps them (tiny stand-ins: no weights here).
    const base = resolveWeightsBaseUrl(findCatalogEntry(id)!.record.model);
    await page.evaluate(async (base) => {
      const cache = await caches.open("webllm/model");
      const records = [0, 1].map((i) => ({ dataPath: `params_shard_${i}.bin`, nbytes: 64, records: [] }));
      await cache.put(new URL("tensor-cache.json", base).href, new Response(JSON.stringify({ records })));
      for (const i of [0, 1]) await cache.put(new URL(`params_shard_${i}.bin`, base).href, new Response(new Uint8Array(64)));
    }, base);
    await page.reload();
    // Downloaded: done, but grey until it has loaded, and its button loads rather than downloads.
    await expectChip(page, /\(in browser\) · downloaded, not loaded/, "none");
    await expectStep(page, true);
    await steps(page)
      .getByText(/Downloaded: it loads when you ask\./)
      .waitFor();
    await shots(page, "webllm-downloaded");

    await steps(page).getByRole("button", { name: "Load now" }).click();
    await page.getByRole("alert").filter({ hasText: "The model is not available" }).waitFor({ timeout: 120_000 });
    await expectChip(page, /\(in browser\) · not available/, "err");
    await expectStep(page, false);
    await shots(page, "webllm-downloaded-load-failed");
    await context.close();
  });
});

describe("status that tells the truth: llama.cpp in the page", () => {
  const ANSWER = "The log is short.";
  let good: string;
  let unknownArch: string;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "rlm-status-"));
    good = join(dir, "tiny-qwen3.gguf");
    copyFileSync(await tinyQwenGguf(), good);
    // The tiny model renamed to an architecture llama.cpp has never heard of: its header passes
    // the page's checks, and llama.cpp refuses it at load.
    unknownArch = join(dir, "mystery-arch.gguf");
    const renamed = Buffer.from(readFileSync(good));
    const header = renamed.subarray(0, 8 << 20);
    for (let i = header.indexOf("qwen3"); i >= 0; i = header.indexOf("qwen3", i + 1)) header.write("qwenx", i);
    writeFileSync(unknownArch, renamed);
  }, 120_000);

  async function chooseModelFile(page: Page, path: string, pick: RegExp): Promise<void> {
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    await dialog.getByLabel("Model file (GGUF)").setInputFiles(path);
    await dialog.locator(".model", { hasText: pick }).getByRole("radio").check({ timeout: 60_000 });
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "detached" });
  }

  it("a file that failed to load is red after an effort change and a reload; a kept file is done, a loaded one green", async () => {
    const { context, page } = await newPage(stack.browser);
    // Every reply of the random-weight model is fixed by a grammar (a test-only hook).
    await context.addInitScript(`globalThis.__rlmTestGrammar = () => ${JSON.stringify(exactReplyGrammar(ANSWER))};`);
    await page.goto(stack.app.url);
    // No WebGPU here: llama.cpp on the CPU, and no model file yet.
    await expectChip(page, /llama\.cpp: no model file chosen/, "none");
    await expectStep(page, false);
    await shots(page, "wllama-no-file");

    await chooseModelFile(page, unknownArch, /qwenx/);
    // Kept in this browser and not known to fail: done (not green before it has loaded).
    await expectStep(page, true);
    await uploadText(page, "log.txt", "Harbour log.\n".repeat(20));
    await askQuestion(page, "How long is the log?");
    const banner = page.getByRole("alert").filter({ hasText: "The model is not available" });
    await banner.getByText(/does not know the model architecture "qwenx"/).waitFor({ timeout: 120_000 });
    await expectChip(page, /· not available/, "err");
    await newSession(page);
    await expectStep(page, false);
    await shots(page, "wllama-failed-to-load");

    // An effort is a setting, not a fix: it used to clear the failure and tick the step.
    await page.getByRole("radiogroup", { name: "Effort" }).getByText("Quick", { exact: true }).click();
    await expectChip(page, /· not available/, "err");
    await expectStep(page, false);
    // Nor is a reload: the file still cannot be loaded.
    await page.reload();
    await expectChip(page, /· not available/, "err");
    await banner.getByText(/does not know the model architecture "qwenx"/).waitFor();
    await expectStep(page, false);
    await shots(page, "wllama-failed-after-reload");

    // A file that loads: kept (done), then loaded by a question (green).
    await chooseModelFile(page, good, /\(qwen3, seed 0\)/);
    await expectChip(page, /· kept, not loaded/, "none");
    await expectStep(page, true);
    expect(await banner.count()).toBe(0);
    await shots(page, "wllama-kept");
    await uploadText(page, "log.txt", "Harbour log.\n".repeat(20));
    await askQuestion(page, "How long is the log?");
    await page.getByRole("region", { name: "Answer", exact: true }).last().getByText(ANSWER).waitFor({ timeout: 180_000 });
    await expectChip(page, /· loaded/, "ok");
    await context.close();
  }, 400_000);
});
