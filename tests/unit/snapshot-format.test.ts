// The key a Python snapshot is stored under and the envelope that protects it: a changed
// runtime or Pyodide means another key; a damaged, cut or foreign file is rejected with a reason.
import { describe, expect, it } from "vitest";
import { joinChunks } from "../../src/ingest/blob-reader.ts";
import { SnapshotRejected } from "../../src/repl/snapshot-store.ts";
import { checksum, envelopeHeader, fingerprint, openEnvelope, snapshotKey } from "../../workers/shared/snapshot-format.ts";

/** The textbook definition, in BigInt arithmetic, to check the fast one against. */
function bigIntFnv(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return hash.toString(16).padStart(16, "0");
}

/** A stored snapshot file: the envelope's header, then the payload. */
const wrap = (key: string, payload: Uint8Array) => joinChunks([envelopeHeader(key, payload), payload]);

describe("snapshot keys", () => {
  it("fingerprint is 64-bit FNV-1a over UTF-8 (published test vectors): stored keys stay valid", () => {
    expect(fingerprint("")).toBe("cbf29ce484222325");
    expect(fingerprint("a")).toBe("af63dc4c8601ec8c");
    expect(fingerprint("foobar")).toBe("85944171f73967e8");
    expect(fingerprint("é€😀")).toBe(bigIntFnv("é€😀"));
    expect(fingerprint("x".repeat(10_000))).toBe(bigIntFnv("x".repeat(10_000)));
  });

  it("change with the runtime source and the Pyodide version, and only with them", () => {
    const key = snapshotKey("314.0.7", "def f(): pass\n");
    expect(snapshotKey("314.0.7", "def f(): pass\n")).toBe(key);
    expect(snapshotKey("314.0.7", "def f(): return 1\n")).not.toBe(key);
    expect(snapshotKey("314.0.8", "def f(): pass\n")).not.toBe(key);
    expect(key).toMatch(/^[\w.-]+$/); // safe as a file name and in a URL
  });
});

describe("the snapshot envelope", () => {
  const payload = new Uint8Array(64 * 1024 + 4).map((_, i) => (i * 31) & 0xff);
  const key = snapshotKey("314.0.7", "runtime");

  it("gives back the payload, 16-byte aligned, without copying", () => {
    const stored = wrap(key, payload);
    const opened = openEnvelope(key, stored);
    expect(opened.buffer).toBe(stored.buffer);
    expect(opened.byteOffset % 16).toBe(0);
    expect(opened).toEqual(payload);
  });

  it.each([
    [
      "a flipped bit",
      (s: Uint8Array) => {
        const c = s.slice();
        c[c.byteLength - 7] = c[c.byteLength - 7]! ^ 1;
        return c;
      },
      /checksum does not match/,
    ],
    ["a cut-off file", (s: Uint8Array) => s.slice(0, s.byteLength - 1000), /truncated or padded/],
    [
      "trailing garbage",
      (s: Uint8Array) => {
        const c = new Uint8Array(s.byteLength + 4);
        c.set(s);
        return c;
      },
      /truncated or padded/,
    ],
    ["another version's file", () => wrap(snapshotKey("314.0.6", "runtime"), payload), /made for another version/],
    ["not a snapshot", () => new TextEncoder().encode("hello, I am a text file, not a snapshot"), /not a Recursive Reader snapshot/],
    ["an empty file", () => new Uint8Array(0), /too short/],
  ])("rejects %s", (_what, make, why) => {
    const stored = make(wrap(key, payload));
    expect(() => openEnvelope(key, stored)).toThrow(SnapshotRejected);
    expect(() => openEnvelope(key, stored)).toThrow(why);
  });

  it("skips only the payload checksum when asked (the store vouches for the bytes): header, key and length are still checked", () => {
    const flipped = wrap(key, payload);
    flipped[flipped.byteLength - 7] = flipped[flipped.byteLength - 7]! ^ 1;
    expect(() => openEnvelope(key, flipped, { skipChecksum: true })).not.toThrow();
    const skip = { skipChecksum: true };
    expect(() => openEnvelope(key, wrap(key, payload).slice(0, 50_000), skip)).toThrow(/truncated or padded/);
    expect(() => openEnvelope(key, wrap(snapshotKey("314.0.6", "runtime"), payload), skip)).toThrow(/made for another version/);
    expect(() => openEnvelope(key, new TextEncoder().encode("hello, I am a text file, not a snapshot"), skip)).toThrow(
      /not a Recursive Reader/,
    );
  });

  it("checksums the same bytes the same way wherever they sit", () => {
    const shifted = new Uint8Array(payload.byteLength + 1);
    shifted.set(payload, 1);
    expect(checksum(shifted.subarray(1))).toBe(checksum(payload));
  });
});
