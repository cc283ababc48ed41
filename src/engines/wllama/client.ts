// The main thread's handle on the llama.cpp worker: Comlink, plus calls that fail instead of
// hanging when the worker never started or has died.
import * as Comlink from "comlink";
import { WorkerLink, type WorkerLike } from "../worker-link.ts";
import { WllamaWorkerCrashedError } from "./errors.ts";
import type { NamedBlob } from "./model-file.ts";
import type { PartialDownload, StoredModel } from "./model-store.ts";
import type { WllamaLoadProgress } from "./load-progress.ts";
import {
  isWllamaDiagnostic,
  type WllamaCompletionRequest,
  type WllamaCompletionResult,
  type WllamaEnvironment,
  type WllamaLoadOutcome,
  type WllamaLoadRequest,
  type WllamaWorkerApi,
} from "./protocol.ts";

/** Starts workers/browser/wllama.worker.ts (the literal `new URL(…, import.meta.url)` is what Vite bundles). */
export function spawnWllamaWorker(): Worker {
  return new Worker(new URL("../../../workers/browser/wllama.worker.ts", import.meta.url), { type: "module", name: "rlm-llama-cpp" });
}

export class WllamaWorkerClient implements WllamaWorkerApi {
  onProblem: ((message: string) => void) | undefined;
  private readonly link: WorkerLink<WllamaWorkerApi>;

  constructor(worker: WorkerLike) {
    this.link = new WorkerLink(worker, {
      readNote: (data) =>
        !isWllamaDiagnostic(data) ? null : data.rlmWllamaWorkerDiagnostic === "ready" ? { ready: true } : { problem: data.message },
      crashed: (message) => new WllamaWorkerCrashedError(message),
      report: (message) => this.onProblem?.(message),
    });
  }

  static spawn(): WllamaWorkerClient {
    return new WllamaWorkerClient(spawnWllamaWorker());
  }

  private call<T>(fn: (remote: Comlink.Remote<WllamaWorkerApi>) => Promise<T>): Promise<T> {
    return this.link.call(fn);
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

  load(request: WllamaLoadRequest, onProgress?: (progress: WllamaLoadProgress) => void): Promise<WllamaLoadOutcome> {
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
    this.link.terminate();
  }
}
