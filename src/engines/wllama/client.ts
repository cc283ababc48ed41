// The main thread's handle on the llama.cpp worker: Comlink, plus calls that fail instead of
// hanging when the worker never started or has died.
import * as Comlink from "comlink";
import { WllamaWorkerCrashedError } from "./errors.ts";
import type { NamedBlob } from "./model-file.ts";
import type { PartialDownload, StoredModel } from "./model-store.ts";
import {
  isWllamaDiagnostic,
  type WllamaCompletionRequest,
  type WllamaCompletionResult,
  type WllamaEnvironment,
  type WllamaLoadOutcome,
  type WllamaLoadRequest,
  type WllamaWorkerApi,
} from "./protocol.ts";

type WorkerLike = Pick<Worker, "postMessage" | "addEventListener" | "terminate">;

/** Starts workers/wllama.worker.ts (the literal `new URL(…, import.meta.url)` is what Vite bundles). */
export function spawnWllamaWorker(): Worker {
  return new Worker(new URL("../../../workers/wllama.worker.ts", import.meta.url), { type: "module", name: "rlm-llama-cpp" });
}

export class WllamaWorkerClient implements WllamaWorkerApi {
  onProblem: ((message: string) => void) | undefined;
  private readonly remote: Comlink.Remote<WllamaWorkerApi>;
  private readonly ready: Promise<void>;
  private readonly dead: Promise<never>;
  private markReady!: () => void;
  private kill!: (err: Error) => void;
  private started = false;
  private terminated = false;

  constructor(private readonly worker: WorkerLike) {
    this.ready = new Promise<void>((resolve) => (this.markReady = resolve));
    this.dead = new Promise<never>((_, reject) => (this.kill = reject));
    this.dead.catch(() => undefined);
    worker.addEventListener("message", (event: MessageEvent) => {
      if (!isWllamaDiagnostic(event.data)) return;
      if (event.data.rlmWllamaWorkerDiagnostic === "ready") {
        this.started = true;
        this.markReady();
      } else this.onProblem?.(event.data.message);
    });
    worker.addEventListener("error", (event: Event) => {
      const message =
        "message" in event && typeof event.message === "string" && event.message ? event.message : "the worker script failed to load";
      if (!this.started) {
        this.kill(new WllamaWorkerCrashedError(message));
        event.preventDefault();
      } else this.onProblem?.(message);
    });
    this.remote = Comlink.wrap<WllamaWorkerApi>(worker as unknown as Comlink.Endpoint);
  }

  static spawn(): WllamaWorkerClient {
    return new WllamaWorkerClient(spawnWllamaWorker());
  }

  private async call<T>(fn: (remote: Comlink.Remote<WllamaWorkerApi>) => Promise<T>): Promise<T> {
    if (this.terminated) throw new WllamaWorkerCrashedError("the worker was shut down");
    await Promise.race([this.ready, this.dead]);
    return Promise.race([fn(this.remote), this.dead]);
  }

  environment(): Promise<WllamaEnvironment> {
    return this.call((r) => r.environment());
  }

  listModels(): Promise<StoredModel[]> {
    return this.call((r) => r.listModels());
  }

  storeModel(
    model: Omit<StoredModel, "files" | "totalBytes" | "addedAt">,
    parts: NamedBlob[],
    onProgress?: (bytes: number, total: number) => void,
  ): Promise<StoredModel> {
    return this.call((r) => r.storeModel(model, parts, onProgress ? Comlink.proxy(onProgress) : undefined));
  }

  deleteModel(id: string): Promise<void> {
    return this.call((r) => r.deleteModel(id));
  }

  download(
    target: { id: string; url: string; fileName: string },
    onProgress?: (bytes: number, total: number | null) => void,
  ): Promise<StoredModel> {
    return this.call((r) => r.download(target, onProgress ? Comlink.proxy(onProgress) : undefined));
  }

  cancelDownload(id: string): Promise<void> {
    return this.call((r) => r.cancelDownload(id));
  }

  partialDownloads(): Promise<PartialDownload[]> {
    return this.call((r) => r.partialDownloads());
  }

  load(request: WllamaLoadRequest, onProgress?: (message: string) => void): Promise<WllamaLoadOutcome> {
    return this.call((r) => r.load(request, onProgress ? Comlink.proxy(onProgress) : undefined));
  }

  complete(request: WllamaCompletionRequest, onDelta?: (delta: string) => void): Promise<WllamaCompletionResult> {
    return this.call((r) => r.complete(request, onDelta ? Comlink.proxy(onDelta) : undefined));
  }

  cancel(id: number): Promise<void> {
    return this.call((r) => r.cancel(id));
  }

  unload(): Promise<void> {
    return this.call((r) => r.unload());
  }

  terminate(): void {
    if (this.terminated) return;
    this.terminated = true;
    this.worker.terminate();
    this.kill(new WllamaWorkerCrashedError("the worker was shut down"));
  }
}
