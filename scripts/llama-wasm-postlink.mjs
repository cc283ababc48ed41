// After linking with emscripten 3.1.6, two fixes to its generated glue (wllama.js):
// 1. pthreads there start from a separate `wllama.worker.js`, which wllama 3.x's worker refuses to
//    locate (it was removed from wllama in 2.2.1, where newer emscripten reuses the main script).
//    The bootstrap is small, so it goes inside wllama.js as a Blob URL; it then imports the main
//    script from Module.mainScriptUrlOrBlob, which wllama sets.
// 2. At one thread wllama asks for no pthread pool (pthreadPoolSize 0). emscripten 3.1.6 then never
//    starts the runtime: it removes its "wasm-instantiate" run dependency only in the callback of
//    each pool worker it loads, so with none the dependency stays and wllama's load never returns
//    (newer emscripten calls the callback once even for an empty pool). We remove it ourselves
//    when there is no worker to wait for.
// Usage: node scripts/llama-wasm-postlink.mjs <build-dir> <out-dir>
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [build, out] = process.argv.slice(2);
if (!build || !out) throw new Error("usage: llama-wasm-postlink.mjs <build-dir> <out-dir>");
const main = readFileSync(join(build, "wllama.js"), "utf8");
const worker = readFileSync(join(build, "wllama.worker.js"), "utf8");

/** Replaces exactly one occurrence, or stops: a different count means the emscripten version changed. */
function replaceOnce(text, pattern, replacement, what) {
  const found = text.match(new RegExp(pattern.source, "g"))?.length ?? 0;
  if (found !== 1) throw new Error(`expected one ${what} in wllama.js, found ${found}: the emscripten version changed`);
  return text.replace(pattern, replacement);
}

const blobUrl = `URL.createObjectURL(new Blob([${JSON.stringify(worker)}],{type:"text/javascript"}))`;
let glue = replaceOnce(main, /locateFile\(\s*(["'])wllama\.worker\.js\1\s*\)/, blobUrl, 'locateFile("wllama.worker.js")');
glue = replaceOnce(
  glue,
  /var numWorkersToLoad=PThread\.unusedWorkers\.length;/,
  'var numWorkersToLoad=PThread.unusedWorkers.length;if(!numWorkersToLoad)removeRunDependency("wasm-instantiate");',
  "count of pthread pool workers to load",
);
writeFileSync(join(out, "wllama.js"), glue);
console.log(`wllama.js: pthread bootstrap inlined (${worker.length} bytes), start-up without a pthread pool fixed`);
