// Reads a GGUF file's header (key-value pairs and tensor table) from a Blob, in JavaScript, so a
// model is checked before llama.cpp is asked to load it: is it GGUF at all, which architecture,
// how big its KV cache is per token, and is the file whole. The page (wllama) and the command line
// (node-llama-cpp, `rlm --model-file`) both read a file through this one reader first: no Blob API
// beyond slice(), so a file in Node is `fs.openAsBlob`. The format:
// https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
//
// The header is untrusted. Every count, length and dimension is checked against the bytes the file
// has left before anything is allocated or looped over: a 105-byte file claiming 2^40 tensors made
// node-llama-cpp's reader loop with memory growing and no message (issue 32). Only the header is
// read (a tokenizer array of 151K strings is ~3 MB of it), in 1 MiB slices.

const MAGIC = 0x46554747; // "GGUF" little-endian
const READ_BLOCK = 1 << 20;

/** ggml's GGML_MAX_DIMS: a tensor has at most 4 dimensions. */
const MAX_DIMS = 4;
/** Far above any real model (a 671B MoE has ~1,100 tensors and ~50 pairs), far below a hang. */
const MAX_TENSORS = 1_000_000;
const MAX_PAIRS = 100_000;
/** Vocabularies and merge lists are under a million entries; this bounds the loop that skips them. */
const MAX_ARRAY = 1 << 24;
/** A chat template is tens of KB; no header string needs more. */
const MAX_STRING = 64 << 20;
/** Smallest bytes a key-value pair (key length, type, a one-byte value) and a tensor entry take. */
const MIN_PAIR_BYTES = 8 + 4 + 1;
const MIN_TENSOR_BYTES = 8 + 4 + 4 + 8;

export class GgufFormatError extends Error {
  override name = "GgufFormatError";
}

/** Not a GGUF at all (no signature, or too short to have one). */
export class GgufSignatureError extends GgufFormatError {
  override name = "GgufSignatureError";
}

/** The file stops before its header does: a GGUF whose download or copy was cut off. */
export class GgufTruncatedError extends GgufFormatError {
  override name = "GgufTruncatedError";
}

const count = (n: number | bigint) => n.toLocaleString("en-US");

/**
 * A key or tensor name from the file, fit for a one-line message: control characters shown as
 * escapes (a name may carry a terminal escape sequence or a newline), at most 80 characters.
 */
export function shownName(name: string): string {
  const safe = name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return safe.length > 80 ? `${safe.slice(0, 80)}…` : safe;
}

export type GgufValue = number | bigint | boolean | string | GgufValue[] | { arrayOf: number; length: number };

export interface GgufTensorInfo {
  name: string;
  dims: number[];
  type: number;
  /** Offset from the start of the data section. */
  offset: number;
}

export interface GgufHeader {
  version: number;
  /** Key-value pairs; long arrays (tokens, merges) are summarised as { arrayOf, length }. */
  kv: Map<string, GgufValue>;
  tensors: GgufTensorInfo[];
  /** Where the key-value pairs end and the tensor table begins. */
  kvEnd: number;
  /** Where the tensor table ends (before the padding to dataOffset). */
  tensorsEnd: number;
  /** Where tensor data starts in this file (aligned). */
  dataOffset: number;
  /** Bytes the tensors need after dataOffset, when every tensor type is known. */
  dataBytes: number | undefined;
  fileSize: number;
}

/** Bytes per block and elements per block of ggml's tensor types (ggml.c type_traits). */
const TYPE_SIZE: Record<number, [blockElems: number, blockBytes: number]> = {
  0: [1, 4], // F32
  1: [1, 2], // F16
  2: [32, 18], // Q4_0
  3: [32, 20], // Q4_1
  6: [32, 22], // Q5_0
  7: [32, 24], // Q5_1
  8: [32, 34], // Q8_0
  9: [32, 36], // Q8_1
  10: [256, 84], // Q2_K
  11: [256, 110], // Q3_K
  12: [256, 144], // Q4_K
  13: [256, 176], // Q5_K
  14: [256, 210], // Q6_K
  15: [256, 292], // Q8_K
  16: [256, 66], // IQ2_XXS
  17: [256, 74], // IQ2_XS
  18: [256, 98], // IQ3_XXS
  19: [256, 50], // IQ1_S
  20: [32, 18], // IQ4_NL
  21: [256, 110], // IQ3_S
  22: [256, 82], // IQ2_S
  23: [256, 136], // IQ4_XS
  24: [1, 1], // I8
  25: [1, 2], // I16
  26: [1, 4], // I32
  27: [1, 8], // I64
  28: [1, 8], // F64
  29: [256, 56], // IQ1_M
  30: [1, 2], // BF16
  34: [256, 54], // TQ1_0
  35: [256, 66], // TQ2_0
  39: [32, 17], // MXFP4
};

/** Sequential little-endian reads over a Blob, fetched in 1 MiB slices as needed. */
class BlobCursor {
  private buf = new Uint8Array(0);
  private view = new DataView(this.buf.buffer);
  private bufStart = 0;
  pos = 0;

  constructor(private readonly blob: Blob) {}

  /** Bytes after the cursor. */
  get left(): number {
    return this.blob.size - this.pos;
  }

  private async ensure(n: number): Promise<void> {
    if (this.pos >= this.bufStart && this.pos + n <= this.bufStart + this.buf.length) return;
    if (this.pos + n > this.blob.size) throw new GgufTruncatedError("the file ends inside its header");
    const end = Math.min(this.blob.size, this.pos + Math.max(n, READ_BLOCK));
    this.buf = new Uint8Array(await this.blob.slice(this.pos, end).arrayBuffer());
    this.view = new DataView(this.buf.buffer);
    this.bufStart = this.pos;
  }

  /** Moves past `n` bytes that must be in the file. */
  skip(n: number): void {
    if (n > this.left) throw new GgufTruncatedError("the file ends inside its header");
    this.pos += n;
  }

  async u32(): Promise<number> {
    await this.ensure(4);
    const v = this.view.getUint32(this.pos - this.bufStart, true);
    this.pos += 4;
    return v;
  }

  /** A uint64 count, length or offset; `what` names it when it is past what a number can hold. */
  async u64(what: string): Promise<number> {
    await this.ensure(8);
    const v = this.view.getBigUint64(this.pos - this.bufStart, true);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new GgufFormatError(`${what} is ${count(v)}, impossibly large`);
    return Number(v);
  }

  async scalar(type: number): Promise<number | bigint | boolean> {
    const size = SCALAR_SIZE[type];
    if (!size) throw new GgufFormatError(`a value has unknown type ${type}`);
    await this.ensure(size);
    const o = this.pos - this.bufStart;
    this.pos += size;
    const v = this.view;
    switch (type) {
      case 0:
        return v.getUint8(o);
      case 1:
        return v.getInt8(o);
      case 2:
        return v.getUint16(o, true);
      case 3:
        return v.getInt16(o, true);
      case 4:
        return v.getUint32(o, true);
      case 5:
        return v.getInt32(o, true);
      case 6:
        return v.getFloat32(o, true);
      case 7:
        return v.getUint8(o) !== 0;
      case 10:
        return v.getBigUint64(o, true);
      case 11:
        return v.getBigInt64(o, true);
      default:
        return v.getFloat64(o, true);
    }
  }

  /** A string's length, checked against the limit and the bytes left; `what` names the string. */
  private async stringLength(what: string): Promise<number> {
    const len = await this.u64(`the length of ${what}`);
    if (len > MAX_STRING) throw new GgufFormatError(`${what} claims ${count(len)} bytes (no header string needs more than 64 MiB)`);
    if (len > this.left) throw new GgufTruncatedError(`the file ends inside its header (${what} claims ${count(len)} bytes)`);
    return len;
  }

  async string(what: string): Promise<string> {
    const len = await this.stringLength(what);
    await this.ensure(len);
    const o = this.pos - this.bufStart;
    this.pos += len;
    return new TextDecoder().decode(this.buf.subarray(o, o + len));
  }

  async skipString(what: string): Promise<void> {
    this.skip(await this.stringLength(what));
  }
}

/** Bytes of each scalar value type (8 is a string, 9 an array). */
const SCALAR_SIZE = [1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8];

/** Arrays longer than this are summarised (a vocabulary is not needed to check a model). */
const KEEP_ARRAY = 64;

async function readValue(c: BlobCursor, type: number, key: string): Promise<GgufValue> {
  if (type === 8) return c.string(`the value of ${key}`);
  if (type !== 9) {
    const v = await c.scalar(type);
    return typeof v === "bigint" && v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  }
  const itemType = await c.u32();
  const length = await c.u64(`the length of ${key}`);
  if (itemType === 9) throw new GgufFormatError(`${key} is an array of arrays, which GGUF readers do not support`);
  const itemBytes = itemType === 8 ? 8 : SCALAR_SIZE[itemType];
  if (!itemBytes) throw new GgufFormatError(`${key} is an array of unknown type ${itemType}`);
  if (length > MAX_ARRAY)
    throw new GgufFormatError(`${key} claims ${count(length)} items (no header array has more than ${count(MAX_ARRAY)})`);
  if (length * itemBytes > c.left) {
    throw new GgufTruncatedError(
      `the file ends inside its header (${key} claims ${count(length)} items, more than the ${count(c.left)} bytes left)`,
    );
  }
  if (length > KEEP_ARRAY) {
    if (itemType === 8) for (let i = 0; i < length; i++) await c.skipString(`an item of ${key}`);
    else c.skip(length * itemBytes);
    return { arrayOf: itemType, length };
  }
  const out: GgufValue[] = [];
  for (let i = 0; i < length; i++) out.push(await readValue(c, itemType, key));
  return out;
}

export function tensorBytes(dims: number[], type: number): number | undefined {
  const size = TYPE_SIZE[type];
  if (!size) return undefined;
  const elems = dims.reduce((a, b) => a * b, 1);
  return Math.ceil(elems / size[0]) * size[1];
}

/** The version, tensor count and pair count, each checked before any of them is looped over. */
async function readCounts(c: BlobCursor, size: number): Promise<{ version: number; tensorCount: number; kvCount: number }> {
  if (size < 24) throw new GgufSignatureError("the file is too short to be a GGUF model");
  if ((await c.u32()) !== MAGIC) throw new GgufSignatureError("it does not start with the GGUF signature");
  const version = await c.u32();
  if (version < 2 || version > 3) throw new GgufFormatError(`unsupported GGUF version ${version} (llama.cpp reads versions 2 and 3)`);
  const tensorCount = await c.u64("its tensor count");
  const kvCount = await c.u64("its key-value pair count");
  if (tensorCount > MAX_TENSORS)
    throw new GgufFormatError(`its header claims ${count(tensorCount)} tensors (no model has more than ${count(MAX_TENSORS)})`);
  if (kvCount > MAX_PAIRS)
    throw new GgufFormatError(`its header claims ${count(kvCount)} key-value pairs (no model has more than ${count(MAX_PAIRS)})`);
  const least = tensorCount * MIN_TENSOR_BYTES + kvCount * MIN_PAIR_BYTES;
  if (least > c.left) {
    throw new GgufTruncatedError(
      `the file ends inside its header (it claims ${count(kvCount)} key-value pairs and ${count(tensorCount)} tensors, which take at least ${count(least)} bytes; ${count(c.left)} are left)`,
    );
  }
  return { version, tensorCount, kvCount };
}

async function readPairs(c: BlobCursor, kvCount: number): Promise<Map<string, GgufValue>> {
  const kv = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    const key = await c.string("a key");
    if (kv.has(key)) throw new GgufFormatError(`the key ${shownName(key)} appears twice`);
    const type = await c.u32();
    kv.set(key, await readValue(c, type, shownName(key)));
  }
  return kv;
}

/** general.alignment, which must be a power of two (ggml's rule); 32 when absent. */
function alignmentOf(kv: Map<string, GgufValue>): number {
  const value = kv.get("general.alignment");
  if (value === undefined) return 32;
  if (typeof value !== "number" || value < 1 || value > 1 << 30 || (value & (value - 1)) !== 0) {
    throw new GgufFormatError(`general.alignment is ${String(value)}, not a power of two`);
  }
  return value;
}

async function readTensor(c: BlobCursor, alignment: number, names: Set<string>): Promise<GgufTensorInfo> {
  const name = await c.string("a tensor name");
  const shown = shownName(name);
  if (names.has(name)) throw new GgufFormatError(`the tensor ${shown} appears twice`);
  names.add(name);
  const nDims = await c.u32();
  if (nDims < 1 || nDims > MAX_DIMS)
    throw new GgufFormatError(`the tensor ${shown} claims ${count(nDims)} dimensions (ggml tensors have 1 to ${MAX_DIMS})`);
  const dims: number[] = [];
  let elements = 1;
  for (let d = 0; d < nDims; d++) {
    const n = await c.u64(`a dimension of the tensor ${shown}`);
    dims.push(n);
    elements *= n;
    if (elements > Number.MAX_SAFE_INTEGER) throw new GgufFormatError(`the tensor ${shown} claims more elements than ggml can count`);
  }
  const type = await c.u32();
  const block = TYPE_SIZE[type];
  if (block && dims[0]! % block[0] !== 0) {
    throw new GgufFormatError(`the tensor ${shown} has rows of ${count(dims[0]!)} elements, not whole blocks of its type`);
  }
  const offset = await c.u64(`the offset of the tensor ${shown}`);
  if (offset % alignment !== 0)
    throw new GgufFormatError(`the tensor ${shown} starts at offset ${count(offset)}, not a multiple of the alignment ${alignment}`);
  return { name, dims, type, offset };
}

/** Reads the header of one GGUF file (one part of a split model); every refusal is a GgufFormatError saying what is wrong. */
export async function readGgufHeader(blob: Blob): Promise<GgufHeader> {
  const c = new BlobCursor(blob);
  const { version, tensorCount, kvCount } = await readCounts(c, blob.size);
  const kv = await readPairs(c, kvCount);
  const kvEnd = c.pos;
  const alignment = alignmentOf(kv);
  const tensors: GgufTensorInfo[] = [];
  const names = new Set<string>();
  for (let i = 0; i < tensorCount; i++) tensors.push(await readTensor(c, alignment, names));
  const tensorsEnd = c.pos;
  const dataOffset = Math.ceil(c.pos / alignment) * alignment;
  let dataBytes: number | undefined = 0;
  for (const t of tensors) {
    const bytes = tensorBytes(t.dims, t.type);
    if (bytes === undefined) {
      dataBytes = undefined;
      break;
    }
    dataBytes = Math.max(dataBytes, t.offset + bytes);
  }
  return { version, kv, tensors, kvEnd, tensorsEnd, dataOffset, dataBytes, fileSize: blob.size };
}

export function kvNumber(h: GgufHeader, key: string): number | undefined {
  const v = h.kv.get(key);
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  // Some models list a per-layer value (e.g. head_count_kv varying by layer): take the largest.
  if (Array.isArray(v) && v.every((x) => typeof x === "number")) return Math.max(...(v as number[]));
  return undefined;
}

export function kvString(h: GgufHeader, key: string): string | undefined {
  const v = h.kv.get(key);
  return typeof v === "string" ? v : undefined;
}

/** "model-00001-of-00003.gguf" → { index: 1, count: 3, base: "model" }; null for a whole file. */
export function splitPart(fileName: string): { index: number; count: number; base: string } | null {
  const m = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i.exec(fileName);
  if (!m) return null;
  return { base: m[1]!, index: Number(m[2]), count: Number(m[3]) };
}
