// The host side of the REPL: starts a worker, feeds it documents, runs cells with a watchdog,
// answers Python's blocking sub-calls, and rebuilds the worker when it stops responding.
import {
  SAB_DEFAULT_BYTES,
  SAB_HEADER_BYTES,
  parseCellResult,
  parseContextInfo,
  parsePassages,
  parseProbeReply,
  parseSubcallRequest,
  type CellResult,
  type ContextDocumentInput,
  type ContextInfo,
  type ContextShape,
  type Passage,
  type ProbeReply,
  type ProbeRequest,
  type ReplBootInfo,
  type ReplBootOptions,
  type ReplStats,
  type SubcallReply,
  type SyncMode,
  writeBlockingReply,
} from "./protocol.ts";
import { FORMATS, isDocumentKind } from "../ingest/formats/index.ts";
import { CellClock } from "./cell-clock.ts";
import { WorkerPulse } from "./pulse.ts";
import { watchSlowStart } from "./slow-start.ts";
import { SANDBOX_CRASHED, isSubcallRequestMessage, type SubcallMessage } from "./messages.ts";
import type {
  HistoryEntry,
  RebuiltListener,
  SessionRepl,
  ReplClientOptions,
  ReplStatus,
  ReplTransport,
  ReplTransportFactory,
  RunCellOptions,
  SubcallHandler,
  SubcallRelay,
} from "./types.ts";

/**
 * A call on a worker that was torn down (killed, crashed, or its session closed) before it
 * answered. Comlink would leave such a call pending for ever, and whoever waited on it with it.
 */
export class WorkerGoneError extends Error {
  override name = "WorkerGoneError";
  constructor(readonly reason: string) {
    super(`The Python worker stopped before it answered (${reason}). Ask again: a new worker is started with the documents.`);
  }
}

/**
 * A document handed to Python with a kind no format of the registry has: Python would cite it by
 * lines alone, silently, where its format has pages or paragraphs. A caller's bug, refused before
 * anything reaches the worker.
 */
export class UnknownDocumentKindError extends Error {
  override name = "UnknownDocumentKindError";
  constructor(doc: string, kind: string) {
    super(
      `The document ${doc} was given the kind ${JSON.stringify(kind)}, which no document format has ` +
        `(${FORMATS.map((f) => f.kind).join(", ")}). Pass the kind ingest gave it (DocumentMeta.kind), or none for plain text.`,
    );
  }
}

/** Throws unless the document's kind is one the format registry knows (or it has none: plain text). */
function checkKind(doc: ContextDocumentInput): void {
  if (doc.kind !== undefined && !isDocumentKind(doc.kind)) throw new UnknownDocumentKindError(doc.name, String(doc.kind));
}

/** Why a start failed, in a few words (the error's own message, or how its worker ended). */
function startFailureReason(cause: unknown): string {
  if (cause instanceof ReplStartError) return cause.reason;
  // How the worker ended is the reason (a file that did not arrive, a frame that did not start).
  if (cause instanceof WorkerGoneError) return cause.reason;
  return cause instanceof Error ? cause.message : String(cause);
}

export class ReplStartError extends Error {
  override name = "ReplStartError";
  /** The cause alone, short enough for a status line. */
  readonly reason: string;
  /** `cause`: why the last try failed; `firstTry`: why the one before it did, when it was retried. */
  constructor(cause: unknown, firstTry?: string) {
    // Node: the sandbox cannot be raised on this machine; its message says what to do.
    if (cause instanceof Error && cause.name === "SandboxUnavailableError") {
      super(`Python's sandbox could not be raised: ${cause.message}`);
      this.reason = cause.message;
      return;
    }
    const why = startFailureReason(cause);
    const tries = firstTry === undefined ? "" : ` (it was tried twice; the first try: ${firstTry})`;
    super(`The Python REPL could not start: ${why}${tries}. ${inBrowser() ? BROWSER_REMEDY : NODE_REMEDY}`);
    this.reason = why;
  }
}

const BROWSER_REMEDY = "Reload the page; if it keeps failing, this browser may lack WebAssembly features the REPL needs.";
const NODE_REMEDY = "Run it again with --verbose; if it keeps failing, reinstall with npm ci (Node 20.19 or newer).";
const inBrowser = () =>
  typeof (globalThis as { document?: unknown }).document !== "undefined" ||
  typeof (globalThis as { importScripts?: unknown }).importScripts === "function";

/**
 * What is loaded into Python, kept so a rebuilt worker gets it back. Documents are Blob handles
 * (no copies); a removed document leaves this map, so nothing here keeps it alive.
 */
type LoadedContext = { kind: "documents"; docs: Map<string, ContextDocumentInput>; shape: ContextShape } | { kind: "text"; text: string };

const DEFAULT_OUTPUT_CAP = 200_000;
const DEFAULT_KILL_GRACE_MS = 1500;
const INTERRUPT_RESEND_MS = 100;
/** How long an idle worker may take to answer the heartbeat (generous: the machine may be busy). */
const DEFAULT_HEARTBEAT_MS = 3000;
const WEDGED = "after the cell it stopped answering: something the cell scheduled kept it busy, or it shut itself down";
const WEDGED_BEFORE =
  "before this cell could run, the Python worker had stopped answering: something an earlier cell scheduled kept it busy. The cell did not run";

/** The limit counts Python's own time only (cell-clock.ts): say so, or a slow model looks like slow code. */
function limitText(timeoutMs: number | undefined, what: string): string {
  return `the cell ran past its ${Math.round((timeoutMs ?? 0) / 1000)} s time limit (Python's own time; waiting for sub-calls does not count) ${what}`;
}

/** The cause of a broken runtime, in words a person (and the model) can act on. */
function crashCause(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  if (/maximum call stack|too much recursion|stack overflow/i.test(text)) {
    return "the code recursed deeper than the browser's stack allows (recursion too deep; do not raise sys.setrecursionlimit)";
  }
  if (/exit(ed)? with code|ExitStatus|Program terminated|exit\(/i.test(text))
    return `the code ended the Python process (${text.slice(0, 120)})`;
  if (text.includes(SANDBOX_CRASHED)) return SANDBOX_CRASHED;
  if (/out of memory|memory\.grow|allocation failed|Array buffer allocation/i.test(text)) return "the Python worker ran out of memory";
  return `the Python worker crashed (${text.slice(0, 200)})`;
}

function canShareMemory(): boolean {
  if (typeof SharedArrayBuffer !== "function") return false;
  // Browsers only allow SharedArrayBuffer messaging when cross-origin isolated; Node always does.
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  return isolated !== false;
}

export class ReplClient implements SessionRepl {
  contextInfo: ContextInfo | null = null;
  syncMode: SyncMode | null = null;
  /** Messages from the worker that failed validation, until taken (they go into the trajectory). */
  private protocolErrors: string[] = [];

  private transport: ReplTransport | null = null;
  private starting: Promise<ReplBootInfo> | null = null;
  private loaded: LoadedContext = { kind: "documents", docs: new Map(), shape: "auto" };
  private rebuiltListeners: RebuiltListener[] = [];
  private booted = false;
  private handler: SubcallHandler | null = null;
  /** Asks Python to stop: through the buffer shared with the worker, or through its transport. */
  private raiseInterrupt: (() => void) | null = null;
  private interruptView: Uint8Array | null = null;
  private hostPort: MessagePort | null = null;
  private relay: SubcallRelay | null = null;
  private pendingReplies = new Set<(reply: SubcallReply) => void>();
  private stopRequested = false;
  private armKill: ((graceMs: number) => void) | null = null;
  private cellLost: ((reason: string) => void) | null = null;
  /** The running cell's time limit, which stands still while Python waits for a sub-call. */
  private cellClock: CellClock | null = null;
  private restarts = 0;
  private pulse: WorkerPulse | null = null;
  private cellSeq = 0;
  private readonly heartbeatMs: number;
  private readonly outputCap: number;
  private readonly killGraceMs: number;
  /** Calls on the worker not answered yet: a heartbeat waits for them (see ensureResponsive). */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Per worker: fails its unanswered calls once it is torn down. */
  private readonly goneSignals = new WeakMap<ReplTransport, { gone: Promise<never>; fire: (reason: string) => void }>();
  private closed = false;
  private resendInterrupt: ReturnType<typeof setInterval> | undefined;
  /** While a start runs (and may be retried): a teardown then must not forget it (see teardown). */
  private bootAttempts = false;
  /** What the status says while starting: the first try, or the retry and why. */
  private startPhase: Extract<ReplStatus, { state: "starting" }> = { state: "starting" };

  constructor(
    private readonly factory: ReplTransportFactory,
    private readonly options: ReplClientOptions = {},
  ) {
    this.outputCap = options.outputCap ?? DEFAULT_OUTPUT_CAP;
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  }

  /** Whether a worker is running (false before start and after close). */
  get hasWorker(): boolean {
    return this.transport !== null;
  }

  /** How many times the worker was rebuilt (crash, hang). */
  get restartCount(): number {
    return this.restarts;
  }

  start(): Promise<ReplBootInfo> {
    this.starting ??= this.bootOrRetry().catch((err: unknown) => {
      this.starting = null;
      const error = err instanceof ReplStartError ? err : new ReplStartError(err);
      this.options.onStatus?.({ state: "failed", message: error.message, reason: error.reason });
      throw error;
    });
    return this.starting;
  }

  /**
   * Boots, and once more on a fresh worker if that failed: on a fresh visit to a busy machine a
   * first start failed now and then (a file that did not arrive, a frame that answered late)
   * where the next one worked, and the person saw "Python failed" for nothing.
   */
  private async bootOrRetry(): Promise<ReplBootInfo> {
    const stopWatch = watchSlowStart((waitedSeconds) => this.options.onStatus?.({ ...this.startPhase, waitedSeconds }));
    this.bootAttempts = true;
    try {
      return await this.boot().catch(async (first: unknown) => {
        if (this.closed) throw first;
        const firstTry = startFailureReason(first);
        this.startPhase = { state: "starting", retrying: firstTry };
        this.teardown(`its start failed (${firstTry})`);
        return this.boot().catch((second: unknown) => {
          throw new ReplStartError(second, firstTry);
        });
      });
    } finally {
      this.bootAttempts = false;
      this.startPhase = { state: "starting" };
      stopWatch();
    }
  }

  private async boot(): Promise<ReplBootInfo> {
    this.options.onStatus?.(this.startPhase);
    const transport = this.factory();
    this.transport = transport;
    this.watchGone(transport);
    transport.onExit((reason) => {
      if (this.transport === transport) this.handleWorkerExit(reason);
    });
    const shared = transport.sharesMemory !== false && canShareMemory();
    const interruptBuffer = shared ? new SharedArrayBuffer(1) : undefined;
    const view = interruptBuffer ? new Uint8Array(interruptBuffer) : null;
    this.interruptView = view;
    this.raiseInterrupt = view ? () => void (view[0] = 2) : transport.interrupt ? () => transport.interrupt?.() : null;
    const bootOptions: Omit<ReplBootOptions, "hostPort"> & { hostPort?: MessagePort } = {
      syncMode: this.options.syncMode ?? "auto",
      outputCap: this.outputCap,
      ...(this.options.recordSources === false ? { recordSources: false } : {}),
      ...(this.options.indexURL ? { indexURL: this.options.indexURL } : {}),
      ...(interruptBuffer ? { interruptBuffer } : {}),
      ...transport.bootOptions,
    };
    // Sub-calls come back on a port of their own, with two message shapes and nothing else.
    const channel = new MessageChannel();
    const sabBuffer = shared ? new SharedArrayBuffer(SAB_HEADER_BYTES + SAB_DEFAULT_BYTES) : undefined;
    channel.port1.onmessage = (event: MessageEvent) => void this.onHostMessage(event.data, channel.port1, sabBuffer);
    this.hostPort = channel.port1;
    bootOptions.hostPort = channel.port2;
    const ping = new MessageChannel();
    this.pulse = new WorkerPulse(ping.port1, this.heartbeatMs);
    bootOptions.pingPort = ping.port2;
    if (sabBuffer) bootOptions.sabBuffer = sabBuffer;
    if (!shared) this.openRelay(transport, bootOptions);
    const transferables = [channel.port2, ping.port2, ...(transport.transferables ?? [])];
    const info = await this.call(transport, transport.api.boot(transport.transfer(bootOptions as ReplBootOptions, transferables)));
    transport.onBooted?.();
    this.syncMode = info.syncMode;
    await this.reloadContext();
    if (this.booted) {
      const fresh = {
        beginQuestion: async (history: HistoryEntry[]) =>
          void (await this.call(transport, transport.api.beginQuestion(JSON.stringify(history)))),
      };
      for (const listener of this.rebuiltListeners) await listener(fresh);
    }
    this.booted = true;
    this.options.onStatus?.({ state: "ready", syncMode: info.syncMode, bootMs: info.bootMs });
    return info;
  }

  /** Without shared memory, blocking sub-calls go through the service worker where there is one. */
  private openRelay(transport: ReplTransport, bootOptions: { subcallUrl?: string }): void {
    const relay = transport.openSubcallRelay?.((request) => this.handleCall(request));
    if (!relay) return;
    this.relay = relay;
    bootOptions.subcallUrl = relay.url;
  }

  private watchGone(transport: ReplTransport): void {
    let fire!: (reason: string) => void;
    const gone = new Promise<never>((_, reject) => (fire = (reason) => reject(new WorkerGoneError(reason))));
    gone.catch(() => undefined); // only calls in flight care
    this.goneSignals.set(transport, { gone, fire });
  }

  /** A call on worker `t` that fails with WorkerGoneError if `t` is torn down before it answers. */
  private call<T>(t: ReplTransport, work: Promise<T>): Promise<T> {
    const gone = this.goneSignals.get(t)?.gone;
    const settled = gone ? Promise.race([work, gone]) : work;
    this.inFlight.add(settled);
    const forget = () => void this.inFlight.delete(settled);
    settled.then(forget, forget);
    return settled;
  }

  /**
   * Applies a change to `context` (already recorded in `loaded`). If the worker is rebuilt or
   * dies before it answers, the change is not lost: the replacement loads everything recorded
   * as it boots, and this waits for that.
   */
  private async changeContext(apply: (t: ReplTransport) => Promise<string>): Promise<ContextInfo> {
    const t = await this.ready();
    try {
      this.contextInfo = parseContextInfo(await this.call(t, apply(t)));
      return this.contextInfo;
    } catch (err) {
      if (!(err instanceof WorkerGoneError) || this.closed) throw err;
      const fresh = await this.ready();
      // An empty `context` is not reloaded at boot: apply the change (a removal) to the new worker.
      if (!this.contextInfo || !this.hasLoadedContext()) this.contextInfo = parseContextInfo(await this.call(fresh, apply(fresh)));
      return this.contextInfo;
    }
  }

  private hasLoadedContext(): boolean {
    return this.loaded.kind === "text" || this.loaded.docs.size > 0;
  }

  /** The live worker, with any Stop left over from an earlier call cleared. */
  private async ready(): Promise<ReplTransport> {
    if (this.closed) throw new WorkerGoneError("its session was closed");
    await this.start();
    if (this.closed) throw new WorkerGoneError("its session was closed");
    if (!this.transport) throw new ReplStartError("the worker is gone");
    if (this.interruptView) this.interruptView[0] = 0;
    return this.transport;
  }

  takeProtocolErrors(): string[] {
    const taken = this.protocolErrors;
    this.protocolErrors = [];
    return taken;
  }

  setSubcallHandler(handler: SubcallHandler | null): void {
    this.handler = handler;
  }

  /** Replace `context` with exactly these documents. */
  async loadDocuments(docs: ContextDocumentInput[], shape: ContextShape = "auto"): Promise<ContextInfo> {
    docs.forEach(checkKind);
    await this.ready();
    this.loaded = { kind: "documents", docs: new Map(docs.map((d) => [d.name, d])), shape };
    return this.changeContext((t) => t.api.loadDocuments(docs, shape));
  }

  /** Decode one more document into `context`; the others are not touched. */
  async addDocument(doc: ContextDocumentInput): Promise<ContextInfo> {
    checkKind(doc);
    await this.ready();
    const docs = this.loaded.kind === "documents" ? this.loaded.docs : new Map<string, ContextDocumentInput>();
    docs.set(doc.name, doc);
    this.loaded = { kind: "documents", docs, shape: "auto" };
    return this.changeContext((t) => t.api.addDocument(doc));
  }

  async removeDocument(name: string): Promise<ContextInfo> {
    await this.ready();
    if (this.loaded.kind === "documents") this.loaded.docs.delete(name);
    return this.changeContext((t) => t.api.removeDocument(name));
  }

  async setContextText(text: string): Promise<ContextInfo> {
    await this.ready();
    this.loaded = { kind: "text", text };
    return this.changeContext((t) => t.api.setContextText(text));
  }

  onRebuilt(listener: RebuiltListener): void {
    this.rebuiltListeners.push(listener);
  }

  private async reloadContext(): Promise<void> {
    const t = this.transport;
    if (!t) return;
    if (this.loaded.kind === "text") {
      this.contextInfo = parseContextInfo(await this.call(t, t.api.setContextText(this.loaded.text)));
    } else if (this.loaded.docs.size) {
      const docs = [...this.loaded.docs.values()];
      this.contextInfo = parseContextInfo(await this.call(t, t.api.loadDocuments(docs, this.loaded.shape)));
    }
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
    const watch = this.watchCell(options.timeoutMs);
    const id = ++this.cellSeq;
    const pulse = this.pulse;
    pulse?.reset();
    const never = new Promise<never>(() => undefined);
    // Work an earlier cell left behind (a message handler that spins) keeps the cell from even
    // starting: the worker says when it takes a cell, and silence means it is wedged. Work the
    // cell itself left queued can wedge it as the cell ends, before the result goes out.
    const notStarted = pulse ? pulse.startedOrWedged(id, WEDGED_BEFORE) : never;
    const silentAtEnd = pulse ? pulse.silentAfterEnding(id, WEDGED) : never;
    // The result is taken from the private port alone (WorkerPulse): Comlink's reply comes on the
    // worker's global port, where a cell in the page's worker can listen for each call's id and
    // post a reply of its own ahead of the real one. The reply still tells when the call failed.
    const reply = t.api.runCell(code, this.outputCap, id);
    const delivered = pulse ? Promise.race([pulse.result(id), reply.then(() => never)]) : reply;
    const execution = delivered.then((raw) => this.acceptResult(raw));
    try {
      const outcome = await Promise.race([execution, watch.mustKill, watch.gone, notStarted, silentAtEnd]);
      if (outcome === "kill" || "gone" in outcome) {
        execution.catch(() => undefined);
        if (outcome !== "kill") return this.rebuildAfter(t, outcome.gone);
        return this.rebuildAfter(
          t,
          watch.timedOut() ? limitText(options.timeoutMs, "and Python did not stop") : "Python did not stop when asked",
        );
      }
      const result = this.explainInterrupt(outcome, watch.timedOut(), options.timeoutMs);
      if (await this.heartbeat(t)) return result;
      const rebuilt = this.rebuildAfter(t, WEDGED);
      return { ...rebuilt, stdout: result.stdout, stderr: result.stderr + rebuilt.stderr };
    } catch (err) {
      // run_cell catches every Python exception itself, so a rejection means the runtime
      // broke (a fatal Pyodide error, a dead worker): rebuild it.
      return this.rebuildAfter(t, crashCause(err));
    } finally {
      watch.dispose();
    }
  }

  /** The cell's time limit, and the grace after an interrupt before the worker is killed. */
  private watchCell(timeoutMs: number | undefined) {
    this.stopRequested = false;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const mustKill = new Promise<"kill">((resolve) => {
      this.armKill = (graceMs) => {
        if (killTimer === undefined) killTimer = setTimeout(() => resolve("kill"), graceMs);
      };
    });
    // The worker died under the cell (it exited, or its thread crashed): no reply will come.
    const gone = new Promise<{ gone: string }>((resolve) => {
      this.cellLost = (reason) => resolve({ gone: crashCause(reason) });
    });
    const clock = new CellClock(timeoutMs, () => this.interrupt());
    this.cellClock = clock;
    return {
      mustKill,
      gone,
      timedOut: () => clock.timedOut,
      dispose: () => {
        clock.dispose();
        this.cellClock = null;
        clearTimeout(killTimer);
        clearInterval(this.resendInterrupt);
        this.resendInterrupt = undefined;
        this.armKill = null;
        this.cellLost = null;
      },
    };
  }

  /** A worker that answers with something else is not trusted with this cell. */
  private acceptResult(raw: unknown): CellResult {
    try {
      return parseCellResult(raw, this.outputCap);
    } catch (err) {
      this.protocolErrors.push(err instanceof Error ? err.message : String(err));
      return {
        stdout: "",
        stderr: "ProtocolError: the REPL returned a malformed result, which was dropped.\n",
        final_answer: null,
        locals: {},
        execution_time: 0,
        error: "ProtocolError",
        interrupted: false,
      };
    }
  }

  /**
   * Python cannot tell who raised a KeyboardInterrupt; the host knows whether it interrupted
   * (Stop, or the time limit) or the code raised it itself, and says which.
   */
  private explainInterrupt(result: CellResult, timedOut: boolean, timeoutMs: number | undefined): CellResult {
    if (result.error !== "KeyboardInterrupt") return result;
    const cause = timedOut
      ? `TimeoutError: ${limitText(timeoutMs, "and was stopped")}. Work on smaller pieces.`
      : this.stopRequested
        ? "KeyboardInterrupt: the person pressed Stop. Variables from earlier cells are kept."
        : "KeyboardInterrupt: the code raised KeyboardInterrupt itself; nothing stopped it from outside.";
    const stderr = result.stderr.replace(/^KeyboardInterrupt: the cell was interrupted\..*\n?/m, "");
    return { ...result, stderr: `${cause}\n${stderr}`, interrupted: timedOut || this.stopRequested };
  }

  /**
   * Whether the worker's event loop still answers after a cell. Work a cell left behind (a
   * timer that spins, a message handler) or a worker that closed itself cannot answer.
   */
  private async heartbeat(t: ReplTransport): Promise<boolean> {
    if (!this.pulse || this.transport !== t) return true;
    return this.pulse.alive();
  }

  /** Before a question: a worker that stopped answering since the last one is rebuilt. */
  async ensureResponsive(): Promise<string | null> {
    // A worker busy with a call (decoding a large document) cannot answer a heartbeat, and is
    // not wedged: wait for what it is doing first.
    await Promise.allSettled([...this.inFlight]);
    const t = await this.ready();
    if (await this.heartbeat(t)) return null;
    this.rebuildAfter(t, WEDGED);
    await this.start();
    return `The Python worker had stopped answering (${WEDGED}), so it was restarted: its variables are gone, the documents were loaded again.`;
  }

  /** Kill the worker and start a fresh one in the background; the next call waits for it. */
  private rebuildAfter(t: ReplTransport, why: string): CellResult {
    // (A worker that died on its own is already torn down: start its replacement too.)
    if (this.transport === t || this.transport === null) void this.restart(why).catch(() => undefined); // the status shows a failed start
    return {
      stdout: "",
      stderr:
        `WorkerRestarted: ${why}, so the REPL was restarted. All variables were lost; ` +
        "`context` was loaded again. Recreate what you need.\n",
      final_answer: null,
      locals: {},
      execution_time: 0,
      error: "WorkerRestarted",
      interrupted: true,
    };
  }

  interrupt(): void {
    this.stopRequested = true;
    // Under JSPI, Python suspended in a sub-call must be woken by the reply alone: a signal
    // raised while its stack resumes leaves the cell hanging. The reply makes Python raise
    // KeyboardInterrupt itself.
    const waitingInJspi = this.syncMode === "jspi" && this.pendingReplies.size > 0;
    // Python can stop by itself when it has an interrupt buffer or waits on a sub-call reply.
    const canStopItself = !!this.raiseInterrupt || this.pendingReplies.size > 0;
    if (this.raiseInterrupt && !waitingInJspi) this.sendInterrupt(this.raiseInterrupt);
    for (const resolve of this.pendingReplies) resolve({ interrupted: true });
    this.pendingReplies.clear();
    // Otherwise (no SharedArrayBuffer, so no interrupt buffer) only killing the worker stops it:
    // do it now rather than after a grace period nothing can use.
    this.armKill?.(canStopItself ? this.killGraceMs : 0);
  }

  /**
   * Asks Python to stop, and asks again every INTERRUPT_RESEND_MS until the cell ends: once in
   * a few dozen interrupts sent as a cell began, Pyodide consumed the request without raising
   * it, and the loop then ran until the worker was killed, its variables lost.
   */
  private sendInterrupt(raise: () => void): void {
    raise();
    // Only while a cell runs (its end clears the timer): outside one, a request left in the
    // buffer would stop the next cell as it began.
    // Not while Python waits in a JSPI sub-call: its reply wakes it (see interrupt()).
    if (this.armKill) {
      this.resendInterrupt ??= setInterval(() => {
        if (!(this.syncMode === "jspi" && this.pendingReplies.size > 0)) raise();
      }, INTERRUPT_RESEND_MS);
    }
  }

  /** Kill the worker and start a fresh one with the same documents. */
  async restart(reason: string): Promise<void> {
    this.restarts += 1;
    this.options.onStatus?.({ state: "restarting", reason });
    this.teardown(reason);
    await this.start();
  }

  private handleWorkerExit(reason: string): void {
    // A running cell gets no reply from a dead worker: end it now, and make a later call reboot.
    this.cellLost?.(reason);
    this.teardown(reason);
    this.options.onStatus?.({ state: "restarting", reason });
  }

  private teardown(reason: string): void {
    const t = this.transport;
    this.transport = null;
    if (t) this.goneSignals.get(t)?.fire(reason);
    // A start under way settles by itself (it is retried, or fails); forgetting it here would let
    // a second caller boot a second worker beside the retry.
    if (!this.bootAttempts) this.starting = null;
    for (const resolve of this.pendingReplies) resolve({ interrupted: true });
    this.pendingReplies.clear();
    this.hostPort?.close();
    this.hostPort = null;
    this.pulse?.close();
    this.pulse = null;
    this.relay?.close();
    this.relay = null;
    t?.terminate();
  }

  close(): void {
    this.closed = true;
    this.teardown("its session was closed");
  }

  // --- sub-calls from Python ------------------------------------------------------------

  private async handleCall(requestJson: unknown): Promise<string> {
    let request;
    try {
      request = parseSubcallRequest(requestJson);
    } catch (err) {
      this.protocolErrors.push(err instanceof Error ? err.message : String(err));
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
      this.pendingReplies.add(resolve);
    });
    const work: Promise<SubcallReply> = handler(request).then(
      (results) => ({ results }),
      (err: unknown) => ({
        results: request.prompts.map(() => `Error: ${err instanceof Error ? err.message : String(err)}`),
      }),
    );
    const clock = this.cellClock;
    clock?.modelWaitBegan();
    try {
      return JSON.stringify(await Promise.race([work, stopped]));
    } finally {
      clock?.modelWaitEnded();
      this.pendingReplies.delete(settle);
    }
  }

  private async onHostMessage(message: unknown, port: MessagePort, sabBuffer: SharedArrayBuffer | undefined): Promise<void> {
    if (!isSubcallRequestMessage(message)) {
      this.protocolErrors.push("The Python worker sent an unknown message on the sub-call port; it was dropped.");
      return;
    }
    const reply = await this.handleCall(message.request);
    if (this.syncMode === "sab" && sabBuffer) writeBlockingReply(sabBuffer, reply);
    else port.postMessage({ type: "reply", id: message.id, reply } satisfies SubcallMessage);
  }
}
