// After linking with emscripten 3.1.6: pthreads there start from a separate `wllama.worker.js`,
// which wllama 3.x's worker refuses to locate (it was removed from wllama in 2.2.1, where newer
// emscripten reuses the main script). The bootstrap is small, so it goes inside wllama.js as a
// Blob URL; it then imports the main script from Module.mainScriptUrlOrBlob, which wllama sets.
// Usage: node scripts/llama-wasm-postlink.mjs <build-dir> <out-dir>
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [build, out] = process.argv.slice(2);
if (!build || !out) throw new Error("usage: llama-wasm-postlink.mjs <build-dir> <out-dir>");
const main = readFileSync(join(build, "wllama.js"), "utf8");
const worker = readFileSync(join(build, "wllama.worker.js"), "utf8");
const locate = /locateFile\(\s*(["'])wllama\.worker\.js\1\s*\)/g;
const found = main.match(locate)?.length ?? 0;
if (found !== 1)
  throw new Error(`expected one locateFile("wllama.worker.js") in wllama.js, found ${found}: the emscripten version changed`);
const blobUrl = `URL.createObjectURL(new Blob([${JSON.stringify(worker)}],{type:"text/javascript"}))`;
writeFileSync(join(out, "wllama.js"), main.replace(locate, blobUrl));
console.log(`wllama.js: pthread bootstrap inlined (${worker.length} bytes)`);
