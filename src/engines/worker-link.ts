// The main thread's link to an engine worker (WebLLM's, llama.cpp's), for what Comlink does not
// do: calls wait until the worker says it listens, and fail instead of hanging forever when the
// worker never started, died or was shut down. Problems the worker reports that no call was
// waiting for go to `report`. Each engine's client implements its worker API on top of it.
import * as Comlink from "comlink";

/** What the link needs from a Worker (a real one, or a stand-in in tests). */
export type WorkerLike = Pick<Worker, "postMessage" | "addEventListener" | "terminate">;

/** A message outside Comlink, as the engine's protocol reads it: ready, a problem, or not one of its own. */
export type WorkerNote = { ready: true } | { problem: string } | null;

export interface WorkerLinkOptions {
  /** Reads the worker's own diagnostics (its protocol's type guard). */
  readNote(data: unknown): WorkerNote;
  /** The engine's error for a worker that cannot answer, with what happened. */
  crashed(message: string): Error;
  /** A problem no call was waiting for (an unhandled rejection, an error after start). */
  report(message: string): void;
}

export class WorkerLink<Api> {
  private readonly remote: Comlink.Remote<Api>;
  private readonly ready: Promise<void>;
  private readonly dead: Promise<never>;
  private markReady!: () => void;
  private kill!: (err: Error) => void;
  private started = false;
  private terminated = false;

  constructor(
    private readonly worker: WorkerLike,
    private readonly options: WorkerLinkOptions,
  ) {
    this.ready = new Promise<void>((resolve) => (this.markReady = resolve));
    this.dead = new Promise<never>((_, reject) => (this.kill = reject));
    this.dead.catch(() => undefined); // observed through race(); never an unhandled rejection by itself
    worker.addEventListener("message", (event: MessageEvent) => this.onMessage(event.data));
    worker.addEventListener("error", (event: Event) => this.onError(event));
    worker.addEventListener("messageerror", () => options.report("a message from the worker could not be read"));
    this.remote = Comlink.wrap<Api>(worker as unknown as Comlink.Endpoint);
  }

  /** A call into the worker, once it listens; rejected with the engine's error if it dies first. */
  async call<T>(fn: (remote: Comlink.Remote<Api>) => Promise<T>): Promise<T> {
    if (this.terminated) throw this.options.crashed("the worker was shut down");
    await Promise.race([this.ready, this.dead]);
    return Promise.race([fn(this.remote), this.dead]);
  }

  /** Stops the worker at once (frees its memory); pending calls fail. */
  terminate(): void {
    if (this.terminated) return;
    this.terminated = true;
    this.worker.terminate();
    this.kill(this.options.crashed("the worker was shut down"));
  }

  private onMessage(data: unknown): void {
    const note = this.options.readNote(data);
    if (!note) return;
    if ("ready" in note) {
      this.started = true;
      this.markReady();
    } else {
      this.options.report(note.problem);
    }
  }

  private onError(event: Event): void {
    const message =
      "message" in event && typeof event.message === "string" && event.message ? event.message : "the worker script failed to load";
    if (!this.started) {
      // Before "ready", Comlink is not listening yet: every call would wait forever.
      this.kill(this.options.crashed(message));
      event.preventDefault();
      return;
    }
    this.options.report(message);
  }
}
