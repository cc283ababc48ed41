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
  /**
   * Its 896-wide rows are not whole 256-element K-quant blocks, so llama.cpp's quantizer stores
   * most matrices of a "Q4_K_M" file in a 32-element fallback type: Q4_K's speed-up is not its.
   */
  kQuantFallback?: boolean;
}

const qwen25_05 = { layers: 24, kvHeads: 2, keyLength: 64, valueLength: 64, trainedContext: 32768, kQuantFallback: true };
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
 * The download the first-visit panel offers where there is no WebGPU (issue 34 #5): the smallest
 * download whose speed was measured on its own shape (13 tokens/s reading, 8.8 writing at one
 * thread), with Qwen2.5's small KV cache (12 KiB a token), so an 8K window costs little memory.
 */
export const RECOMMENDED_CPU_MODEL = CPU_CATALOG.find((m) => m.id === "qwen2.5-0.5b-instruct-q8_0")!;

/**
 * Where a catalog model is downloaded from: Hugging Face, or `testBase` (tests only: a server on
 * 127.0.0.1, from the page's test seams, src/app/test-seams.ts; nothing in the page sets it).
 */
export function catalogUrl(model: CatalogModel, testBase?: string): string {
  if (testBase) return new URL(model.fileName, testBase).href;
  return `https://huggingface.co/${model.repo}/resolve/main/${model.fileName}`;
}

/**
 * Tokens/s in the page at one thread, measured on an idle 2-vCPU server in Chromium on
 * random-weight models of these shapes with Q8_0 matrices (bench/RESULTS.md, "llama.cpp in the
 * page"; random weights cost what real ones do).
 */
const MEASURED_Q8_0 = [
  { paramsBillions: 0.5, prefill: 13, decode: 8.8 },
  { paramsBillions: 1.5, prefill: 3, decode: 2.8 },
];
/** Q4_K against Q8_0 in the page, same 1.5B shape and run: prefill 6 against 3, decode 4.2 against 2.8. */
const Q4_K_GAIN = { prefill: 2, decode: 1.5 };

/**
 * Expected speed in the page at one thread: the nearest measured shape, scaled by parameters,
 * with Q4_K's measured gain where the model's rows take K-quants. An estimate for the person,
 * labelled as one; Settings shows what this device actually did once a question has run.
 */
export function expectedSpeed(model: CatalogModel): { prefill: number; decode: number } {
  const base = MEASURED_Q8_0.reduce((best, m) =>
    Math.abs(m.paramsBillions - model.paramsBillions) < Math.abs(best.paramsBillions - model.paramsBillions) ? m : best,
  );
  const scale = base.paramsBillions / model.paramsBillions;
  const gain = model.quantization === "Q4_K_M" && !model.kQuantFallback ? Q4_K_GAIN : { prefill: 1, decode: 1 };
  return { prefill: base.prefill * scale * gain.prefill, decode: base.decode * scale * gain.decode };
}
