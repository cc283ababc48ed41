// Plain data shared by the main thread and the model worker. Nothing here imports web-llm
// values: the main thread must stay free of its 6 MB bundle.

/**
 * The part of a WebLLM `ModelRecord` we use. It is structurally a web-llm `ModelRecord`, so the
 * worker can put it straight into an `AppConfig.model_list`.
 */
export interface WebLLMModelRecord {
  model_id: string;
  /** Absolute URL of the weights folder; WebLLM appends `resolve/main/` unless it has `/resolve/<rev>/`. */
  model: string;
  /** Absolute URL of the compiled model library (.wasm). */
  model_lib: string;
  /** VRAM WebLLM's authors measured at the record's own window (4096 for every Qwen record). */
  vram_required_MB?: number;
  low_resource_required?: boolean;
  required_features?: string[];
  overrides?: { context_window_size?: number; sliding_window_size?: number; max_history_size?: number };
}

export type QwenFamily = "qwen2.5" | "qwen2.5-coder" | "qwen3";
export type Quantization = "q4f16_1" | "q4f32_1";

/** What the KV-cache size depends on (from each model's config.json; see architectures.ts). */
export interface ModelArchitecture {
  layers: number;
  kvHeads: number;
  headDim: number;
  /** Longest window the model was trained for (tokens). */
  maxContextWindow: number;
}

/** Anything the engine can load: a catalog entry or a validated custom model. */
export interface ModelSpec {
  id: string;
  /** Short human name, e.g. "Qwen2.5-Coder 3B (q4f16)". */
  label: string;
  record: WebLLMModelRecord;
  /** Needs the `shader-f16` GPU feature. */
  f16: boolean;
  /** VRAM at the 4096 window, when known. */
  vramMB: number | undefined;
  /** Largest window offered at load. */
  maxContextWindow: number;
  /** Present when the KV cache can be estimated per window. */
  architecture: ModelArchitecture | undefined;
  /** Qwen3-style models think by default; the engine can switch that off. */
  supportsThinkingToggle: boolean;
  custom: boolean;
}

export interface CatalogEntry extends ModelSpec {
  family: QwenFamily;
  /** e.g. "3B", "0.6B". */
  params: string;
  paramsBillions: number;
  quantization: Quantization;
  lowResource: boolean;
  /** Estimated download (weights + tokenizer + library), MB. WebLLM's records do not list it. */
  downloadMBEstimate: number;
  /** The same model in the other quantization (q4f16_1 <-> q4f32_1). */
  twinId: string | undefined;
  custom: false;
}

/** What the model worker learns about the GPU without loading a model. */
export type GpuProbe = GpuAvailable | GpuUnavailable;

export interface GpuLimits {
  maxBufferSize: number;
  maxStorageBufferBindingSize: number;
  maxComputeWorkgroupStorageSize: number;
  maxStorageBuffersPerShaderStage: number;
  maxComputeInvocationsPerWorkgroup: number;
}

export interface GpuAvailable {
  available: true;
  vendor: string;
  architecture: string;
  description: string;
  /** A software or otherwise limited adapter (SwiftShader reports true). */
  isFallbackAdapter: boolean;
  shaderF16: boolean;
  limits: GpuLimits;
  /** navigator.deviceMemory (GB of RAM, rounded by the browser), when the browser exposes it. */
  deviceMemoryGB: number | undefined;
}

export interface GpuUnavailable {
  available: false;
  /** no-api: navigator.gpu is missing; no-adapter: requestAdapter() gave null; error: it threw. */
  reason: "no-api" | "no-adapter" | "error";
  detail: string;
  deviceMemoryGB: number | undefined;
}
