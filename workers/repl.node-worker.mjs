// The Node REPL worker thread's first module. Node 20 cannot run TypeScript by itself: the worker
// runs from a cached plain-JavaScript bundle of repl.node-entry.ts (src/node/esbuild-cache.mjs),
// since tsx compiling in a worker thread costs about 0.7 s of CPU per start (its loader thread
// plus a round trip to it for every import); tsx is the fallback when the bundle cannot be had.
import { cachedBundle } from "../src/node/esbuild-cache.mjs";

const entry = new URL("./repl.node-entry.ts", import.meta.url);
const bundle = process.env.RLM_NO_BUNDLE ? null : await cachedBundle(entry, "repl-worker");
if (bundle) {
  await import(bundle.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("./repl.node-entry.ts");
}
