// Reads a GGUF file's header (key-value pairs and tensor table) from a Blob, in JavaScript, so a
// model can be checked before llama.cpp is asked to load it: is it GGUF at all, which
// architecture, how big its KV cache is per token, and is the file whole. No DOM: Blob exists in
// Node too. The format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
//
// Only the header is read (a tokenizer array of 151K strings is ~3 MB of it), in 1 MiB slices.

const MAGIC = 0x46554747; // "GGUF" little-endian
const READ_BLOCK = 1 << 20;

export class GgufFormatError extends Error {
  override name = "GgufFormatError";
}

/** The file stops before its header does: a GGUF whose download or copy was cut off. */
export class GgufTruncatedError extends GgufFormatError {
  override name = "GgufTruncatedError";
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

  private async ensure(n: number): Promise<void> {
    if (this.pos >= this.bufStart && this.pos + n <= this.bufStart + this.buf.length) return;
    if (this.pos + n > this.blob.size) throw new GgufTruncatedError("the file ends inside its header");
    const end = Math.min(this.blob.size, this.pos + Math.max(n, READ_BLOCK));
    this.buf = new Uint8Array(await this.blob.slice(this.pos, end).arrayBuffer());
    this.view = new DataView(this.buf.buffer);
    this.bufStart = this.pos;
  }

  async u32(): Promise<number> {
    await this.ensure(4);
    const v = this.view.getUint32(this.pos - this.bufStart, true);
    this.pos += 4;
    return v;
  }

  async u64(): Promise<number> {
    await this.ensure(8);
    const v = this.view.getBigUint64(this.pos - this.bufStart, true);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new GgufFormatError("a length in the header is impossibly large");
    return Number(v);
  }

  async scalar(type: number): Promise<number | bigint | boolean> {
    const size = [1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8][type];
    if (!size) throw new GgufFormatError(`unknown value type ${type}`);
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

  async string(): Promise<string> {
    const len = await this.u64();
    if (len > 64 << 20) throw new GgufFormatError("a string in the header is impossibly long");
    await this.ensure(len);
    const o = this.pos - this.bufStart;
    this.pos += len;
    return new TextDecoder().decode(this.buf.subarray(o, o + len));
  }

  async skipString(): Promise<void> {
    const len = await this.u64();
    this.pos += len;
  }
}

/** Arrays longer than this are summarised (a vocabulary is not needed to check a model). */
const KEEP_ARRAY = 64;

async function readValue(c: BlobCursor, type: number): Promise<GgufValue> {
  if (type === 8) return c.string();
  if (type !== 9) {
    const v = await c.scalar(type);
    return typeof v === "bigint" && v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  }
  const itemType = await c.u32();
  const length = await c.u64();
  if (length > KEEP_ARRAY) {
    for (let i = 0; i < length; i++) {
      if (itemType === 8) await c.skipString();
      else if (itemType === 9) throw new GgufFormatError("nested arrays are not supported");
      else await c.scalar(itemType);
    }
    return { arrayOf: itemType, length };
  }
  const out: GgufValue[] = [];
  for (let i = 0; i < length; i++) out.push(await readValue(c, itemType));
  return out;
}

export function tensorBytes(dims: number[], type: number): number | undefined {
  const size = TYPE_SIZE[type];
  if (!size) return undefined;
  const elems = dims.reduce((a, b) => a * b, 1);
  return Math.ceil(elems / size[0]) * size[1];
}

/** Reads the header of one GGUF file (one part of a split model). */
export async function readGgufHeader(blob: Blob): Promise<GgufHeader> {
  if (blob.size < 24) throw new GgufFormatError("the file is too short to be a GGUF model");
  const c = new BlobCursor(blob);
  if ((await c.u32()) !== MAGIC) throw new GgufFormatError("it does not start with the GGUF signature");
  const version = await c.u32();
  if (version < 2 || version > 3) throw new GgufFormatError(`GGUF version ${version} is not supported (2 and 3 are)`);
  const tensorCount = await c.u64();
  const kvCount = await c.u64();
  if (kvCount > 1_000_000 || tensorCount > 10_000_000) throw new GgufFormatError("its header counts are impossibly large");
  const kv = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    const key = await c.string();
    const type = await c.u32();
    kv.set(key, await readValue(c, type));
  }
  const kvEnd = c.pos;
  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = await c.string();
    const nDims = await c.u32();
    if (nDims > 8) throw new GgufFormatError(`tensor ${name} has ${nDims} dimensions`);
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) dims.push(await c.u64());
    const type = await c.u32();
    const offset = await c.u64();
    tensors.push({ name, dims, type, offset });
  }
  const alignment = typeof kv.get("general.alignment") === "number" ? (kv.get("general.alignment") as number) : 32;
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
