// ModelWorkerClient over a MessageChannel with a Comlink-exposed stand-in API: the real Comlink
// wiring (top-level proxies, errors keeping their name), the "ready" handshake, worker
// diagnostics, and calls that fail instead of hanging when the worker dies.
import * as Comlink from "comlink";
import { describe, expect, it } from "vitest";
import { ModelWorkerClient, type WorkerLike } from "../../src/engines/webllm/client.ts";
import { ModelWorkerCrashedError } from "../../src/engines/webllm/errors.ts";
import type { LoadProgressReport } from "../../src/engines/webllm/progress.ts";
import type { LoadRequest, WorkerState } from "../../src/engines/webllm/protocol.ts";

function channelWorker(): { worker: WorkerLike; port: MessagePort; fireError: (message?: string) => void; terminated: () => boolean } {
  const { port1, port2 } = new MessageChannel();
  const errors = new EventTarget();
  let terminated = false;
  const worker = {
    postMessage: (data: unknown, transfer?: Transferable[]) => port1.postMessage(data, transfer ?? []),
    addEventListener: (type: string, fn: EventListener) =>
      type === "message" ? port1.addEventListener(type, fn) : errors.addEventListener(type, fn),
    removeEventListener: (type: string, fn: EventListener) =>
      type === "message" ? port1.removeEventListener(type, fn) : errors.removeEventListener(type, fn),
    terminate: () => {
      terminated = true;
      port1.close();
    },
  } as unknown as WorkerLike;
  port1.start();
  return {
    worker,
    port: port2,
    fireError: (message?: string) =>
      errors.dispatchEvent(Object.assign(new Event("error", { cancelable: true }), message ? { message } : {})),
    terminated: () => terminated,
  };
}

const state: WorkerState = { loadedModelId: "m", contextWindow: 4096, loading: false, deviceLost: null };

function exposeStandIn(port: MessagePort) {
  Comlink.expose(
    {
      state: async () => state,
      load: async (request: LoadRequest, onProgress?: (r: LoadProgressReport) => void) => {
        await onProgress?.({ progress: 1, timeElapsed: 1, text: "Finish loading on WebGPU - x", parsed: { phase: "ready", percent: 100 } });
        return { modelId: request.record.model_id, contextWindow: request.contextWindow, cancelled: false, wasCached: true, seconds: 1 };
      },
      complete: async () => {
        const e = new Error("Prompt tokens exceed context window size: number of prompt tokens: 9; context window size: 8");
        e.name = "ContextWindowSizeExceededError";
        throw e;
      },
    },
    port,
  );
  port.postMessage({ rlmModelWorkerDiagnostic: "ready", message: "" });
}

describe("ModelWorkerClient", () => {
  it("passes callbacks as top-level proxies and keeps error names across the boundary", async () => {
    const { worker, port } = channelWorker();
    exposeStandIn(port);
    const client = new ModelWorkerClient(worker);
    expect(await client.state()).toEqual(state);
    const reports: string[] = [];
    const outcome = await client.load(
      { record: { model_id: "m", model: "https://h/m", model_lib: "https://h/m.wasm" }, contextWindow: 8192 },
      (r) => reports.push(r.parsed.phase),
    );
    expect(outcome).toMatchObject({ modelId: "m", contextWindow: 8192, wasCached: true });
    expect(reports).toEqual(["ready"]);
    const err = await client.complete({ messages: [] }).catch((e: unknown) => e);
    expect((err as Error).name).toBe("ContextWindowSizeExceededError");
    expect((err as Error).message).toMatch(/number of prompt tokens: 9/);
    client.terminate();
    port.close();
  });

  it("fails pending calls when the worker errors before it is ready (instead of hanging)", async () => {
    const { worker, port, fireError } = channelWorker();
    const client = new ModelWorkerClient(worker);
    const pending = client.state();
    fireError("SyntaxError: Unexpected token");
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelWorkerCrashedError);
    expect((err as Error).message).toMatch(/stopped unexpectedly \(SyntaxError: Unexpected token\)/);
    port.close();
  });

  it("collects diagnostics the worker posts after it is ready", async () => {
    const { worker, port, fireError } = channelWorker();
    exposeStandIn(port);
    const client = new ModelWorkerClient(worker);
    const seen: string[] = [];
    client.onProblem = (m) => seen.push(m);
    await client.state();
    port.postMessage({ rlmModelWorkerDiagnostic: "unhandledrejection", message: "TypeError: boom" });
    await new Promise((r) => setTimeout(r, 20));
    fireError("ReferenceError: x is not defined");
    await new Promise((r) => setTimeout(r, 20));
    expect(client.problems).toEqual(["TypeError: boom", "ReferenceError: x is not defined"]);
    expect(seen).toEqual(client.problems);
    expect(await client.state()).toEqual(state); // still usable
    client.terminate();
    port.close();
  });

  it("after terminate, calls fail with ModelWorkerCrashedError", async () => {
    const { worker, port, terminated } = channelWorker();
    exposeStandIn(port);
    const client = new ModelWorkerClient(worker);
    await client.state();
    client.terminate();
    expect(terminated()).toBe(true);
    await expect(client.state()).rejects.toBeInstanceOf(ModelWorkerCrashedError);
    port.close();
  });
});
