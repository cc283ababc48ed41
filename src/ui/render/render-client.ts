// The main thread's side of the render worker. Two lanes, so a huge answer being parsed never
// holds up the small texts queued behind it (a streamed reply, the steps of a turn); each job
// gets a time budget that grows with its size, and a worker that runs over is killed and
// replaced, the job then falling back to plain text. Results of small texts are cached, so a
// view shown again (a session reopened, steps toggled) paints at once.
import type { RenderChunk } from "./markdown-html.ts";
import type { RenderReply, RenderRequest } from "./protocol.ts";

export class RenderTimeoutError extends Error {
  override name = "RenderTimeoutError";
  constructor(ms: number) {
    super(`Formatting this text took longer than ${Math.round(ms / 1000)} s, so it is shown as plain text.`);
  }
}

export class RenderFailedError extends Error {
  override name = "RenderFailedError";
  constructor(detail: string) {
    super(`This text could not be formatted (${detail}), so it is shown as plain text.`);
  }
}

/** The part of a Worker a lane uses; tests pass a fake. */
export interface RenderWorkerLike {
  postMessage(message: RenderRequest): void;
  terminate(): void;
  addEventListener(type: "message", listener: (event: MessageEvent<RenderReply>) => void): void;
  addEventListener(type: "error", listener: (event: ErrorEvent) => void): void;
}

export type RenderWorkerFactory = () => RenderWorkerLike;

export const defaultRenderWorker: RenderWorkerFactory = () =>
  // Vite bundles the worker only when it sees this literal `new Worker(new URL(...))` form.
  new Worker(new URL("../../../workers/browser/render.worker.ts", import.meta.url), {
    type: "module",
    name: "render",
  }) as unknown as RenderWorkerLike;

/** Texts up to this size go to the quick lane, and their results are cached. */
export const QUICK_LANE_CHARS = 64 * 1024;

/** How long parsing `chars` characters may take: markdown-it did 1 MB of its worst inputs in
 * 2-6 s on a loaded 2-core machine, so 1 MB gets 13 s before the page gives up on formatting. */
export function budgetMs(chars: number): number {
  return Math.min(15_000, 4_000 + (chars / 1_000_000) * 9_000);
}

interface Job {
  id: number;
  text: string;
  signal: AbortSignal | undefined;
  resolve: (chunks: RenderChunk[]) => void;
  reject: (err: Error) => void;
  onAbort?: () => void;
  /** Given up on while the worker parses it: its result, when it comes, is dropped. */
  abandoned?: boolean;
}

let nextId = 1;

export class RenderLane {
  private worker: RenderWorkerLike | null = null;
  private readonly queue: Job[] = [];
  private current: Job | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  /**
   * `killOnCancel`: stop the worker when the job it is parsing is no longer wanted. Right for
   * huge texts (seconds of parsing); wrong for small ones, where a streamed reply cancels its
   * previous render with every token and a new worker costs more than the parse.
   */
  constructor(
    private readonly createWorker: RenderWorkerFactory,
    private readonly killOnCancel: boolean,
    private readonly budget: (chars: number) => number = budgetMs,
  ) {}

  render(text: string, signal?: AbortSignal): Promise<RenderChunk[]> {
    return new Promise<RenderChunk[]>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const job: Job = { id: nextId++, text, signal, resolve, reject };
      job.onAbort = () => this.cancel(job);
      signal?.addEventListener("abort", job.onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  private pump(): void {
    if (this.current || !this.queue.length) return;
    const job = this.queue.shift()!;
    this.current = job;
    let worker: RenderWorkerLike;
    try {
      worker = this.ensureWorker();
    } catch (err) {
      this.finish(job, () => job.reject(new RenderFailedError(err instanceof Error ? err.message : String(err))));
      return;
    }
    const ms = this.budget(job.text.length);
    this.timer = setTimeout(() => {
      this.kill();
      this.finish(job, () => job.reject(new RenderTimeoutError(ms)));
    }, ms);
    worker.postMessage({ type: "render", id: job.id, text: job.text });
  }

  private ensureWorker(): RenderWorkerLike {
    if (this.worker) return this.worker;
    const worker = this.createWorker();
    worker.addEventListener("message", (event: MessageEvent<RenderReply>) => this.onReply(event.data));
    worker.addEventListener("error", (event: ErrorEvent) => {
      event.preventDefault?.();
      const job = this.current;
      this.kill();
      if (job) this.finish(job, () => job.reject(new RenderFailedError(event.message || "the formatter stopped")));
    });
    this.worker = worker;
    return worker;
  }

  private onReply(reply: RenderReply): void {
    const job = this.current;
    if (!job || reply.id !== job.id) return; // a reply for a job already given up on
    if (job.abandoned) this.finish(job, () => undefined);
    else if (reply.type === "rendered") this.finish(job, () => job.resolve(reply.chunks));
    else this.finish(job, () => job.reject(new RenderFailedError(reply.message)));
  }

  /** Ends the current job (its outcome decided by `settle`) and starts the next. */
  private finish(job: Job, settle: () => void): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
    if (this.current === job) this.current = null;
    settle();
    this.pump();
  }

  private cancel(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      job.reject(job.signal?.reason as Error);
      return;
    }
    if (this.current !== job) return;
    job.reject(job.signal?.reason as Error);
    if (this.killOnCancel) {
      // Nobody wants this result any more: free the lane rather than wait out a long parse.
      this.kill();
      this.finish(job, () => undefined);
    } else job.abandoned = true;
  }

  private kill(): void {
    this.worker?.terminate();
    this.worker = null;
  }

  dispose(): void {
    this.kill();
    for (const job of this.queue.splice(0)) job.reject(new RenderFailedError("the page closed the formatter"));
  }
}

/** Least-recently-used results of small texts, bounded by total text size. */
class ResultCache {
  private readonly entries = new Map<string, RenderChunk[]>();
  private chars = 0;
  constructor(private readonly maxChars: number) {}

  get(text: string): RenderChunk[] | undefined {
    const hit = this.entries.get(text);
    if (hit) {
      this.entries.delete(text);
      this.entries.set(text, hit);
    }
    return hit;
  }

  set(text: string, chunks: RenderChunk[]): void {
    if (text.length > this.maxChars / 4 || this.entries.has(text)) return;
    this.entries.set(text, chunks);
    this.chars += text.length;
    for (const [key] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(key);
      this.chars -= key.length;
    }
  }
}

export class MarkdownRenderClient {
  private readonly quick: RenderLane;
  private readonly bulk: RenderLane;
  private readonly cache = new ResultCache(4 * 1024 * 1024);

  constructor(createWorker: RenderWorkerFactory = defaultRenderWorker) {
    this.quick = new RenderLane(createWorker, false);
    this.bulk = new RenderLane(createWorker, true);
  }

  cached(text: string): RenderChunk[] | undefined {
    return this.cache.get(text);
  }

  async render(text: string, signal?: AbortSignal): Promise<RenderChunk[]> {
    const hit = this.cache.get(text);
    if (hit) return hit;
    const small = text.length <= QUICK_LANE_CHARS;
    const chunks = await (small ? this.quick : this.bulk).render(text, signal);
    if (small) this.cache.set(text, chunks);
    return chunks;
  }
}

let shared: MarkdownRenderClient | null = null;

/** The page's one render client (its workers start on first use). */
export function renderClient(): MarkdownRenderClient {
  shared ??= new MarkdownRenderClient();
  return shared;
}
