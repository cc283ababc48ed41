#!/usr/bin/env node
// `rlm` command-line tool. Node 20 cannot run TypeScript itself. Help is answered first, in plain
// JavaScript; otherwise the CLI runs from a cached plain-JavaScript bundle (esbuild, rebuilt
// when a source changes), which saves the ~0.45 s of CPU tsx spends compiling on load; tsx is
// the fallback when the bundle cannot be built.
import { quickHelp } from "../src/cli/help.mjs";
import { setFlagsFromString } from "node:v8";
import { cachedBundle } from "../src/node/esbuild-cache.mjs";
import { prestartReplWorker } from "../src/node/repl-worker-prestart.mjs";

/**
 * Python is CPython compiled to WebAssembly. V8 first compiles each wasm function with its fast
 * baseline compiler and recompiles the ones that get hot with its optimizing compiler, on
 * background threads. With the default threshold a 1-second question sends hundreds of functions
 * (restoring the heap, decoding the document, one regex) to the optimizer: about 0.3 s of CPU
 * for code that has already finished running (measured on the 20 MB needle, bench/RESULTS.md,
 * issue 17). A 100× higher threshold keeps that for code that really runs long (a cell that
 * loops for seconds is still optimized). Process-wide, so set here, before the REPL worker
 * compiles anything; a threshold given on node's own command line wins.
 */
const WASM_TIERING_BUDGET = 180_000_000;

const argv = process.argv.slice(2);
const help = quickHelp(argv);
if (help !== null) {
  process.stdout.write(`${help}\n`);
} else {
  if (!process.execArgv.some((a) => /^--(no-)?(wasm-tiering-budget|liftoff-only|wasm-dynamic-tiering|wasm-tier-up)\b/.test(a))) {
    setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
  }
  // Every command but help needs Python: its thread starts while the CLI loads.
  prestartReplWorker(new URL("../workers/repl.node-worker.mjs", import.meta.url));
  const code = await (await loadCli()).main(argv);
  // Everything the command does is done when main returns (answer printed, files written, the
  // snapshot stored). Left to drain, the event loop first waits for the REPL thread to wind down
  // and the keep-alive sockets to close: 20–50 ms after the answer is on the screen. Exit once
  // what was written to stdout and stderr is out.
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write("", () => done()))));
  process.exit(code);
}

async function loadCli() {
  const bundle = process.env.RLM_NO_BUNDLE ? null : await cachedBundle(new URL("../src/cli/main.ts", import.meta.url), "cli");
  if (bundle) return import(bundle.href);
  const { register } = await import("tsx/esm/api");
  register();
  return import("../src/cli/main.ts");
}
