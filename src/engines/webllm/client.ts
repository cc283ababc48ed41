// The main thread's handle on one model worker. It implements the worker API itself, adding
// what Comlink does not do: callbacks wrapped in Comlink.proxy (top-level arguments only), and
// calls that fail instead of hanging forever when the worker never started or died.
import * as Comlink from "comlink";
import { WorkerLink, type WorkerLike } from "../worker-link.ts";
import { ModelWorkerCrashedError } from "./errors.ts";
import type { LoadProgressReport } from "./progress.ts";
import {
  isWorkerDiagnostic,
  type LoadOutcome,
  type LoadRequest,
  type ModelCacheStatus,
  type ModelWorkerApi,
  type WorkerCompletionRequest,
  type WorkerCompletionResult,
  type WorkerState,
} from "./protocol.ts";
import type { GpuProbe, WebLLMModelRecord } from "./types.ts";

export type { WorkerLike };

/** Starts workers/browser/model.worker.ts. The `new URL(…, import.meta.url)` form is what Vite bundles. */
export function spawnModelWorker(): Worker {
  return new Worker(new URL("../../../workers/browser/model.worker.ts", import.meta.url), { type: "module", name: "rlm-model" });
}

export class ModelWorkerClient implements ModelWorkerApi {
  /** Problems the worker reported that no call was waiting for (unhandled rejections, errors). */
  readonly problems: string[] = [];
  onProblem: ((message: string) => void) | undefined;

  private readonly link: WorkerLink<ModelWorkerApi>;

  constructor(worker: WorkerLike) {
    this.link = new WorkerLink(worker, {
      readNote: (data) =>
        !isWorkerDiagnostic(data) ? null : data.rlmModelWorkerDiagnostic === "ready" ? { ready: true } : { problem: data.message },
      crashed: (message) => new ModelWorkerCrashedError(message),
      report: (message) => {
        this.problems.push(message);
        this.onProblem?.(message);
      },
    });
  }

  static spawn(): ModelWorkerClient {
    return new ModelWorkerClient(spawnModelWorker());
  }

  private call<T>(fn: (remote: Comlink.Remote<ModelWorkerApi>) => Promise<T>): Promise<T> {
    return this.link.call(fn);
  }

  probeGpu(): Promise<GpuProbe> {
    return this.call<GpuProbe>((r) => r.probeGpu() as Promise<GpuProbe>);
  }

  load(request: LoadRequest, onProgress?: (report: LoadProgressReport) => void): Promise<LoadOutcome> {
    return this.call((r) => r.load(request, onProgress ? Comlink.proxy(onProgress) : undefined));
  }

  complete(request: WorkerCompletionRequest, onDelta?: (delta: string) => void): Promise<WorkerCompletionResult> {
    return this.call((r) => r.complete(request, onDelta ? Comlink.proxy(onDelta) : undefined));
  }

  interrupt(): Promise<void> {
    return this.call((r) => r.interrupt());
  }

  unload(): Promise<void> {
    return this.call((r) => r.unload());
  }

  state(): Promise<WorkerState> {
    return this.call((r) => r.state());
  }

  hasModelInCache(record: WebLLMModelRecord): Promise<boolean> {
    return this.call((r) => r.hasModelInCache(record));
  }

  cacheStatus(records: WebLLMModelRecord[]): Promise<ModelCacheStatus[]> {
    return this.call((r) => r.cacheStatus(records));
  }

  deleteModel(record: WebLLMModelRecord): Promise<void> {
    return this.call((r) => r.deleteModel(record));
  }

  /** Stops the worker at once (frees its GPU memory); pending calls fail. */
  terminate(): void {
    this.link.terminate();
  }
}
