// The host side of the REPL: feeds the worker documents, runs cells with a watchdog, and
// rebuilds the worker when it stops responding. Its parts, each in a file of its own: the
// worker's life (worker-lifecycle.ts) and the calls that race its end (worker-calls.ts), the
// documents replayed into a new worker (replayed-context.ts), Python's sub-calls
// (subcall-channel.ts), one cell's watch (cell-watch.ts), and the errors (errors.ts).
import {
  CellWatch,
  MALFORMED_RESULT,
  WEDGED,
  WEDGED_BEFORE,
  crashCause,
  explainInterrupt,
  limitText,
  restartedResult,
} from "./cell-watch.ts";
import { WorkerGoneError } from "./errors.ts";
import {
  parseCellResult,
  parseContextInfo,
  parsePassages,
  parseProbeReply,
  type CellResult,
  type ContextDocumentInput,
  type ContextInfo,
  type ContextShape,
  type Passage,
  type ProbeReply,
  type ProbeRequest,
  type ReplBootInfo,
  type ReplStats,
  type SyncMode,
} from "./protocol.ts";
import { ReplayedContext, checkKind } from "./replayed-context.ts";
import { SubcallChannel } from "./subcall-channel.ts";
import type {
  HistoryEntry,
  RebuiltListener,
  SessionRepl,
  ReplClientOptions,
  ReplTransport,
  ReplTransportFactory,
  RunCellOptions,
  SubcallHandler,
} from "./types.ts";
import { WorkerLifecycle } from "./worker-lifecycle.ts";

const DEFAULT_OUTPUT_CAP = 200_000;
const DEFAULT_KILL_GRACE_MS = 1500;

export class ReplClient implements SessionRepl {
  contextInfo: ContextInfo | null = null;
  syncMode: SyncMode | null = null;
  /** Messages from the worker that failed validation, until taken (they go into the trajectory). */
  private protocolErrors: string[] = [];
  private readonly context = new ReplayedContext();
  private readonly subcalls = new SubcallChannel(
    (problem) => this.protocolErrors.push(problem),
    () => this.cell?.clock ?? null,
  );
  private readonly worker: WorkerLifecycle;
  private rebuiltListeners: RebuiltListener[] = [];
  /** The running cell's watch (null between cells). */
  private cell: CellWatch | null = null;
  private cellSeq = 0;
  private readonly outputCap: number;

  constructor(
    factory: ReplTransportFactory,
    private readonly options: ReplClientOptions = {},
  ) {
    this.outputCap = options.outputCap ?? DEFAULT_OUTPUT_CAP;
    this.worker = new WorkerLifecycle(
      factory,
      { ...options, outputCap: this.outputCap },
      {
        subcalls: this.subcalls,
        syncMode: () => this.syncMode,
        afterBoot: (t, info, rebuilt) => this.afterBoot(t, info, rebuilt),
        onExit: (reason) => this.cell?.lost(reason),
      },
    );
  }

  /** Whether a worker is running (false before start and after close). */
  get hasWorker(): boolean {
    return this.worker.hasWorker;
  }

  /** How many times the worker was rebuilt (crash, hang). */
  get restartCount(): number {
    return this.worker.restartCount;
  }

  start(): Promise<ReplBootInfo> {
    return this.worker.start();
  }

  /** Kill the worker and start a fresh one with the same documents. */
  restart(reason: string): Promise<void> {
    return this.worker.restart(reason);
  }

  close(): void {
    this.worker.close();
  }

  /** A booted worker gets the documents back; listeners (the loop) hear of a rebuilt one. */
  private async afterBoot(t: ReplTransport, info: ReplBootInfo, rebuilt: boolean): Promise<void> {
    this.syncMode = info.syncMode;
    const replayed = this.context.replay(t);
    if (replayed) this.contextInfo = parseContextInfo(await this.worker.calls.call(t, replayed));
    if (!rebuilt) return;
    const fresh = {
      beginQuestion: async (history: HistoryEntry[]) =>
        void (await this.worker.calls.call(t, t.api.beginQuestion(JSON.stringify(history)))),
    };
    for (const listener of this.rebuiltListeners) await listener(fresh);
  }

  /**
   * Applies a change to `context` (already recorded in `context`). If the worker is rebuilt or
   * dies before it answers, the change is not lost: the replacement loads everything recorded
   * as it boots, and this waits for that.
   */
  private async changeContext(apply: (t: ReplTransport) => Promise<string>): Promise<ContextInfo> {
    const t = await this.ready();
    try {
      this.contextInfo = parseContextInfo(await this.worker.calls.call(t, apply(t)));
      return this.contextInfo;
    } catch (err) {
      if (!(err instanceof WorkerGoneError) || this.worker.isClosed) throw err;
      const fresh = await this.ready();
      // An empty `context` is not reloaded at boot: apply the change (a removal) to the new worker.
      if (!this.contextInfo || this.context.isEmpty) this.contextInfo = parseContextInfo(await this.worker.calls.call(fresh, apply(fresh)));
      return this.contextInfo;
    }
  }

  private ready(): Promise<ReplTransport> {
    return this.worker.ready();
  }

  /** A call on worker `t` that fails with WorkerGoneError if `t` is torn down before it answers. */
  private call<T>(t: ReplTransport, work: Promise<T>): Promise<T> {
    return this.worker.calls.call(t, work);
  }

  takeProtocolErrors(): string[] {
    const taken = this.protocolErrors;
    this.protocolErrors = [];
    return taken;
  }

  setSubcallHandler(handler: SubcallHandler | null): void {
    this.subcalls.setHandler(handler);
  }

  /** Replace `context` with exactly these documents. */
  async loadDocuments(docs: ContextDocumentInput[], shape: ContextShape = "auto"): Promise<ContextInfo> {
    docs.forEach(checkKind);
    await this.ready();
    this.context.setDocuments(docs, shape);
    return this.changeContext((t) => t.api.loadDocuments(docs, shape));
  }

  /** Decode one more document into `context`; the others are not touched. */
  async addDocument(doc: ContextDocumentInput): Promise<ContextInfo> {
    checkKind(doc);
    await this.ready();
    this.context.addDocument(doc);
    return this.changeContext((t) => t.api.addDocument(doc));
  }

  async removeDocument(name: string): Promise<ContextInfo> {
    await this.ready();
    this.context.removeDocument(name);
    return this.changeContext((t) => t.api.removeDocument(name));
  }

  async setContextText(text: string): Promise<ContextInfo> {
    await this.ready();
    this.context.setText(text);
    return this.changeContext((t) => t.api.setContextText(text));
  }

  onRebuilt(listener: RebuiltListener): void {
    this.rebuiltListeners.push(listener);
  }

  async beginQuestion(history: HistoryEntry[]): Promise<void> {
    const t = await this.ready();
    await this.call(t, t.api.beginQuestion(JSON.stringify(history)));
  }

  async stats(): Promise<ReplStats> {
    const t = await this.ready();
    const s = await this.call(t, t.api.stats());
    return { wasmHeapBytes: typeof s?.wasmHeapBytes === "number" ? s.wasmHeapBytes : 0 };
  }

  /** The text of document ranges, for quoting an answer's sources (null where a range is gone). */
  async sourcePassages(ranges: ReadonlyArray<{ doc: string; start: number; end: number }>): Promise<Array<Passage | null>> {
    if (!ranges.length) return [];
    const t = await this.ready();
    const asked = ranges.map(({ doc, start, end }) => ({ doc, start, end }));
    return parsePassages(await this.call(t, t.api.sourcePassages(JSON.stringify(asked))), asked.length);
  }

  async resetNamespace(): Promise<void> {
    const t = await this.ready();
    await this.call(t, t.api.resetNamespace());
  }

  /**
   * One of the harness's own questions to Python (ProbeRequest), as a worker call of its own:
   * never a cell, so a read of a 600,000-character document comes back whole, and nothing is
   * recorded as read or shown to the model. Throws ReplProbeError when Python fails (Stop
   * interrupts a long one), ReplProtocolError when the reply is not the shape asked for.
   */
  async probe<R extends ProbeRequest>(request: R): Promise<ProbeReply<R>> {
    const t = await this.ready();
    return parseProbeReply(request, await this.call(t, t.api.probe(JSON.stringify(request))));
  }

  async runCell(code: string, options: RunCellOptions = {}): Promise<CellResult> {
    const t = await this.ready();
    this.subcalls.stopRequested = false;
    const watch = new CellWatch(options.timeoutMs, () => this.interrupt());
    this.cell = watch;
    const id = ++this.cellSeq;
    try {
      const outcome = await Promise.race([this.cellResult(t, code, id), watch.mustKill, watch.gone]);
      if (outcome === "kill") {
        return this.rebuildAfter(
          t,
          watch.timedOut ? limitText(options.timeoutMs, "and Python did not stop") : "Python did not stop when asked",
        );
      }
      if ("gone" in outcome) return this.rebuildAfter(t, outcome.gone);
      const how = { timedOut: watch.timedOut, stopped: this.subcalls.stopRequested, timeoutMs: options.timeoutMs };
      const result = explainInterrupt(outcome, how);
      if (await this.heartbeat(t)) return result;
      const rebuilt = this.rebuildAfter(t, WEDGED);
      return { ...rebuilt, stdout: result.stdout, stderr: result.stderr + rebuilt.stderr };
    } catch (err) {
      // run_cell catches every Python exception itself, so a rejection means the runtime
      // broke (a fatal Pyodide error, a dead worker): rebuild it.
      return this.rebuildAfter(t, crashCause(err));
    } finally {
      watch.dispose();
      this.cell = null;
    }
  }

  /**
   * Cell `id`'s checked result, or `{ gone }` when the worker is wedged before it (a wedge after
   * it is the heartbeat's to find, in runCell). The result is taken from the private port alone
   * (WorkerPulse): Comlink's reply comes on the worker's global port, where a cell in the page's
   * worker can listen for each call's id and post a reply of its own ahead of the real one. The
   * reply still tells when the call failed.
   */
  private cellResult(t: ReplTransport, code: string, id: number): Promise<CellResult | { gone: string }> {
    const pulse = this.worker.ends.pulse;
    pulse?.reset();
    const never = new Promise<never>(() => undefined);
    // Work an earlier cell left behind (a message handler that spins) keeps the cell from even
    // starting: the worker says when it takes a cell, and silence means it is wedged. Work the
    // cell itself left queued runs after its result is out, and the heartbeat after it (runCell) finds it.
    const notStarted = pulse ? pulse.startedOrWedged(id, WEDGED_BEFORE) : never;
    const reply = t.api.runCell(code, this.outputCap, id);
    const delivered = pulse ? Promise.race([pulse.result(id), reply.then(() => never)]) : reply;
    const execution = delivered.then((raw) => this.acceptResult(raw));
    execution.catch(() => undefined); // a cell lost to a kill or a dead worker is not waited for
    return Promise.race([execution, notStarted]);
  }

  /** A worker that answers with something else is not trusted with this cell. */
  private acceptResult(raw: unknown): CellResult {
    try {
      return parseCellResult(raw, this.outputCap);
    } catch (err) {
      this.protocolErrors.push(err instanceof Error ? err.message : String(err));
      return MALFORMED_RESULT;
    }
  }

  /**
   * Whether the worker's event loop still answers after a cell. Work a cell left behind (a
   * timer that spins, a message handler) or a worker that closed itself cannot answer.
   */
  private async heartbeat(t: ReplTransport): Promise<boolean> {
    const pulse = this.worker.ends.pulse;
    if (!pulse || !this.worker.isLive(t)) return true;
    return pulse.alive();
  }

  /** Before a question: a worker that stopped answering since the last one is rebuilt. */
  async ensureResponsive(): Promise<string | null> {
    // A worker busy with a call (decoding a large document) cannot answer a heartbeat, and is
    // not wedged: wait for what it is doing first.
    await this.worker.calls.settled();
    const t = await this.ready();
    if (await this.heartbeat(t)) return null;
    this.rebuildAfter(t, WEDGED);
    await this.start();
    return `The Python worker had stopped answering (${WEDGED}), so it was restarted: its variables are gone, the documents were loaded again.`;
  }

  /** Kill the worker and start a fresh one in the background; the next call waits for it. */
  private rebuildAfter(t: ReplTransport, why: string): CellResult {
    // (A worker that died on its own is already torn down: start its replacement too.)
    if (this.worker.isLive(t) || !this.worker.hasWorker) void this.restart(why).catch(() => undefined); // the status shows a failed start
    return restartedResult(why);
  }

  interrupt(): void {
    this.subcalls.stopRequested = true;
    // Under JSPI, Python suspended in a sub-call must be woken by the reply alone: a signal
    // raised while its stack resumes leaves the cell hanging. The reply makes Python raise
    // KeyboardInterrupt itself.
    const inJspiSubcall = () => this.syncMode === "jspi" && this.subcalls.isWaiting;
    const waitingInJspi = inJspiSubcall();
    const raise = this.worker.ends.raiseInterrupt;
    // Python can stop by itself when it has an interrupt buffer or waits on a sub-call reply.
    const canStopItself = !!raise || this.subcalls.isWaiting;
    if (raise && !waitingInJspi) {
      raise();
      this.cell?.keepInterrupting(raise, inJspiSubcall);
    }
    this.subcalls.wakeAll();
    // Otherwise (no SharedArrayBuffer, so no interrupt buffer) only killing the worker stops it:
    // do it now rather than after a grace period nothing can use.
    this.cell?.armKill(canStopItself ? (this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS) : 0);
  }
}
