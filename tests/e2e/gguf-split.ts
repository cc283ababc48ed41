// Splits a GGUF the way llama.cpp's gguf-split does, for tests of split models: every part is a
// GGUF with split.no / split.count / split.tensors.count, the first also carries all the model's
// key-value pairs, and each part holds a run of the tensors with offsets into its own data.
import { openAsBlob } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readGgufHeader, tensorBytes } from "../../src/engines/gguf/index.ts";

const ALIGN = 32;
const align = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
}
function u64(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n), true);
  return b;
}
function str(s: string): Uint8Array[] {
  const bytes = new TextEncoder().encode(s);
  return [u64(bytes.length), bytes];
}
function kvU16(key: string, v: number): Uint8Array[] {
  const b = new Uint8Array(2);
  new DataView(b.buffer).setUint16(0, v, true);
  return [...str(key), u32(2), b];
}
function kvI32(key: string, v: number): Uint8Array[] {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, v, true);
  return [...str(key), u32(5), b];
}

/** Writes `<dir>/<base>-0000i-of-0000N.gguf` and returns their paths in order. */
export async function splitGguf(path: string, parts: number, dir: string, base: string): Promise<string[]> {
  const blob = await openAsBlob(path);
  const h = await readGgufHeader(blob);
  const bytes = new Uint8Array(await blob.arrayBuffer());
  const per = Math.ceil(h.tensors.length / parts);
  const out: string[] = [];
  for (let p = 0; p < parts; p++) {
    const mine = h.tensors.slice(p * per, (p + 1) * per);
    const kvs: Uint8Array[] = [];
    let kvCount = 3;
    if (p === 0) {
      kvs.push(bytes.subarray(24, h.kvEnd));
      kvCount += h.kv.size;
    }
    kvs.push(...kvU16("split.no", p), ...kvU16("split.count", parts), ...kvI32("split.tensors.count", h.tensors.length));
    const infos: Uint8Array[] = [];
    const data: Uint8Array[] = [];
    let offset = 0;
    for (const t of mine) {
      const size = tensorBytes(t.dims, t.type)!;
      infos.push(...str(t.name), u32(t.dims.length), ...t.dims.map(u64), u32(t.type), u64(offset));
      const start = h.dataOffset + t.offset;
      data.push(bytes.subarray(start, start + size));
      const padded = align(size);
      if (padded > size) data.push(new Uint8Array(padded - size));
      offset += padded;
    }
    const head = [new TextEncoder().encode("GGUF"), u32(3), u64(mine.length), u64(kvCount), ...kvs, ...infos];
    const headLen = head.reduce((s, b) => s + b.length, 0);
    const file = [...head, new Uint8Array(align(headLen) - headLen), ...data];
    const name = join(dir, `${base}-${String(p + 1).padStart(5, "0")}-of-${String(parts).padStart(5, "0")}.gguf`);
    await writeFile(name, Buffer.concat(file));
    out.push(name);
  }
  return out;
}
