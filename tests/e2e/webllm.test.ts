// The model worker in real Chromium with SwiftShader's software WebGPU adapter (no GPU here,
// no internet): the adapter is found, the f16 twin logic sees shader-f16 missing, the catalog
// is there, and loading an uncached model ends in "download it once online", with no
// unhandled rejection anywhere.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPage, startPageServer, type BrowserSession, type PageServer } from "./pages/webllm/harness.ts";
import { expectNothingFor } from "./waits.ts";

let server: PageServer;
let session: BrowserSession;

beforeAll(async () => {
  server = await startPageServer("dev");
  session = await openPage(server.url, { webgpu: true });
}, 90_000);

afterAll(async () => {
  await session?.close();
  await server?.close();
});

describe("WebLLM worker with a software WebGPU adapter", () => {
  it("finds the adapter, reports no shader-f16, and picks the q4f32_1 twin with a note", async () => {
    const { probe, recommendation, variant } = await session.page.evaluate(() => window.webllmTest.probe());
    expect(probe.available).toBe(true);
    if (!probe.available) return;
    expect(probe.shaderF16).toBe(false);
    expect(probe.architecture).toBe("swiftshader");
    expect(probe.limits.maxStorageBufferBindingSize).toBeGreaterThan(0);
    expect(recommendation?.tier).toBe("software");
    expect(recommendation?.id).toMatch(/-q4f32_1-MLC$/);
    expect(recommendation?.notes.join(" ")).toMatch(/shader-f16/);
    expect(variant.id).toBe("Qwen2.5-Coder-3B-Instruct-q4f32_1-MLC");
    expect(variant.note).toMatch(/does not support 16-bit floats in shaders \(shader-f16\)/);
  }, 60_000);

  it("has the catalog on the main thread", async () => {
    const catalog = await session.page.evaluate(() => window.webllmTest.catalog());
    expect(catalog).toHaveLength(24);
    expect(catalog.map((c) => c.id)).toContain("Qwen3-4B-q4f32_1-MLC");
  });

  it("loading an uncached model offline fails with 'download it once online' and nothing unhandled", async () => {
    const result = await session.page.evaluate(() => window.webllmTest.load("Qwen2.5-0.5B-Instruct-q4f32_1-MLC"));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.name).toBe("ModelNotDownloadedError");
    expect(result.isEngineError).toBe(true);
    expect(result.message).toMatch(/Qwen2\.5-0\.5B-Instruct-q4f32_1-MLC is not downloaded yet/);
    expect(result.message).toMatch(/Connect to the internet and load it once to download it; after that it works offline/);
    // The request really left for Hugging Face from inside the worker and was blocked.
    expect(session.blocked.some((u) => u.startsWith("https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f32_1-MLC/resolve/main/"))).toBe(
      true,
    );

    const cached = await session.page.evaluate(() => window.webllmTest.cached());
    expect(cached.models).toEqual([]);

    // A late rejection would surface after the failure: none may, in the page or the worker.
    await expectNothingFor(500, async () => {
      expect(await session.page.evaluate(() => window.webllmTest.problems())).toEqual({ page: [], worker: [] });
      expect(session.pageErrors).toEqual([]);
    });
    expect(session.console.filter((l) => /Uncaught/.test(l))).toEqual([]);
  }, 60_000);

  it("lists partly and fully cached weights with sizes, and deletes a model from the cache", async () => {
    const id = "Qwen3-0.6B-q4f32_1-MLC";
    const page = session.page;
    await page.evaluate((m) => window.webllmTest.seedWeights(m, [1000, 2000, 3000], [0, 2]), id);
    const partial = await page.evaluate((m) => window.webllmTest.cacheStatus(m), id);
    expect(partial).toEqual({ status: { modelId: id, complete: false, cachedBytes: 4000, totalBytes: 6000 }, has: false });
    expect((await page.evaluate(() => window.webllmTest.cached())).models).toEqual([id]);

    await page.evaluate((m) => window.webllmTest.seedWeights(m, [1000, 2000, 3000], [1]), id);
    const full = await page.evaluate((m) => window.webllmTest.cacheStatus(m), id);
    expect(full).toEqual({ status: { modelId: id, complete: true, cachedBytes: 6000, totalBytes: 6000 }, has: true });

    const left = await page.evaluate((m) => window.webllmTest.deleteModel(m), id);
    expect(left).toEqual([]);
    expect((await page.evaluate((m) => window.webllmTest.cacheStatus(m), id)).status).toEqual({
      modelId: id,
      complete: false,
      cachedBytes: 0,
      totalBytes: null,
    });
  }, 60_000);

  it("asks for persistent storage and reports usage and quota", async () => {
    const { granted, info } = await session.page.evaluate(() => window.webllmTest.persist());
    expect(typeof granted).toBe("boolean");
    expect(info.quotaBytes).toBeGreaterThan(0);
    expect(info.usageBytes).toBeGreaterThanOrEqual(0);
  });
});
