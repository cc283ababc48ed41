// GGUF models offered for download (Qwen's own GGUF repositories). No DOM. Sizes marked
// "published" come from the reference notes (docs/ of the research, wllama's demo list); the
// others are estimates from the parameter count and the quantization, and the download shows
// the true size once the server answers.
import type { KvShape } from "./memory.ts";

export interface CatalogModel extends KvShape {
  id: string;
  label: string;
  family: "Qwen2.5-Instruct" | "Qwen3";
  paramsBillions: number;
  quantization: "Q4_K_M" | "Q8_0";
  fileName: string;
  repo: string;
  downloadMB: number;
  sizeIs: "published" | "estimate";
  trainedContext: number;
}

const qwen25_05 = { layers: 24, kvHeads: 2, keyLength: 64, valueLength: 64, trainedContext: 32768 };
const qwen25_15 = { layers: 28, kvHeads: 2, keyLength: 128, valueLength: 128, trainedContext: 32768 };
const qwen3 = { layers: 28, kvHeads: 8, keyLength: 128, valueLength: 128, trainedContext: 40960 };

export const CPU_CATALOG: readonly CatalogModel[] = [
  {
    id: "qwen2.5-0.5b-instruct-q4_k_m",
    label: "Qwen2.5 0.5B Instruct (Q4_K_M)",
    family: "Qwen2.5-Instruct",
    paramsBillions: 0.5,
    quantization: "Q4_K_M",
    fileName: "qwen2.5-0.5b-instruct-q4_k_m.gguf",
    repo: "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
    downloadMB: 400,
    sizeIs: "estimate",
    ...qwen25_05,
  },
  {
    id: "qwen2.5-0.5b-instruct-q8_0",
    label: "Qwen2.5 0.5B Instruct (Q8_0)",
    family: "Qwen2.5-Instruct",
    paramsBillions: 0.5,
    quantization: "Q8_0",
    fileName: "qwen2.5-0.5b-instruct-q8_0.gguf",
    repo: "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
    downloadMB: 676,
    sizeIs: "published",
    ...qwen25_05,
  },
  {
    id: "qwen2.5-1.5b-instruct-q4_k_m",
    label: "Qwen2.5 1.5B Instruct (Q4_K_M)",
    family: "Qwen2.5-Instruct",
    paramsBillions: 1.5,
    quantization: "Q4_K_M",
    fileName: "qwen2.5-1.5b-instruct-q4_k_m.gguf",
    repo: "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
    downloadMB: 1117,
    sizeIs: "estimate",
    ...qwen25_15,
  },
  {
    id: "qwen2.5-1.5b-instruct-q8_0",
    label: "Qwen2.5 1.5B Instruct (Q8_0)",
    family: "Qwen2.5-Instruct",
    paramsBillions: 1.5,
    quantization: "Q8_0",
    fileName: "qwen2.5-1.5b-instruct-q8_0.gguf",
    repo: "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
    downloadMB: 1890,
    sizeIs: "estimate",
    ...qwen25_15,
  },
  {
    id: "qwen3-0.6b-q4_k_m",
    label: "Qwen3 0.6B (Q4_K_M)",
    family: "Qwen3",
    paramsBillions: 0.6,
    quantization: "Q4_K_M",
    fileName: "Qwen3-0.6B-Q4_K_M.gguf",
    repo: "Qwen/Qwen3-0.6B-GGUF",
    downloadMB: 397,
    sizeIs: "published",
    ...qwen3,
  },
  {
    id: "qwen3-0.6b-q8_0",
    label: "Qwen3 0.6B (Q8_0)",
    family: "Qwen3",
    paramsBillions: 0.6,
    quantization: "Q8_0",
    fileName: "Qwen3-0.6B-Q8_0.gguf",
    repo: "Qwen/Qwen3-0.6B-GGUF",
    downloadMB: 639,
    sizeIs: "published",
    ...qwen3,
  },
  {
    id: "qwen3-1.7b-q4_k_m",
    label: "Qwen3 1.7B (Q4_K_M)",
    family: "Qwen3",
    paramsBillions: 1.7,
    quantization: "Q4_K_M",
    fileName: "Qwen3-1.7B-Q4_K_M.gguf",
    repo: "Qwen/Qwen3-1.7B-GGUF",
    downloadMB: 1107,
    sizeIs: "published",
    ...qwen3,
  },
  {
    id: "qwen3-1.7b-q8_0",
    label: "Qwen3 1.7B (Q8_0)",
    family: "Qwen3",
    paramsBillions: 1.7,
    quantization: "Q8_0",
    fileName: "Qwen3-1.7B-Q8_0.gguf",
    repo: "Qwen/Qwen3-1.7B-GGUF",
    downloadMB: 1830,
    sizeIs: "estimate",
    ...qwen3,
  },
];

/**
 * Where a catalog model is downloaded from. Tests point the catalog at a server on 127.0.0.1
 * through the test-only global `__rlmTestCatalogBase` (set by an init script; nothing in the
 * page, its settings or links sets it).
 */
export function catalogUrl(model: CatalogModel): string {
  const base = (globalThis as { __rlmTestCatalogBase?: unknown }).__rlmTestCatalogBase;
  if (typeof base === "string" && base) return new URL(model.fileName, base).href;
  return `https://huggingface.co/${model.repo}/resolve/main/${model.fileName}`;
}

/**
 * Expected speed in the page at one thread, scaled by size from the one measured point
 * (bench/RESULTS.md: a 0.5B Q8_0 shape, prefill ~8 and decode ~5 tokens/s on a busy 2-vCPU
 * server). An estimate for the person, labelled as one.
 */
export function expectedSpeed(model: CatalogModel): { prefill: number; decode: number } {
  const scale = 0.5 / model.paramsBillions;
  const quant = model.quantization === "Q4_K_M" ? 1.3 : 1; // fewer bytes to read per token
  return { prefill: 8 * scale, decode: 5 * scale * quant };
}
