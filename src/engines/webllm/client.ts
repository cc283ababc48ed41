// The main thread's handle on one model worker. It implements the worker API itself, adding
// what Comlink does not do: callbacks wrapped in Comlink.proxy (top-level arguments only), and
// calls that fail instead of hanging forever when the worker never started or died.
import * as Comlink from "comlink";
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

/** What the client needs from a Worker (a real one, or a stand-in in tests). */
export type WorkerLike = Pick<Worker, "postMessage" | "addEventListener" | "removeEventListener" | "terminate">;

/** Starts workers/model.worker.ts. The `new URL(…, import.meta.url)` form is what Vite bundles. */
export function spawnModelWorker(): Worker {
  return new Worker(new URL("../../../workers/model.worker.ts", import.meta.url), { type: "module", name: "rlm-model" });
}

export class ModelWorkerClient implements ModelWorkerApi {
  /** Problems the worker reported that no call was waiting for (unhandled rejections, errors). */
  readonly problems: string[] = [];
  onProblem: ((message: string) => void) | undefined;

  private readonly remote: Comlink.Remote<ModelWorkerApi>;
  private readonly ready: Promise<void>;
  private readonly dead: Promise<never>;
  private markReady!: () => void;
  private kill!: (err: Error) => void;
  private started = false;
  private terminated = false;

  constructor(private readonly worker: WorkerLike) {
    this.ready = new Promise<void>((resolve) => (this.markReady = resolve));
    this.dead = new Promise<never>((_, reject) => (this.kill = reject));
    this.dead.catch(() => undefined); // observed through race(); never an unhandled rejection by itself
    worker.addEventListener("message", (event: MessageEvent) => this.onMessage(event.data));
    worker.addEventListener("error", (event: Event) => this.onError(event));
    worker.addEventListener("messageerror", () => this.report("a message from the model worker could not be read"));
    this.remote = Comlink.wrap<ModelWorkerApi>(worker as unknown as Comlink.Endpoint);
  }

  static spawn(): ModelWorkerClient {
    return new ModelWorkerClient(spawnModelWorker());
  }

  private onMessage(data: unknown): void {
    if (!isWorkerDiagnostic(data)) return;
    if (data.rlmModelWorkerDiagnostic === "ready") {
      this.started = true;
      this.markReady();
    } else {
      this.report(data.message);
    }
  }

  private onError(event: Event): void {
    const message =
      "message" in event && typeof event.message === "string" && event.message ? event.message : "the worker script failed to load";
    if (!this.started) {
      // Before "ready", Comlink is not listening yet: every call would wait forever.
      this.kill(new ModelWorkerCrashedError(message));
      event.preventDefault();
      return;
    }
    this.report(message);
  }

  private report(message: string): void {
    this.problems.push(message);
    this.onProblem?.(message);
  }

  private async call<T>(fn: (remote: Comlink.Remote<ModelWorkerApi>) => Promise<T>): Promise<T> {
    if (this.terminated) throw new ModelWorkerCrashedError("the worker was shut down");
    await Promise.race([this.ready, this.dead]);
    return Promise.race([fn(this.remote), this.dead]);
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
    if (this.terminated) return;
    this.terminated = true;
    this.worker.terminate();
    this.kill(new ModelWorkerCrashedError("the worker was shut down"));
  }
}
