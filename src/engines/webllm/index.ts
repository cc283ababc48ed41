// Local models through WebLLM. The main thread imports only this; web-llm itself (6 MB) is
// loaded by workers/browser/model.worker.ts alone.
export type { GpuProbe } from "./types.ts";
export { CATALOG, findCatalogEntry } from "./catalog.ts";
export { formatMB, windowOptions } from "./memory.ts";
export { chooseVariant, gpuBudget, recommendModel } from "./choice.ts";
export { checkCustomModel, customModelSpec, resolveWeightsBaseUrl } from "./custom-model.ts";
export { WEBGPU_SUPPORT_HINT, type CustomModelProblem } from "./errors.ts";
export { ModelWorkerClient } from "./client.ts";
export { WebLLMEngine, loadWebLLMEngines, type WebLLMEngines } from "./engine.ts";
export { listCachedModels, requestPersistentStorage, storageInfo } from "./storage.ts";
