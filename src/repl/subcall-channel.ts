// Python's sub-calls (llm_query and friends) as the host answers them: each request checked,
// handed to the run's handler, and its reply sent back the way this worker waits for it (the
// shared buffer, or the sub-call port). Stop wakes every waiting sub-call with "interrupted".
import type { CellClock } from "./cell-clock.ts";
import { isSubcallRequestMessage, type SubcallMessage } from "./messages.ts";
import { parseSubcallRequest, writeBlockingReply, type SubcallReply, type SyncMode } from "./protocol.ts";
import type { SubcallHandler } from "./types.ts";

export class SubcallChannel {
  private handler: SubcallHandler | null = null;
  private readonly waiting = new Set<(reply: SubcallReply) => void>();
  /** Set by Stop, cleared when the next cell begins: later sub-calls are answered "interrupted". */
  stopRequested = false;

  constructor(
    /** Where a malformed message is reported (it goes into the trajectory). */
    private readonly reportProblem: (problem: string) => void,
    /** The running cell's clock, which stands still while Python waits for a sub-call. */
    private readonly cellClock: () => CellClock | null,
  ) {}

  setHandler(handler: SubcallHandler | null): void {
    this.handler = handler;
  }

  /** Whether Python waits on a sub-call now. */
  get isWaiting(): boolean {
    return this.waiting.size > 0;
  }

  /** Wakes every waiting sub-call with "interrupted" (Stop, or the worker is gone). */
  wakeAll(): void {
    for (const resolve of this.waiting) resolve({ interrupted: true });
    this.waiting.clear();
  }

  /** The reply (JSON) to one request from Python, as it arrived (unchecked). */
  async answer(requestJson: unknown): Promise<string> {
    let request;
    try {
      request = parseSubcallRequest(requestJson);
    } catch (err) {
      this.reportProblem(err instanceof Error ? err.message : String(err));
      return JSON.stringify({ results: [] });
    }
    if (this.stopRequested) return JSON.stringify({ interrupted: true });
    const handler = this.handler;
    if (!handler) {
      return JSON.stringify({ results: request.prompts.map(() => "Error: sub-calls are not available outside a run") });
    }
    let settle!: (reply: SubcallReply) => void;
    const stopped = new Promise<SubcallReply>((resolve) => {
      settle = resolve;
      this.waiting.add(resolve);
    });
    const work: Promise<SubcallReply> = handler(request).then(
      (results) => ({ results }),
      (err: unknown) => ({
        results: request.prompts.map(() => `Error: ${err instanceof Error ? err.message : String(err)}`),
      }),
    );
    const clock = this.cellClock();
    clock?.modelWaitBegan();
    try {
      return JSON.stringify(await Promise.race([work, stopped]));
    } finally {
      clock?.modelWaitEnded();
      this.waiting.delete(settle);
    }
  }

  /** A message on the sub-call port: a request is answered through the shared buffer ("sab") or the port. */
  async onPortMessage(
    message: unknown,
    port: MessagePort,
    sabBuffer: SharedArrayBuffer | undefined,
    syncMode: () => SyncMode | null,
  ): Promise<void> {
    if (!isSubcallRequestMessage(message)) {
      this.reportProblem("The Python worker sent an unknown message on the sub-call port; it was dropped.");
      return;
    }
    const reply = await this.answer(message.request);
    if (syncMode() === "sab" && sabBuffer) writeBlockingReply(sabBuffer, reply);
    else port.postMessage({ type: "reply", id: message.id, reply } satisfies SubcallMessage);
  }
}
