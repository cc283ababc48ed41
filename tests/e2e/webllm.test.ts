// The model worker in real Chromium with SwiftShader's software WebGPU adapter (no GPU here,
// no internet): the adapter is found, the f16 twin logic sees shader-f16 missing, the catalog
// is there, and loading an uncached model ends in "download it once online", with no
// unhandled rejection anywhere.
import { describe, expect, it } from "vitest";
import { failedLoad, useWebllmPage } from "./pages/webllm/use-page.ts";
import { expectNothingFor } from "./waits.ts";

const used = useWebllmPage("dev", { webgpu: true });

describe("WebLLM worker with a software WebGPU adapter", () => {
  it("finds the adapter, reports no shader-f16, and picks the q4f32_1 twin with a note", async () => {
    const { probe, recommendation, variant } = await used.session.page.evaluate(() => window.webllmTest.probe());
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

  it("estimates the memory of the q4f32 build it chose, with f32 KV pages, against this adapter's budget and buffer limits", async () => {
    const { probe, recommendation } = await used.session.page.evaluate(() => window.webllmTest.probe());
    expect(probe.available && recommendation).toBeTruthy();
    if (!probe.available || !recommendation) return;
    // The software class's default, swapped to its 32-bit build: the f16 one could not compile here.
    expect(recommendation).toMatchObject({ id: "Qwen2.5-0.5B-Instruct-q4f32_1-MLC", f16: false, contextWindow: 4096, budgetMB: 2048 });
    const byWindow = new Map(recommendation.windows.map((w) => [w.window, w]));
    expect([...byWindow.keys()]).toEqual([4096, 8192, 16_384, 32_768]);
    // At 4K the estimate is the q4f32 record's own measured figure (the f16 build's is 944.62 MB).
    expect(byWindow.get(4096)).toMatchObject({ vramMB: 1060.2, fit: "fits", note: "about 1.0 GB of GPU memory" });
    // Qwen2.5-0.5B's KV cache in f32: 24 layers x K and V x 2 heads x 64 x 4 bytes = 96 KiB a token.
    for (const w of byWindow.values()) {
      expect(w.kvMB).toBeCloseTo((24 * 2 * 2 * 64 * 4 * w.window) / 1024 ** 2, 6);
      expect(w.vramMB).toBeCloseTo(1060.2 + w.kvMB! - 96, 2);
      // Every window's pages fit SwiftShader's 1 GiB bindings and the assumed 2 GB: all offered.
      expect(w.fit).toBe("fits");
    }
    expect(probe.limits.maxStorageBufferBindingSize).toBeGreaterThanOrEqual(2 * 2 * 64 * 4 * 32_768);
  }, 60_000);

  it("has the catalog on the main thread", async () => {
    const catalog = await used.session.page.evaluate(() => window.webllmTest.catalog());
    expect(catalog).toHaveLength(24);
    expect(catalog.map((c) => c.id)).toContain("Qwen3-4B-q4f32_1-MLC");
  });

  it("loading an uncached model offline fails with 'download it once online' and nothing unhandled", async () => {
    const result = await failedLoad(used, "Qwen2.5-0.5B-Instruct-q4f32_1-MLC");
    expect(result.name).toBe("ModelNotDownloadedError");
    expect(result.message).toMatch(/Qwen2\.5-0\.5B-Instruct-q4f32_1-MLC is not downloaded yet/);
    expect(result.message).toMatch(/Connect to the internet and load it once to download it; after that it works offline/);
    // The request really left for Hugging Face from inside the worker and was blocked.
    expect(
      used.session.blocked.some((u) => u.startsWith("https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f32_1-MLC/resolve/main/")),
    ).toBe(true);

    const cached = await used.session.page.evaluate(() => window.webllmTest.cached());
    expect(cached.models).toEqual([]);

    // A late rejection would surface after the failure: none may, in the page or the worker.
    await expectNothingFor(500, async () => {
      expect(await used.session.page.evaluate(() => window.webllmTest.problems())).toEqual({ page: [], worker: [] });
      expect(used.session.pageErrors).toEqual([]);
    });
    expect(used.session.console.filter((l) => /Uncaught/.test(l))).toEqual([]);
  }, 60_000);

  it("lists partly and fully cached weights with sizes, and deletes a model from the cache", async () => {
    const id = "Qwen3-0.6B-q4f32_1-MLC";
    const page = used.session.page;
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
    const { granted, info } = await used.session.page.evaluate(() => window.webllmTest.persist());
    expect(typeof granted).toBe("boolean");
    expect(info.quotaBytes).toBeGreaterThan(0);
    expect(info.usageBytes).toBeGreaterThanOrEqual(0);
  });
});
