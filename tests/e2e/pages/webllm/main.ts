// Test page for tests/e2e/webllm*.test.ts: drives the real model worker through the same client
// and engine the app uses, and exposes a few calls on window for Playwright.
import { EngineError } from "../../../../src/engines/errors.ts";
import {
  CATALOG,
  ModelWorkerClient,
  WebLLMEngine,
  chooseVariant,
  findCatalogEntry,
  listCachedModels,
  recommendModel,
  requestPersistentStorage,
  resolveWeightsBaseUrl,
  storageInfo,
  type GpuProbe,
} from "../../../../src/engines/webllm/index.ts";

const pageProblems: string[] = [];
window.addEventListener("unhandledrejection", (e) => pageProblems.push(`unhandledrejection: ${String(e.reason)}`));
window.addEventListener("error", (e) => pageProblems.push(`error: ${e.message}`));

const client = ModelWorkerClient.spawn();

function describe(err: unknown) {
  return {
    name: err instanceof Error ? err.name : "non-error",
    message: err instanceof Error ? err.message : String(err),
    isEngineError: err instanceof EngineError,
  };
}

const api = {
  async probe() {
    const probe: GpuProbe = await client.probeGpu();
    const rec = recommendModel(probe);
    const asked = findCatalogEntry("Qwen2.5-Coder-3B-Instruct-q4f16_1-MLC")!;
    const variant = chooseVariant(asked, probe);
    return {
      probe,
      recommendation: rec
        ? {
            id: rec.entry.id,
            tier: rec.assessment.tier,
            notes: rec.notes,
            windows: rec.windows,
            contextWindow: rec.contextWindow,
            budgetMB: rec.assessment.budgetMB,
            f16: rec.entry.f16,
          }
        : null,
      variant: { id: variant.spec.id, note: variant.note ?? null },
    };
  },
  catalog() {
    return CATALOG.map((e) => ({ id: e.id, vramMB: e.vramMB, downloadMBEstimate: e.downloadMBEstimate, f16: e.f16 }));
  },
  async load(modelId: string) {
    const spec = findCatalogEntry(modelId);
    if (!spec) throw new Error(`no catalog entry ${modelId}`);
    const statuses: string[] = [];
    const started = performance.now();
    try {
      const engine = await WebLLMEngine.load({ worker: client, model: spec, onProgress: (s) => statuses.push(s.message) });
      return { ok: true as const, contextWindow: engine.contextWindow, statuses, ms: performance.now() - started };
    } catch (err) {
      return { ok: false as const, ...describe(err), statuses, ms: performance.now() - started };
    }
  },
  async cached() {
    const models = await listCachedModels(client);
    return { models: models.map((m) => m.modelId), storage: await storageInfo() };
  },
  /**
   * Puts a fake weights manifest and some shards into WebLLM's cache (same origin, so the worker
   * sees them): enough to exercise the cache listing and deletion without a real model.
   */
  async seedWeights(modelId: string, shardBytes: number[], cachedShards: number[]) {
    const spec = findCatalogEntry(modelId)!;
    const base = resolveWeightsBaseUrl(spec.record.model);
    const cache = await caches.open("webllm/model");
    const records = shardBytes.map((nbytes, i) => ({ dataPath: `params_shard_${i}.bin`, nbytes, records: [] }));
    await cache.put(new URL("tensor-cache.json", base).href, new Response(JSON.stringify({ records })));
    for (const i of cachedShards)
      await cache.put(new URL(`params_shard_${i}.bin`, base).href, new Response(new Uint8Array(shardBytes[i]!)));
  },
  async cacheStatus(modelId: string) {
    const spec = findCatalogEntry(modelId)!;
    const [status] = await client.cacheStatus([spec.record]);
    return { status, has: await client.hasModelInCache(spec.record) };
  },
  async deleteModel(modelId: string) {
    await client.deleteModel(findCatalogEntry(modelId)!.record);
    const cache = await caches.open("webllm/model");
    return (await cache.keys()).map((r) => r.url);
  },
  async persist() {
    return { granted: await requestPersistentStorage(), info: await storageInfo() };
  },
  problems() {
    return { page: [...pageProblems], worker: [...client.problems] };
  },
};

declare global {
  interface Window {
    webllmTest: typeof api;
  }
}
window.webllmTest = api;
document.getElementById("status")!.textContent = "ready";
