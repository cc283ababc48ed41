// The REPL worker as a Node worker thread (CLI, tests, benchmarks).
import { readFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import * as Comlink from "comlink/dist/esm/comlink.mjs";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import { createReplWorker } from "./repl-runtime.ts";

if (!parentPort) throw new Error("repl.node-entry.ts must run as a worker thread");
const pythonSource = readFileSync(new URL("./python/rlm_runtime.py", import.meta.url), "utf8");
const evidence = { filename: "rlm_evidence.py", source: readFileSync(new URL("./python/rlm_evidence.py", import.meta.url), "utf8") };
Comlink.expose(createReplWorker({ pythonSource, pythonSections: [evidence] }), nodeEndpoint(parentPort));
