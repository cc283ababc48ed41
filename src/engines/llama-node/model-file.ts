// A GGUF model file, checked before anything is loaded: it exists and is a regular file, its
// header reads (src/engines/gguf, the page's reader too) before node-llama-cpp's reader or
// llama.cpp sees it, it is whole, its chat template renders within bounds, llama.cpp knows its
// architecture, and what it costs in memory (weights, KV cache per token).
import { openAsBlob } from "node:fs";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import type { GgufFileInfo, GgufInsights } from "node-llama-cpp";
import { ModelArchitectureError, ModelFileError } from "../errors.ts";
import type { ModelCosts } from "./memory.ts";
import type { LlamaRuntime } from "./runtime.ts";
import { modelSizeB } from "../../core/profiles/choose.ts";
import {
  GgufFormatError,
  GgufSignatureError,
  GgufTruncatedError,
  kvString,
  readGgufHeader,
  shownName,
  type GgufHeader,
} from "../gguf/index.ts";
import { checkChatTemplate } from "./chat-template.ts";

export interface ModelFile extends ModelCosts {
  path: string;
  architecture: string;
  info: GgufFileInfo;
  insights: GgufInsights;
  /** Whether llama.cpp can use flash attention with this model (it can on CPU for Qwen). */
  flashAttention: boolean;
}

/** Reads the header of `path` and refuses what cannot run, each with what to do instead. */
export async function inspectModelFile(path: string, runtime: LlamaRuntime): Promise<ModelFile> {
  const size = await fileSize(path);
  const header = await readHeader(path);
  checkWhole(path, size, header);
  if (!kvString(header, "general.architecture")) {
    throw new ModelFileError(path, "has no general.architecture: it is not a language model llama.cpp can load", "Use another GGUF.");
  }
  // In a worker thread, meanwhile: awaited before anything that renders the template (loading does).
  const template = refuseBadTemplate(path, kvString(header, "tokenizer.chat_template"));
  template.catch(() => undefined);
  let info: GgufFileInfo;
  let insights: GgufInsights;
  try {
    info = await runtime.lib.readGgufFileInfo(path, { logWarnings: false });
    refuseWideNumbers(path, info);
    insights = await runtime.lib.GgufInsights.from(info, runtime.llama);
  } catch (err) {
    if (err instanceof ModelFileError) throw err;
    throw new ModelFileError(path, `is damaged: its GGUF header cannot be read (${firstLine(err)})`, "Download it again.");
  }
  const architecture = String(info.metadata?.general?.architecture ?? "");
  if (!insights.isSupportedByLlamaCpp) throw new ModelArchitectureError(path, architecture || "(none)", runtime.version);
  const trainedContext = insights.trainContextSize;
  if (!trainedContext)
    throw new ModelFileError(path, "does not say what window it was trained for (no context_length)", "Use another GGUF.");
  const flashAttention = insights.flashAttentionSupported;
  await template;
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

const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 300);

/** The file's size; anything but a regular file is refused from its status alone, never opened (a FIFO would block the read). */
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
  if (!info.isFile()) {
    const kind = info.isFIFO() ? "a named pipe (FIFO)" : info.isSocket() ? "a socket" : "a device";
    throw new ModelFileError(path, `is ${kind}, not a regular file`, "Give the path of a .gguf file saved on disk.");
  }
  return info.size;
}

/** The header, read by the shared reader; every refusal is one line saying what is wrong. */
async function readHeader(path: string): Promise<GgufHeader> {
  try {
    return await readGgufHeader(await openAsBlob(path));
  } catch (err) {
    if (err instanceof GgufSignatureError) {
      throw new ModelFileError(
        path,
        "is not a GGUF model file",
        "--model-file takes a .gguf file (llama.cpp's format, as LM Studio, Ollama and Jan store them); " +
          "convert other formats (safetensors, .bin) with llama.cpp's convert_hf_to_gguf.py.",
      );
    }
    if (err instanceof GgufTruncatedError) throw new ModelFileError(path, `is cut short: ${err.message}`, "Download it again.");
    if (err instanceof GgufFormatError) {
      throw new ModelFileError(
        path,
        `cannot be used: ${err.message}`,
        "The file is damaged or was made to look like a model; use another GGUF.",
      );
    }
    throw new ModelFileError(path, `cannot be read (${firstLine(err)})`, "Check the path given to --model-file.");
  }
}

/**
 * llama.cpp reads an architecture's numbers (context_length, block_count, …) as 32-bit values and
 * refuses other widths; node-llama-cpp hands a 64-bit one on as a BigInt, and the memory sums then
 * failed with "Cannot mix BigInt and other types".
 */
function refuseWideNumbers(path: string, info: GgufFileInfo): void {
  const walk = (value: unknown, key: string): void => {
    if (typeof value === "bigint") {
      throw new ModelFileError(path, `stores ${shownName(key)} as a 64-bit integer, which llama.cpp does not read`, "Use another GGUF.");
    }
    if (value && typeof value === "object" && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, `${key}.${k}`);
    }
  };
  walk(info.architectureMetadata, String(info.metadata?.general?.architecture ?? ""));
}

/** A download cut short keeps a valid header but loses tensor data at the end. */
function checkWhole(path: string, size: number, header: GgufHeader): void {
  if (header.dataBytes === undefined || !header.tensors.length) return; // a tensor type the reader does not size: llama.cpp will tell
  const needed = header.dataOffset + header.dataBytes;
  if (size >= needed) return;
  throw new ModelFileError(
    path,
    `is cut short: ${size} bytes of at least ${needed} (the download did not finish)`,
    "Download it again, or resume the download.",
  );
}

/** The file's own template must render a short chat within bounds before node-llama-cpp renders it, unbounded, in this thread. */
async function refuseBadTemplate(path: string, template: string | undefined): Promise<void> {
  if (!template?.trim()) return;
  const problem = await checkChatTemplate(template);
  if (problem) {
    throw new ModelFileError(
      path,
      `has a chat template (tokenizer.chat_template) that cannot be used: ${problem}`,
      "Use another GGUF, or a copy of this one with a working template.",
    );
  }
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
