// GPU memory estimates per context window. WebLLM's vram_required_MB is measured at the
// record's window (4096); a bigger window grows only the KV cache, which MLC allocates up front:
//   KV bytes = layers × 2 (K and V) × kv_heads × head_dim × bytes per element × window.
// The KV cache is stored in the model's activation type: f16 for q4f16_1, f32 for q4f32_1.
// MLC keeps one KV page buffer per layer, and each is bound as one storage buffer, so a layer's
// share must also fit the adapter's maxStorageBufferBindingSize.
import type { ModelArchitecture, ModelSpec } from "./types.ts";

export const DEFAULT_CONTEXT_WINDOW = 4096;
export const CONTEXT_WINDOW_CHOICES: readonly number[] = [4096, 8192, 16_384, 32_768];

const MIB = 1024 * 1024;

export function kvBytesPerToken(arch: ModelArchitecture, f16: boolean): number {
  return arch.layers * 2 * arch.kvHeads * arch.headDim * (f16 ? 2 : 4);
}

export function kvCacheMB(arch: ModelArchitecture, f16: boolean, window: number): number {
  return (kvBytesPerToken(arch, f16) * window) / MIB;
}

/** Bytes of one layer's K+V pages: what must fit in one storage-buffer binding. */
export function kvBytesPerLayer(arch: ModelArchitecture, f16: boolean, window: number): number {
  return 2 * arch.kvHeads * arch.headDim * (f16 ? 2 : 4) * window;
}

/** The window the record's vram_required_MB was measured at. */
export function recordWindow(spec: ModelSpec): number {
  return spec.record.overrides?.context_window_size ?? DEFAULT_CONTEXT_WINDOW;
}

/** Estimated VRAM (MB) to run `spec` with `window`, or undefined when it cannot be estimated. */
export function estimateVramMB(spec: ModelSpec, window: number): number | undefined {
  if (spec.vramMB === undefined) return undefined;
  const base = recordWindow(spec);
  if (window === base) return spec.vramMB;
  if (!spec.architecture) return undefined;
  const delta = kvCacheMB(spec.architecture, spec.f16, window) - kvCacheMB(spec.architecture, spec.f16, base);
  return Math.round((spec.vramMB + delta) * 100) / 100;
}

export interface GpuBudget {
  /** GPU memory we assume the model may use (MB); WebGPU does not report VRAM, see choice.ts. */
  budgetMB: number;
  maxStorageBufferBindingSize: number;
}

export type WindowFit = "fits" | "too-big" | "unknown";

export interface WindowOption {
  window: number;
  vramMB: number | undefined;
  kvMB: number | undefined;
  fit: WindowFit;
  /** User-visible explanation, e.g. "about 3.1 GB of GPU memory". */
  note: string;
}

export function formatMB(mb: number): string {
  return mb >= 1000 ? `${(mb / 1024).toFixed(1)} GB` : `${Math.round(mb)} MB`;
}

/** The windows offered at load for `spec`, each with its VRAM estimate and whether it fits. */
export function windowOptions(spec: ModelSpec, gpu: GpuBudget | undefined): WindowOption[] {
  const choices = [...new Set([...CONTEXT_WINDOW_CHOICES, recordWindow(spec)])]
    .filter((w) => w <= spec.maxContextWindow)
    .sort((a, b) => a - b);
  return choices.map((window) => {
    const vramMB = estimateVramMB(spec, window);
    const kvMB = spec.architecture ? kvCacheMB(spec.architecture, spec.f16, window) : undefined;
    if (vramMB === undefined) {
      return { window, vramMB, kvMB, fit: "unknown", note: "GPU memory need unknown for this model" };
    }
    const about = `about ${formatMB(vramMB)} of GPU memory`;
    if (!gpu) return { window, vramMB, kvMB, fit: "unknown", note: about };
    if (spec.architecture && kvBytesPerLayer(spec.architecture, spec.f16, window) > gpu.maxStorageBufferBindingSize) {
      return { window, vramMB, kvMB, fit: "too-big", note: `${about}; exceeds this GPU's largest buffer binding` };
    }
    if (vramMB > gpu.budgetMB) {
      return { window, vramMB, kvMB, fit: "too-big", note: `${about}; more than this GPU is likely to have free` };
    }
    return { window, vramMB, kvMB, fit: "fits", note: about };
  });
}

/** 4K for catalog models (the loop derives its budgets from it); a custom model's own window. */
export function defaultWindowFor(spec: ModelSpec): number {
  return spec.custom ? recordWindow(spec) : Math.min(DEFAULT_CONTEXT_WINDOW, spec.maxContextWindow);
}

/** Memory for a root engine plus an optional separate sub-call engine (each holds its own weights and KV). */
export function estimateEnginesVramMB(
  root: { spec: ModelSpec; window: number },
  sub?: { spec: ModelSpec; window: number },
): number | undefined {
  const a = estimateVramMB(root.spec, root.window);
  if (!sub) return a;
  const b = estimateVramMB(sub.spec, sub.window);
  return a === undefined || b === undefined ? undefined : Math.round((a + b) * 100) / 100;
}
