// The WebLLM fixture's own checks (tests/fixtures/webllm): the committed libraries are the ones
// whose checksums are recorded, their parameter lists are read from their data sections, and the
// weights written from such a list are laid out exactly as the manifest says.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MLC_LIBRARIES, mlcLibrary, readLibraryMetadata } from "../fixtures/webllm/library.ts";
import { float16Bits, writeRandomWeights } from "../fixtures/webllm/weights.ts";

const dir = mkdtempSync(join(tmpdir(), "webllm-fixture-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("WebLLM fixture", () => {
  it("reads each committed library's parameter list: Qwen2-0.5B's 267 tensors, 24 layers, tied embeddings", () => {
    for (const quantization of ["q4f16_1", "q4f32_1"] as const) {
      const library = mlcLibrary(quantization);
      const meta = readLibraryMetadata(library.bytes);
      expect(meta.model_type).toBe("qwen2");
      expect(meta.quantization).toBe(quantization);
      expect(meta.context_window_size).toBe(4096);
      expect(meta.kv_cache).toEqual({ num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2, head_dim: 64 });
      expect(meta.params).toHaveLength(267);
      expect(meta.params[0]).toMatchObject({ name: "model.embed_tokens.q_weight", shape: [151936, 112], dtype: "uint32" });
      expect(meta.params.some((p) => p.name.startsWith("lm_head"))).toBe(false);
      const scale = quantization === "q4f16_1" ? "float16" : "float32";
      expect(new Set(meta.params.filter((p) => !p.name.endsWith("q_weight")).map((p) => p.dtype))).toEqual(new Set([scale]));
    }
  });

  it("refuses a library whose bytes are not the committed ones, saying where to get it", () => {
    const entry = MLC_LIBRARIES.q4f16_1;
    const real = entry.sha256;
    try {
      (entry as { sha256: string }).sha256 = "0".repeat(64);
      expect(() => mlcLibrary("q4f16_1")).toThrow(/not the committed 0{64}\. Restore it from mlc-ai\/binary-mlc-llm-libs/);
    } finally {
      (entry as { sha256: string }).sha256 = real;
    }
  });

  it("writes shards whose sizes and offsets match the manifest, with norms 1, biases 0 and random 4-bit weights", async () => {
    const params = [
      { name: "a.q_weight", shape: [4, 3], dtype: "uint32" as const },
      { name: "a.q_scale", shape: [4, 1], dtype: "float16" as const },
      { name: "a.bias", shape: [4], dtype: "float16" as const },
      { name: "norm.weight", shape: [5], dtype: "float32" as const },
    ];
    const manifest = await writeRandomWeights(dir, params, 7);
    expect(manifest.records).toHaveLength(1);
    const shard = manifest.records[0]!;
    expect(shard).toMatchObject({ dataPath: "params_shard_0.bin", format: "raw-shard", nbytes: 48 + 8 + 8 + 20 });
    expect(statSync(join(dir, shard.dataPath)).size).toBe(shard.nbytes);
    expect(shard.records.map((r) => [r.name, r.byteOffset, r.nbytes])).toEqual([
      ["a.q_weight", 0, 48],
      ["a.q_scale", 48, 8],
      ["a.bias", 56, 8],
      ["norm.weight", 64, 20],
    ]);
    const bytes = readFileSync(join(dir, shard.dataPath));
    expect(new Set(new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + 48))).size).toBeGreaterThan(1);
    expect([...new Uint16Array(bytes.buffer.slice(bytes.byteOffset + 48, bytes.byteOffset + 56))]).toEqual(
      Array(4).fill(float16Bits(0.02)),
    );
    expect([...new Uint16Array(bytes.buffer.slice(bytes.byteOffset + 56, bytes.byteOffset + 64))]).toEqual([0, 0, 0, 0]);
    expect([...new Float32Array(bytes.buffer.slice(bytes.byteOffset + 64, bytes.byteOffset + 84))]).toEqual([1, 1, 1, 1, 1]);
    expect(float16Bits(1)).toBe(0x3c00);
  });
});
