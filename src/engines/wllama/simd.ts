// Every llama.cpp build the page serves (wllama's and ours) is compiled with -msimd128: a browser
// without WebAssembly SIMD cannot compile any of them. It is asked once, up front, so the person
// reads why instead of a failed compile deep inside wllama's worker.

/** (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)) — wasm-feature-detect's probe. */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

export function hasWasmSimd(wasm: Pick<typeof WebAssembly, "validate"> | null = globalThis.WebAssembly ?? null): boolean {
  try {
    return !!wasm && wasm.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/**
 * (module (func (result v128) i32.const 0 i32x4.splat i32.const 0 i32x4.splat
 * i16x8.relaxed_dot_i8x16_i7x16_s)): the one relaxed instruction our relaxed build's GEMM uses
 * (0xfd 0x112). A module with it does not validate where relaxed SIMD is missing (WebKitGTK 2.50,
 * Node 20 without --experimental-wasm-relaxed-simd; Chromium 156 and Firefox 153 have it), so the
 * worker asks before it picks that wasm over the SIMD128 one.
 */
const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 15, 1, 13, 0, 65, 0, 253, 17, 65, 0, 253, 17, 253, 146, 2, 11,
]);

export function hasWasmRelaxedSimd(wasm: Pick<typeof WebAssembly, "validate"> | null = globalThis.WebAssembly ?? null): boolean {
  try {
    return !!wasm && wasm.validate(RELAXED_SIMD_PROBE);
  } catch {
    return false;
  }
}

export const NO_SIMD_REASON =
  "this browser's WebAssembly has no SIMD, which llama.cpp needs: update the browser (Chrome 91, Firefox 89 and Safari 16.4 have it)";
