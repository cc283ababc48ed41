// ASCII filler text of an exact size, built from one repeated 1 MiB block so that making a
// 500 MB Blob never needs a 500 MB JavaScript string (V8 strings stop at about 512 MiB).
// Pure: used by the Node benchmarks and by the bench page in the browser.
const LINE = "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ !?\n";
const BLOCK_BYTES = 2 ** 20;

function block(): Uint8Array {
  const bytes = new Uint8Array(BLOCK_BYTES);
  const line = new TextEncoder().encode(LINE);
  for (let i = 0; i < BLOCK_BYTES; i++) bytes[i] = line[i % line.length]!;
  bytes[BLOCK_BYTES - 1] = 0x0a;
  return bytes;
}

/** `megabytes` MiB of ASCII text as a Blob (one byte per character). */
export function asciiBlob(megabytes: number): Blob {
  const b = block();
  const parts: Uint8Array[] = [];
  for (let i = 0; i < megabytes; i++) parts.push(b);
  return new Blob(parts as BlobPart[], { type: "text/plain" });
}

/** A Blob of exactly `bytes` bytes of the same text (sizes below 1 MiB, e.g. 10 KB). */
export function asciiBlobOfBytes(bytes: number): Blob {
  const whole = Math.floor(bytes / BLOCK_BYTES);
  const b = block();
  const parts: Uint8Array[] = [];
  for (let i = 0; i < whole; i++) parts.push(b);
  const rest = bytes - whole * BLOCK_BYTES;
  if (rest > 0) parts.push(b.subarray(0, rest));
  return new Blob(parts as BlobPart[], { type: "text/plain" });
}
