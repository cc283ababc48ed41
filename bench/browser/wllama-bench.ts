// The page side of bench/wllama.ts: llama.cpp (wllama) in its worker, exactly as the app runs it
// (same worker, same OPFS store, same load options), driven step by step so prefill and decode
// are timed by llama.cpp's own counters.
import { WllamaWorkerClient } from "../../src/engines/wllama/client.ts";
import { inspectModel } from "../../src/engines/wllama/model-file.ts";
import { modelIdFor } from "../../src/engines/wllama/model-store.ts";
import type { WllamaKvCacheType, WllamaTimings } from "../../src/engines/wllama/protocol.ts";
import { wllamaAssets } from "../../src/engines/wllama/assets.ts";

const client = WllamaWorkerClient.spawn();
let modelId = "";
let nextId = 1;

const assets = () => wllamaAssets(new URL("/wllama/", location.href));

export interface WllamaBenchApi {
  /** Keeps the file(s) chosen in #model in OPFS, as the app does. */
  store(): Promise<{ seconds: number; bytes: number }>;
  load(
    threads: number,
    kvTokens: number,
    build?: "compat" | "simd",
    options?: { kvCacheType?: WllamaKvCacheType; flashAttention?: boolean; relaxedSimd?: boolean },
  ): Promise<{ seconds: number; threads: number; multiThread: boolean; compat: boolean; relaxedSimd: boolean; memoryLog: string[] }>;
  /** Evaluates a prompt (the caller makes it unique) and one token: prompt tokens and llama.cpp's prompt time. */
  prefill(text: string): Promise<WllamaTimings>;
  /** The same prompt again (its KV cache kept by the slot), generating `tokens`: decode at the prompt's depth. */
  continueAfter(text: string, tokens: number): Promise<WllamaTimings>;
  /** Generates `tokens` tokens after a short prompt. */
  decode(tokens: number): Promise<WllamaTimings>;
  /** Greedy text for one user message (tests/e2e/llama-wasm-agreement.test.ts), and the prompt's token count. */
  generate(text: string, tokens: number): Promise<{ text: string; promptTokens: number }>;
  /** Starts a long prefill, cancels it after `afterMs`: how long until the call ends, and whether the next call works. */
  abortPrefill(text: string, afterMs: number): Promise<{ stopMs: number; nextWorks: boolean }>;
  environment(): ReturnType<WllamaWorkerClient["environment"]>;
}

async function timed(text: string, maxTokens: number, ignoreEos: boolean): Promise<WllamaTimings> {
  const result = await client.complete({
    id: nextId++,
    messages: [{ role: "user", content: text }],
    maxTokens,
    sampling: { temperature: 0 },
    ignoreEos,
  });
  if (!result.timings) throw new Error("llama.cpp sent no timings");
  return result.timings;
}

const api: WllamaBenchApi = {
  async store() {
    const files = [...((document.getElementById("model") as HTMLInputElement).files ?? [])];
    const started = performance.now();
    const parts = files.map((f) => ({ name: f.name, blob: f }));
    const info = await inspectModel(parts);
    modelId = modelIdFor(info.name, info.totalBytes);
    await client.storeModel({ id: modelId, info, source: "file" }, parts);
    return { seconds: (performance.now() - started) / 1000, bytes: info.totalBytes };
  },
  async load(threads, kvTokens, build, options) {
    const outcome = await client.load({ modelId, kvTokens, slots: 2, threads, assets: assets(), ...(build ? { build } : {}), ...options });
    return {
      seconds: outcome.seconds,
      threads: outcome.threads,
      multiThread: outcome.multiThread,
      compat: outcome.compat,
      relaxedSimd: outcome.relaxedSimd,
      memoryLog: outcome.memoryLog,
    };
  },
  prefill: (text) => timed(text, 1, true),
  continueAfter: (text, tokens) => timed(text, tokens, true),
  decode: (tokens) => timed(`${Math.random()} Write.`, tokens, true),
  async generate(text, tokens) {
    const result = await client.complete({
      id: nextId++,
      messages: [{ role: "user", content: text }],
      maxTokens: tokens,
      sampling: { temperature: 0 },
      ignoreEos: true,
      // Qwen3's template then closes an empty think block, as node-llama-cpp's rendering does
      thinking: false,
    });
    // a fresh load: nothing comes from the KV cache, so the evaluated count is the whole prompt
    return { text: result.text, promptTokens: result.timings?.promptTokens ?? result.usage?.promptTokens ?? -1 };
  },
  async abortPrefill(text, afterMs) {
    const id = nextId++;
    const call = client.complete({ id, messages: [{ role: "user", content: `${Math.random()} ${text}` }], maxTokens: 1 });
    await new Promise((r) => setTimeout(r, afterMs));
    const cancelled = performance.now();
    await client.cancel(id);
    await call.catch(() => undefined);
    const stopMs = performance.now() - cancelled;
    const next = await timed("After the stop.", 2, true).then(
      () => true,
      () => false,
    );
    return { stopMs, nextWorks: next };
  },
  environment: () => client.environment(),
};

(window as unknown as { wllamaBench: WllamaBenchApi }).wllamaBench = api;
