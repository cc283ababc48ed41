import type { Worker } from "node:worker_threads";
/** See repl-worker-prestart.mjs. */
export function prestartReplWorker(url: URL): void;
export function takePrestartedReplWorker(url: URL): Worker | null;
