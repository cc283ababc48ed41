// Per-model numbers WebLLM's records do not carry, needed to estimate the KV cache per window
// and the download size. Values are the models' config.json / model-card figures on
// huggingface.co:
//   Qwen2.5-{0.5,1.5,3,7}B-Instruct: https://huggingface.co/Qwen/Qwen2.5-<size>-Instruct
//     (model card "Number of Layers", "Number of Attention Heads (GQA): Q / KV", params; head_dim is
//     hidden_size / num_attention_heads: 896/14 = 64, 1536/12 = 128, 2048/16 = 128, 3584/28 = 128).
//   Qwen2.5-Coder-*-Instruct: https://huggingface.co/Qwen/Qwen2.5-Coder-<size>-Instruct — the same
//     shapes as the Qwen2.5 model of that size.
//   Qwen3-{0.6,1.7,4,8}B: https://huggingface.co/Qwen/Qwen3-<size> (config.json has head_dim 128;
//     num_key_value_heads 8 for all four).
// maxContextWindow is the native window (32,768). Qwen2.5-7B and Qwen3 reach 128K only with YaRN
// rope scaling, which WebLLM's prebuilt libraries do not apply, so 32K is the ceiling we offer.
import type { ModelArchitecture, QwenFamily } from "./types.ts";

export interface ArchitectureFacts extends ModelArchitecture {
  /** Parameter count in billions, embeddings included (tied embeddings counted once). */
  paramsBillions: number;
}

const NATIVE_WINDOW = 32_768;

const QWEN25: Record<string, ArchitectureFacts> = {
  "0.5B": { paramsBillions: 0.49, layers: 24, kvHeads: 2, headDim: 64, maxContextWindow: NATIVE_WINDOW },
  "1.5B": { paramsBillions: 1.54, layers: 28, kvHeads: 2, headDim: 128, maxContextWindow: NATIVE_WINDOW },
  "3B": { paramsBillions: 3.09, layers: 36, kvHeads: 2, headDim: 128, maxContextWindow: NATIVE_WINDOW },
  "7B": { paramsBillions: 7.61, layers: 28, kvHeads: 4, headDim: 128, maxContextWindow: NATIVE_WINDOW },
};

const QWEN3: Record<string, ArchitectureFacts> = {
  "0.6B": { paramsBillions: 0.6, layers: 28, kvHeads: 8, headDim: 128, maxContextWindow: NATIVE_WINDOW },
  "1.7B": { paramsBillions: 1.7, layers: 28, kvHeads: 8, headDim: 128, maxContextWindow: NATIVE_WINDOW },
  "4B": { paramsBillions: 4.0, layers: 36, kvHeads: 8, headDim: 128, maxContextWindow: NATIVE_WINDOW },
  "8B": { paramsBillions: 8.2, layers: 36, kvHeads: 8, headDim: 128, maxContextWindow: NATIVE_WINDOW },
};

export const ARCHITECTURES: Record<QwenFamily, Record<string, ArchitectureFacts>> = {
  "qwen2.5": QWEN25,
  "qwen2.5-coder": QWEN25,
  qwen3: QWEN3,
};

export function architectureFor(family: QwenFamily, params: string): ArchitectureFacts | undefined {
  return ARCHITECTURES[family][params];
}
