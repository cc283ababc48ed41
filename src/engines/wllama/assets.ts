// Where llama.cpp's wasm builds (wllama's, ours with SIMD) and their workers sit below `base`:
// the page serves them from its /wllama/ folder (scripts/copy-wllama.mjs), the bench page too.
import type { WllamaAssets } from "./protocol.ts";

export function wllamaAssets(base: URL): WllamaAssets {
  return {
    wasm: new URL("wllama.wasm", base).href,
    compatWasm: new URL("compat/wllama.wasm", base).href,
    compatWorker: new URL("compat/wllama.js", base).href,
    simdWasm: new URL("simd/wllama.wasm", base).href,
    simdWorker: new URL("simd/wllama.js", base).href,
    relaxedWasm: new URL("simd/relaxed/wllama.wasm", base).href,
  };
}
