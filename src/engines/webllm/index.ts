// Local models through WebLLM. The main thread imports only this; web-llm itself (6 MB) is
// loaded by workers/model.worker.ts alone.
export type {
  CatalogEntry,
  GpuAvailable,
  GpuLimits,
  GpuProbe,
  GpuUnavailable,
  ModelArchitecture,
  ModelSpec,
  Quantization,
  QwenFamily,
  WebLLMModelRecord,
} from "./types.ts";
export type {
  LoadOutcome,
  LoadRequest,
  ModelCacheStatus,
  ModelWorkerApi,
  WorkerCompletionRequest,
  WorkerCompletionResult,
  WorkerState,
} from "./protocol.ts";
export { CATALOG, estimateDownloadMB, findCatalogEntry, parseQwenModelId } from "./catalog.ts";
export {
  CONTEXT_WINDOW_CHOICES,
  DEFAULT_CONTEXT_WINDOW,
  defaultWindowFor,
  estimateEnginesVramMB,
  estimateVramMB,
  formatMB,
  kvCacheMB,
  windowOptions,
  type GpuBudget,
  type WindowFit,
  type WindowOption,
} from "./memory.ts";
export {
  TIER_DEFAULT_MODEL,
  assessGpu,
  chooseVariant,
  gpuBudget,
  recommendModel,
  type AssessOptions,
  type GpuAssessment,
  type GpuTier,
  type Recommendation,
  type VariantChoice,
} from "./choice.ts";
export { probeGpu } from "./gpu-probe.ts";
export {
  LoadProgressTracker,
  formatBytes,
  formatDuration,
  parseProgressText,
  type LoadPhase,
  type LoadProgressReport,
  type LoadStatus,
  type ParsedProgress,
} from "./progress.ts";
export { checkCustomModel, customModelSpec, resolveWeightsBaseUrl, type CustomModelCheck, type CustomModelInput } from "./custom-model.ts";
export {
  CustomModelError,
  GpuDeviceLostError,
  GpuFeatureMissingError,
  GpuLimitsError,
  GpuOutOfMemoryError,
  LocalModelError,
  LocalModelNotLoadedError,
  ModelDownloadError,
  ModelLibraryError,
  ModelLoadError,
  ModelNotDownloadedError,
  ModelWorkerCrashedError,
  WEBGPU_SUPPORT_HINT,
  WebGPUUnavailableError,
  mapWebLLMError,
  type CustomModelProblem,
  type ErrorContext,
} from "./errors.ts";
export { ModelWorkerClient, spawnModelWorker, type WorkerLike } from "./client.ts";
export {
  WebLLMEngine,
  estimateWebLLMEnginesVramMB,
  loadWebLLMEngines,
  type EngineSlot,
  type WebLLMEngineOptions,
  type WebLLMEngines,
  type WebLLMEnginesOptions,
} from "./engine.ts";
export { listCachedModels, requestPersistentStorage, storageInfo, type CachedModel, type StorageInfo } from "./storage.ts";
