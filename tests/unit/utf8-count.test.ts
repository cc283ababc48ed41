// Counting UTF-8 characters from bytes must agree with decoding them (TextDecoder's fatal mode is
// the reference, and it agrees with Python's strict codec), on every kind of input.
import { describe, expect, it } from "vitest";
import { Utf8Counter } from "../../src/ingest/utf8-count.ts";

function reference(bytes: Uint8Array): number | null {
  try {
    return [...new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes)].length;
  } catch {
    return null;
  }
}

function count(bytes: Uint8Array, pieces = 1): number | null {
  const c = new Utf8Counter();
  const step = Math.max(1, Math.ceil(bytes.length / pieces));
  for (let at = 0; at < bytes.length; at += step) c.push(bytes.subarray(at, at + step));
  return c.finish() ? c.chars : null;
}

/** Deterministic pseudo-random bytes biased towards the bytes that make UTF-8 interesting. */
function randomBytes(seed: number, length: number): Uint8Array {
  let x = seed;
  const next = () => ((x = (x * 1103515245 + 12345) >>> 0) >>> 8) & 0xff;
  const interesting = [0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xa0, 0xed, 0x9f, 0xa0, 0xef, 0xf0, 0x90, 0xf4, 0x8f, 0xf5, 0xff];
  return Uint8Array.from({ length }, () => (next() % 3 === 0 ? interesting[next() % interesting.length]! : next()));
}

describe("Utf8Counter", () => {
  it.each([
    ["ASCII", "plain text, nothing else"],
    ["two-byte", "café naïve"],
    ["three-byte", "日本語のテキスト"],
    ["four-byte", "emoji 😀🎉 and 𝄞"],
    ["mixed and long", "a".repeat(1000) + "é" + "b".repeat(37) + "😀"],
  ])("counts %s text as Python's len() would", (_name, text) => {
    const bytes = new TextEncoder().encode(text);
    for (const pieces of [1, 2, 3, 7, bytes.length]) expect(count(bytes, pieces)).toBe([...text].length);
  });

  it.each([
    ["an overlong encoding", [0xc0, 0xaf]],
    ["a surrogate", [0xed, 0xa0, 0x80]],
    ["above U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
    ["a lone continuation byte", [0x41, 0x80]],
    ["a truncated sequence at the end", [0x41, 0xe2, 0x82]],
    ["an invalid lead byte", [0xff]],
  ])("refuses %s, as strict UTF-8 does", (_name, bytes) => {
    expect(count(Uint8Array.from(bytes))).toBeNull();
    expect(reference(Uint8Array.from(bytes))).toBeNull();
  });

  it("agrees with TextDecoder on 2,000 random byte strings, fed whole and in pieces", () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const bytes = randomBytes(seed, 1 + (seed % 97));
      const expected = reference(bytes);
      expect(count(bytes), `seed ${seed}`).toBe(expected);
      expect(count(bytes, 5), `seed ${seed}, in pieces`).toBe(expected);
    }
  });

  it("counts unaligned views of large ASCII buffers (the word-at-a-time path)", () => {
    const big = new Uint8Array(1 << 16).fill(0x61);
    big[40_001] = 0xc3;
    big[40_002] = 0xa9;
    const view = big.subarray(3);
    expect(count(view)).toBe(reference(view));
    expect(count(view, 9)).toBe(reference(view));
  });
});
