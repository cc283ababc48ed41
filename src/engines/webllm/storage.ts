// Browser storage for model weights: WebLLM keeps them in Cache Storage (webllm/model,
// webllm/wasm, webllm/config), 1–5 GB per model. Without persistent storage the browser may
// evict them under pressure, and the next load would download them again.
import { CATALOG } from "./catalog.ts";
import type { ModelCacheStatus, ModelWorkerApi } from "./protocol.ts";
import type { ModelSpec } from "./types.ts";

interface StorageManagerLike {
  persist?: () => Promise<boolean>;
  persisted?: () => Promise<boolean>;
  estimate?: () => Promise<{ usage?: number; quota?: number }>;
}

function storageManager(): StorageManagerLike | undefined {
  return (globalThis as { navigator?: { storage?: StorageManagerLike } }).navigator?.storage;
}

/** Asks the browser not to evict our data; resolves to whether storage is now persistent. */
export async function requestPersistentStorage(): Promise<boolean | undefined> {
  const storage = storageManager();
  if (!storage?.persist) return undefined;
  try {
    if (storage.persisted && (await storage.persisted())) return true;
    return await storage.persist();
  } catch {
    return undefined;
  }
}

export interface StorageInfo {
  persisted: boolean | undefined;
  usageBytes: number | undefined;
  quotaBytes: number | undefined;
}

export async function storageInfo(): Promise<StorageInfo> {
  const storage = storageManager();
  const persisted = storage?.persisted ? await storage.persisted().catch(() => undefined) : undefined;
  const estimate = storage?.estimate ? await storage.estimate().catch(() => undefined) : undefined;
  return { persisted, usageBytes: estimate?.usage, quotaBytes: estimate?.quota };
}

export interface CachedModel extends ModelCacheStatus {
  spec: ModelSpec;
}

/** Models with anything in the cache (complete or partly downloaded), with their sizes. */
export async function listCachedModels(worker: ModelWorkerApi, specs: readonly ModelSpec[] = CATALOG): Promise<CachedModel[]> {
  const statuses = await worker.cacheStatus(specs.map((s) => s.record));
  const out: CachedModel[] = [];
  statuses.forEach((status, i) => {
    const spec = specs[i];
    if (spec && (status.complete || status.cachedBytes > 0)) out.push({ ...status, spec });
  });
  return out;
}
