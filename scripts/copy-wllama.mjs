// Copies llama.cpp's WebAssembly (wllama) from node_modules into public/wllama so the app serves
// it from its own origin: no CDN, works offline. wllama refuses a wasm from another release
// (version_mismatch), so the compat build must come from the same version as the library.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { copyWhenStale } from "./copy-when-stale.mjs";

const require = createRequire(import.meta.url);
const main = dirname(require.resolve("@wllama/wllama/package.json"));
const compat = dirname(require.resolve("@wllama/wllama-compat/package.json"));
const version = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
if (version(main) !== version(compat)) {
  throw new Error(`@wllama/wllama ${version(main)} and @wllama/wllama-compat ${version(compat)} differ: pin both to the same version.`);
}
const dest = fileURLToPath(new URL("../public/wllama/", import.meta.url));
const copies = [
  [join(main, "esm/wasm/wllama.wasm"), join(dest, "wllama.wasm")],
  [join(compat, "wasm/wllama.wasm"), join(dest, "compat/wllama.wasm")],
  [join(compat, "wasm/wllama.js"), join(dest, "compat/wllama.js")],
  // Our own build with ggml's SIMD128 kernels (scripts/build-llama-wasm.sh), committed in vendor/.
  [fileURLToPath(new URL("../vendor/llama-wasm/wllama.wasm", import.meta.url)), join(dest, "simd/wllama.wasm")],
  [fileURLToPath(new URL("../vendor/llama-wasm/wllama.js", import.meta.url)), join(dest, "simd/wllama.js")],
  // Its relaxed-SIMD variant (scripts/build-llama-wasm-relaxed.sh), run by the same glue in Chromium.
  [fileURLToPath(new URL("../vendor/llama-wasm/relaxed/wllama.wasm", import.meta.url)), join(dest, "simd/relaxed/wllama.wasm")],
];
copyWhenStale(copies);
