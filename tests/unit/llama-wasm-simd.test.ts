// The page's own llama.cpp build (vendor/llama-wasm, scripts/build-llama-wasm.sh) exists for one
// reason: wllama's wasm links ggml's generic C dot products, because emscripten's CMake toolchain
// reports the processor as "x86" and ggml adds its SIMD128 kernels (arch/wasm/quants.c) only for
// "wasm". These tests read the committed binary's function bodies by name and look for the
// instruction those kernels are built on, i32x4.dot_i16x8_s: in ggml's dot products, and in the
// 4 x 4 register-tiled GEMM our patch adds for prompt batches (0004-wasm-gemm-4x4.patch; its tiles
// are static functions, their names stay in the name section), Q4_K's included.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { SIMD_OPS, countPattern, functionBodies } from "../../scripts/lib/wasm-functions.mjs";

const vendor = join(import.meta.dirname, "../../vendor/llama-wasm");
const KERNELS = ["ggml_vec_dot_q8_0_q8_0", "ggml_vec_dot_q4_0_q8_0", "ggml_vec_dot_q4_K_q8_K"];
/**
 * The GEMM's tiles, four rows x four tokens each: Q8_0, Q4_0 and Q5_0 weights x Q8_0 activations,
 * Q4_K weights x Q8_K activations (the catalog's Q4_K_M models: Q4_K where rows fill 256-element
 * super-blocks, Q5_0 where they do not). `*_44` is the full tile over activations widened
 * beforehand, the others the edge tiles.
 */
const GEMM_TILES = ["q8_0", "q4_0", "q5_0", "q4_K"].flatMap((type) => [`tile_${type}_44`, `tile_${type}`]);
const dots = (body: Uint8Array | undefined) => (body ? countPattern(body, SIMD_OPS["i32x4.dot_i16x8_s"]) : -1);

/**
 * Patch 0010: flash attention converts a mask, a key and a value tile from f16 for every tile it
 * computes; ggml's scalar conversion on wasm is a table lookup per element. Both wasms link gemm.c's.
 */
function expectVectorFp16(bodies: Map<string, Uint8Array>): void {
  const body = bodies.get("ggml_wasm_fp16_to_fp32");
  expect(body, "ggml_wasm_fp16_to_fp32 is not in the wasm's name section: patch 0010 is not linked").toBeDefined();
  // exponent and mantissa shifted into place, then scaled by 2^112: both halves of 8 lanes
  expect(countPattern(body!, SIMD_OPS["i32x4.shl"])).toBeGreaterThanOrEqual(2);
  expect(countPattern(body!, SIMD_OPS["f32x4.mul"])).toBeGreaterThanOrEqual(2);
}

describe("our llama.cpp WebAssembly build", () => {
  const wasm = readFileSync(join(vendor, "wllama.wasm"));
  const bodies = functionBodies(wasm);

  it.each(KERNELS)("%s uses i32x4.dot_i16x8_s", (name) => {
    expect(bodies.has(name), `${name} is not in the wasm's name section`).toBe(true);
    expect(dots(bodies.get(name))).toBeGreaterThan(0);
  });

  it.each(GEMM_TILES)("links the prompt-batch GEMM tile %s, built on i32x4.dot_i16x8_s", (name) => {
    expect(bodies.has(name), `${name} is not in the wasm's name section: the GEMM patch is not linked`).toBe(true);
    // at least one 4 x 4 tile's worth: 16 row x token pairs, each a dot over a 32-wide block
    expect(dots(bodies.get(name))).toBeGreaterThanOrEqual(16);
  });

  // Patch 0009: ggml has vector exp only for x86, Arm and RISC-V, so on wasm soft_max (flash
  // attention's inner loop) and SwiGLU called the scalar expf per element: a tenth of a
  // 2,000-token prompt. Its wasm port builds 2^n by shifting the exponent into place (i32x4.shl) and
  // evaluates the polynomial four lanes at a time (f32x4.mul); neither appears in the scalar loop.
  it.each(["ggml_vec_soft_max_f32", "ggml_vec_swiglu_f32"])("computes exp four lanes at a time in %s", (name) => {
    const body = bodies.get(name);
    expect(body, `${name} is not in the wasm's name section`).toBeDefined();
    expect(countPattern(body!, SIMD_OPS["i32x4.shl"]), "no i32x4.shl: exp is the scalar expf").toBeGreaterThan(0);
    expect(countPattern(body!, SIMD_OPS["f32x4.mul"])).toBeGreaterThanOrEqual(6);
  });

  it("runs flash attention's f32 tiles through the 4 x 8 register tile, not ggml's generic 2 x 2 one", () => {
    const body = bodies.get("ggml_wasm_gemm_f32");
    expect(body, "ggml_wasm_gemm_f32 is not in the wasm's name section: patch 0009 is not linked").toBeDefined();
    // 4 rows x 2 vectors: 8 multiply-adds per step of the full tile
    expect(countPattern(body!, SIMD_OPS["f32x4.mul"])).toBeGreaterThanOrEqual(8);
    expect(countPattern(body!, SIMD_OPS["f32x4.relaxed_madd"]), "the SIMD128 wasm must run in every browser").toBe(0);
  });

  it("converts f16 to f32 four lanes at a time", () => expectVectorFp16(bodies));

  it("computes the full Q4_K tile's minimums term in SIMD too, not only its quants", () => {
    // per 64-element chunk, 8 dots for each of the 4 tokens; then one dot per token of the eight
    // 6-bit minimums with the activations' bsums (ggml's vec_dot sums that term in scalar)
    expect(dots(bodies.get("tile_q4_K_44"))).toBeGreaterThanOrEqual(8 * 4 + 4);
  });

  it("matches its checksum file", () => {
    const sums = readFileSync(join(vendor, "SHA256SUMS"), "utf8");
    for (const file of ["wllama.wasm", "wllama.js"]) {
      const digest = createHash("sha256")
        .update(readFileSync(join(vendor, file)))
        .digest("hex");
      expect(sums).toContain(`${digest}  ${file}`);
    }
  });

  it("carries llama.cpp's and wllama's licences", () => {
    expect(readFileSync(join(vendor, "LICENSE-llama.cpp"), "utf8")).toMatch(/MIT License/);
    expect(readFileSync(join(vendor, "LICENSE-wllama"), "utf8")).toMatch(/MIT License/);
  });
});

// The relaxed-SIMD wasm (vendor/llama-wasm/relaxed, scripts/build-llama-wasm-relaxed.sh): the same
// link with gemm.c compiled by clang-19 -mrelaxed-simd, which the page runs where the browser
// validates relaxed SIMD. Its Q4_0, Q5_0 and Q4_K full tiles, and its Q4_K, Q5_0 and Q4_0 decode
// dot products, multiply the unsigned weight quants by the activation bytes with i16x8.relaxed_dot_i8x16_i7x16_s
// instead of widening both sides.
describe("our build's relaxed-SIMD wasm", () => {
  const relaxedDir = join(vendor, "relaxed");
  const wasm = readFileSync(join(relaxedDir, "wllama.wasm"));
  const bodies = functionBodies(wasm);
  const relaxedDots = (body: Uint8Array | undefined) => (body ? countPattern(body, SIMD_OPS["i16x8.relaxed_dot_i8x16_i7x16_s"]) : -1);

  it.each(["q4_0", "q5_0", "q4_K"])("runs the full %s tile on the relaxed dot product", (type) => {
    const name = `tile_${type}_44_relaxed`;
    expect(bodies.has(name), `${name} is not in the relaxed wasm's name section`).toBe(true);
    // two relaxed dots per 32 elements: a 4 x 4 tile of one block has 32
    expect(relaxedDots(bodies.get(name))).toBeGreaterThanOrEqual(type === "q4_K" ? 16 : 8);
  });

  // Decode calls the type's vec_dot once per weight row; the relaxed build renames ggml's SIMD128
  // ones out of the way (scripts/llama-wasm-relaxed-cc.sh), so ggml's type table links gemm.c's.
  // Q4_K: four relaxed dots per 64-element chunk, four chunks per super-block (the scales still
  // meet the sums in dot_i16x8). Q5_0 and Q4_0: two per 32-element block.
  it.each([
    ["ggml_vec_dot_q4_K_q8_K", 16],
    ["ggml_vec_dot_q5_0_q8_0", 2],
    ["ggml_vec_dot_q4_0_q8_0", 2],
  ] as const)("decodes on the relaxed dot product: ggml's type table links gemm.c's %s", (name, least) => {
    expect(bodies.has(name)).toBe(true);
    expect(relaxedDots(bodies.get(name))).toBeGreaterThanOrEqual(least);
    expect(bodies.has(`${name}_simd128`), `ggml's own ${name} is still linked`).toBe(false);
  });

  it("multiplies and adds flash attention's f32 tiles in one fused f32x4.relaxed_madd", () => {
    const body = bodies.get("ggml_wasm_gemm_f32");
    expect(body, "ggml_wasm_gemm_f32 is not in the relaxed wasm's name section").toBeDefined();
    expect(countPattern(body!, SIMD_OPS["f32x4.relaxed_madd"])).toBeGreaterThanOrEqual(8);
    expect(countPattern(body!, SIMD_OPS["f32x4.mul"]), "a multiply left beside the fused ones").toBe(0);
  });

  it("converts f16 to f32 four lanes at a time", () => expectVectorFp16(bodies));

  it("keeps everything else of the SIMD128 build: ggml's other dot products and the Q8_0 tile", () => {
    for (const name of ["ggml_vec_dot_q8_0_q8_0", "tile_q8_0_44"]) expect(dots(bodies.get(name)), name).toBeGreaterThan(0);
  });

  it("is the only one of the two with relaxed instructions (the SIMD128 one runs in every browser)", () => {
    const simd = functionBodies(readFileSync(join(vendor, "wllama.wasm")));
    for (const name of [...GEMM_TILES, ...KERNELS, "ggml_vec_dot_q5_0_q8_0"]) expect(relaxedDots(simd.get(name)), name).toBe(0);
  });

  it("matches its checksum file", () => {
    const digest = createHash("sha256").update(wasm).digest("hex");
    expect(readFileSync(join(relaxedDir, "SHA256SUMS"), "utf8")).toContain(`${digest}  wllama.wasm`);
  });
});

describe("the detector itself", () => {
  // wllama 3.13's own builds: the same function names with no SIMD dot product in them. If this
  // starts failing, wllama ships the kernels and our build may no longer be needed.
  const require = createRequire(import.meta.url);
  const compat = dirname(require.resolve("@wllama/wllama-compat/package.json"));
  it.each(KERNELS)("finds no i32x4.dot_i16x8_s in wllama's compat %s", (name) => {
    const bodies = functionBodies(readFileSync(join(compat, "wasm/wllama.wasm")));
    expect(bodies.has(name)).toBe(true);
    expect(dots(bodies.get(name))).toBe(0);
  });
});
