// What a GGUF model file (or a split model's parts) is, read from its header before anything is
// loaded: the facts the memory check and the page need, and a clear reason when it is not a
// model this page can run. No DOM.
import {
  GgufFormatError,
  GgufSignatureError,
  GgufTruncatedError,
  kvNumber,
  kvString,
  readGgufHeader,
  splitPart,
  type GgufHeader,
} from "../gguf/index.ts";

export interface NamedBlob {
  name: string;
  blob: Blob;
}

export interface GgufModelInfo {
  /** The file name, or the split model's base name. */
  name: string;
  /** general.name when the file has one. */
  title: string | undefined;
  architecture: string;
  layers: number;
  kvHeads: number;
  /** Per-head sizes of K and V (key_length / value_length, or embedding / heads). */
  keyLength: number;
  valueLength: number;
  /** Window the model was trained for (`<arch>.context_length`). */
  trainedContext: number;
  /** All parts together, bytes. */
  totalBytes: number;
  parts: number;
  /** Quantization as llama.cpp names it (general.file_type), when known. */
  quantization: string | undefined;
  /** The model carries a chat template (tokenizer.chat_template); without one chat falls back to ChatML. */
  hasChatTemplate: boolean;
  /** The template knows Qwen3's enable_thinking switch. */
  thinkingSwitch: boolean;
}

export class ModelFileError extends Error {
  override name = "ModelFileError";
}

// llama.cpp's LLAMA_FTYPE names (llama.h), for the label.
const FILE_TYPES: Record<number, string> = {
  0: "F32",
  1: "F16",
  2: "Q4_0",
  3: "Q4_1",
  7: "Q8_0",
  8: "Q5_0",
  9: "Q5_1",
  10: "Q2_K",
  11: "Q3_K_S",
  12: "Q3_K_M",
  13: "Q3_K_L",
  14: "Q4_K_S",
  15: "Q4_K_M",
  16: "Q5_K_S",
  17: "Q5_K_M",
  18: "Q6_K",
  19: "IQ2_XXS",
  20: "IQ2_XS",
  21: "Q2_K_S",
  22: "IQ3_XS",
  23: "IQ3_XXS",
  24: "IQ1_S",
  25: "IQ4_NL",
  26: "IQ3_S",
  27: "IQ3_M",
  28: "IQ2_S",
  29: "IQ2_M",
  30: "IQ4_XS",
  31: "IQ1_M",
  32: "BF16",
  36: "TQ1_0",
  37: "TQ2_0",
  38: "MXFP4_MOE",
};

/**
 * Orders the parts of a split model and checks none is missing or repeated. One file that is not
 * named as a part is a whole model.
 */
export function orderParts(files: NamedBlob[]): NamedBlob[] {
  if (files.length === 0) throw new ModelFileError("No file was given.");
  const ggufs = files.filter((f) => /\.gguf$/i.test(f.name));
  if (ggufs.length === 0) {
    throw new ModelFileError(`${files.map((f) => f.name).join(", ")} is not a .gguf file. Choose a model file in GGUF format.`);
  }
  if (ggufs.length === 1 && !splitPart(ggufs[0]!.name)) return ggufs;
  const parts = ggufs.map((f) => ({ f, part: splitPart(f.name) }));
  const unsplit = parts.filter((p) => !p.part);
  if (unsplit.length) {
    throw new ModelFileError(
      `Choose one model at a time: ${unsplit.map((p) => p.f.name).join(", ")} is a whole model, not a part of a split one.`,
    );
  }
  const first = parts[0]!.part!;
  if (parts.some((p) => p.part!.base !== first.base || p.part!.count !== first.count)) {
    throw new ModelFileError("These files are parts of different models. Choose all the parts of one model.");
  }
  const byIndex = new Map(parts.map((p) => [p.part!.index, p.f]));
  const missing: number[] = [];
  for (let i = 1; i <= first.count; i++) if (!byIndex.has(i)) missing.push(i);
  if (missing.length) {
    const names = missing.map((i) => `${first.base}-${String(i).padStart(5, "0")}-of-${String(first.count).padStart(5, "0")}.gguf`);
    throw new ModelFileError(
      `This model is split into ${first.count} files and ${names.join(", ")} ${missing.length === 1 ? "is" : "are"} missing. Choose all its parts together.`,
    );
  }
  if (byIndex.size !== parts.length) throw new ModelFileError("The same part was chosen twice. Choose each part of the model once.");
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, f]) => f);
}

function checkWhole(h: GgufHeader, name: string): void {
  if (h.dataBytes === undefined) return; // a tensor type this check does not know: llama.cpp will tell
  const needed = h.dataOffset + h.dataBytes;
  if (h.fileSize < needed) {
    const pct = Math.floor((h.fileSize / needed) * 100);
    throw new ModelFileError(
      `${name} is incomplete: it holds ${h.fileSize.toLocaleString("en-US")} of the ${needed.toLocaleString("en-US")} bytes its header describes (${pct} %). ` +
        "The download was probably cut off; download it again.",
    );
  }
}

/**
 * Reads and checks a model's header(s); throws ModelFileError with what to do. `checkTemplate`
 * renders the file's chat template under a bound (the page's: template-check.ts) and says why it
 * cannot be used, or null.
 */
export async function inspectModel(
  files: NamedBlob[],
  checkTemplate?: (template: string) => Promise<string | null>,
): Promise<GgufModelInfo> {
  const parts = orderParts(files);
  const headers: GgufHeader[] = [];
  for (const p of parts) {
    try {
      headers.push(await readGgufHeader(p.blob));
    } catch (err) {
      if (err instanceof GgufTruncatedError) {
        throw new ModelFileError(
          `${p.name} is incomplete: it ends inside its own header, after ${p.blob.size.toLocaleString("en-US")} bytes. The download was probably cut off; download it again.`,
        );
      }
      if (err instanceof GgufSignatureError) {
        throw new ModelFileError(
          `${p.name} is not a GGUF model file (${err.message}). Choose a .gguf file, as LM Studio, Ollama or Jan keep them.`,
        );
      }
      if (err instanceof GgufFormatError) {
        throw new ModelFileError(
          `${p.name} cannot be used: ${err.message}. The file is damaged or was made to look like a model; choose another .gguf file.`,
        );
      }
      throw err;
    }
    checkWhole(headers[headers.length - 1]!, p.name);
  }
  const h = headers[0]!;
  const first = parts[0]!;
  const arch = kvString(h, "general.architecture");
  if (!arch) throw new ModelFileError(`${first.name} has no general.architecture: it is not a language model llama.cpp can load.`);
  if (arch === "clip")
    throw new ModelFileError(`${first.name} is a vision projector (mmproj), not a language model. Choose the model file itself.`);
  const need = (key: string): number => {
    const v = kvNumber(h, `${arch}.${key}`);
    if (v === undefined || v <= 0)
      throw new ModelFileError(
        `${first.name} lacks ${arch}.${key}, so its memory cannot be worked out. It is not a model this page can run.`,
      );
    return v;
  };
  const layers = need("block_count");
  const heads = need("attention.head_count");
  const embedding = need("embedding_length");
  const kvHeads = kvNumber(h, `${arch}.attention.head_count_kv`) || heads;
  const keyLength = kvNumber(h, `${arch}.attention.key_length`) || Math.floor(embedding / heads);
  const valueLength = kvNumber(h, `${arch}.attention.value_length`) || keyLength;
  const fileType = kvNumber(h, "general.file_type");
  const template = kvString(h, "tokenizer.chat_template");
  const problem = template?.trim() && checkTemplate ? await checkTemplate(template) : null;
  if (problem) {
    throw new ModelFileError(
      `${first.name} has a chat template (tokenizer.chat_template) that cannot be used: ${problem}. Choose another .gguf file.`,
    );
  }
  const split = splitPart(first.name);
  return {
    name: split ? `${split.base}.gguf` : first.name,
    title: kvString(h, "general.name"),
    architecture: arch,
    layers,
    kvHeads,
    keyLength,
    valueLength,
    trainedContext: kvNumber(h, `${arch}.context_length`) ?? 2048,
    totalBytes: parts.reduce((s, p) => s + p.blob.size, 0),
    parts: parts.length,
    quantization: fileType !== undefined ? FILE_TYPES[fileType] : undefined,
    hasChatTemplate: !!template,
    thinkingSwitch: !!template && template.includes("enable_thinking"),
  };
}
