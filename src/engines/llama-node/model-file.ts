// A GGUF model file, checked before anything is loaded: it exists, it is a GGUF, it is whole,
// llama.cpp knows its architecture, and what it costs in memory (weights, KV cache per token).
import { open, stat } from "node:fs/promises";
import { basename } from "node:path";
import type { GgufFileInfo, GgufInsights } from "node-llama-cpp";
import { ModelArchitectureError, ModelFileError } from "../errors.ts";
import type { ModelCosts } from "./memory.ts";
import type { LlamaRuntime } from "./runtime.ts";
import { modelSizeB } from "../../core/profiles/choose.ts";

export interface ModelFile extends ModelCosts {
  path: string;
  architecture: string;
  info: GgufFileInfo;
  insights: GgufInsights;
  /** Whether llama.cpp can use flash attention with this model (it can on CPU for Qwen). */
  flashAttention: boolean;
}

const GGUF_MAGIC = "GGUF";

/** Reads the header of `path` and refuses what cannot run, each with what to do instead. */
export async function inspectModelFile(path: string, runtime: LlamaRuntime): Promise<ModelFile> {
  const size = await fileSize(path);
  await checkMagic(path);
  let info: GgufFileInfo;
  try {
    info = await runtime.lib.readGgufFileInfo(path, { logWarnings: false });
  } catch (err) {
    throw new ModelFileError(
      path,
      `is damaged: its GGUF header cannot be read (${err instanceof Error ? err.message : String(err)})`,
      "Download it again.",
    );
  }
  const insights = await runtime.lib.GgufInsights.from(info, runtime.llama);
  const architecture = String(info.metadata?.general?.architecture ?? "");
  if (!insights.isSupportedByLlamaCpp) throw new ModelArchitectureError(path, architecture || "(none)", runtime.version);
  checkWhole(path, size, info, insights);
  const trainedContext = insights.trainContextSize;
  if (!trainedContext)
    throw new ModelFileError(path, "does not say what window it was trained for (no context_length)", "Use another GGUF.");
  const flashAttention = insights.flashAttentionSupported;
  return {
    path,
    label: modelLabel(path, info, insights),
    architecture,
    info,
    insights,
    flashAttention,
    weightsBytes: insights.modelSize,
    kvBytesPerToken: kvBytesPerToken(info),
    trainedContext,
    computeBytes: (window, sequences) =>
      insights.estimateContextResourceRequirements({ contextSize: window, sequences, modelGpuLayers: 0, flashAttention }).cpuRam,
  };
}

async function fileSize(path: string): Promise<number> {
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ModelFileError(path, "no such file", "Check the path given to --model-file.");
    if (code === "EACCES") throw new ModelFileError(path, "cannot be read (permission denied)", "Check the file's permissions.");
    throw new ModelFileError(path, `cannot be read (${code ?? String(err)})`, "Check the path given to --model-file.");
  }
  if (info.isDirectory()) throw new ModelFileError(path, "is a folder, not a file", "Give the path of the .gguf file itself.");
  return info.size;
}

async function checkMagic(path: string): Promise<void> {
  const file = await open(path, "r");
  const head = Buffer.alloc(4);
  try {
    await file.read(head, 0, 4, 0);
  } finally {
    await file.close();
  }
  if (head.toString("latin1") === GGUF_MAGIC) return;
  throw new ModelFileError(
    path,
    "is not a GGUF model file",
    "--model-file takes a .gguf file (llama.cpp's format, as LM Studio, Ollama and Jan store them); " +
      "convert other formats (safetensors, .bin) with llama.cpp's convert_hf_to_gguf.py.",
  );
}

/** A download cut short keeps a valid header but loses tensor data at the end. */
function checkWhole(path: string, size: number, info: GgufFileInfo, insights: GgufInsights): void {
  if (info.splicedParts > 1 || !info.tensorInfo?.length) return;
  const dataStart = Math.min(...info.tensorInfo.map((t) => Number(t.fileOffset)));
  const needed = dataStart + insights.modelSize;
  if (size >= needed) return;
  throw new ModelFileError(
    path,
    `is cut short: ${size} bytes of at least ${needed} (the download did not finish)`,
    "Download it again, or resume the download.",
  );
}

/** f16 keys and values for every layer: layers × KV heads × (key + value width) × 2 bytes. */
export function kvBytesPerToken(info: GgufFileInfo): number {
  const arch = info.architectureMetadata as {
    block_count?: number;
    embedding_length?: number;
    attention?: { head_count?: number | number[]; head_count_kv?: number | number[]; key_length?: number; value_length?: number };
  };
  const layers = arch.block_count ?? 0;
  const heads = first(arch.attention?.head_count) ?? 1;
  const kvHeads = first(arch.attention?.head_count_kv) ?? heads;
  const headWidth = (arch.embedding_length ?? 0) / heads;
  const keyWidth = arch.attention?.key_length ?? headWidth;
  const valueWidth = arch.attention?.value_length ?? headWidth;
  return layers * kvHeads * (keyWidth + valueWidth) * 2;
}

const first = (v: number | number[] | undefined) => (Array.isArray(v) ? Math.max(...v) : v);

/**
 * The model's name for trajectories and for choosing a prompt profile: the file's name without
 * hash-like runs (Ollama stores models as sha256-<hex> blobs, and "7b750a…" would read as 7B),
 * with the parameter count added when the name does not carry one (the profile is chosen by size).
 */
export function modelLabel(path: string, info: GgufFileInfo, insights: GgufInsights): string {
  const name = basename(path)
    .replace(/\.gguf$/i, "")
    .replace(/[0-9a-f]{8,}/gi, "…");
  if (modelSizeB(name) !== null) return name;
  const sizeLabel = info.metadata?.general?.size_label;
  if (typeof sizeLabel === "string" && modelSizeB(sizeLabel) !== null) return `${name} (${sizeLabel})`;
  const params = insights.totalParameters;
  const size = params >= 1e9 ? `${(params / 1e9).toFixed(1)}B` : `${Math.max(1, Math.round(params / 1e6))}M`;
  return `${name} (${size})`;
}
