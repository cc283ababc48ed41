// The host side of the REPL: starts a worker, feeds it documents, runs cells with a watchdog,
// answers Python's blocking sub-calls, and rebuilds the worker when it stops responding.
import {
  SAB_DEFAULT_BYTES,
  SAB_HEADER_BYTES,
  SAB_STATE_READY,
  SAB_STATE_TOO_LARGE,
  parseCellResult,
  parseContextInfo,
  parsePassages,
  isSubcallRequestMessage,
  parseSubcallRequest,
  type CellResult,
  type ContextDocumentInput,
  type ContextInfo,
  type ContextShape,
  type Passage,
  type ReplBootInfo,
  type ReplBootOptions,
  type ReplStats,
  type SubcallMessage,
  type SubcallReply,
  type SyncMode,
} from "./protocol.ts";
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

export class ReplStartError extends Error {
  override name = "ReplStartError";
  constructor(cause: unknown) {
    super(
      `The Python REPL could not start: ${cause instanceof Error ? cause.message : String(cause)}. ` +
        "Reload the page; if it keeps failing, this browser may lack WebAssembly features the REPL needs.",
    );
  }
}

/**
 * What is loaded into Python, kept so a rebuilt worker gets it back. Documents are Blob handles
 * (no copies); a removed document leaves this map, so nothing here keeps it alive.
 */
type LoadedContext =
  | { kind: "documents"; docs: Map<string, Blob>; shape: ContextShape }
  | { kind: "text"; text: string };

const DEFAULT_OUTPUT_CAP = 200_000;
const DEFAULT_KILL_GRACE_MS = 1500;

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
  private interruptView: Uint8Array | null = null;
  private hostPort: MessagePort | null = null;
  private pendingReplies = new Set<(reply: SubcallReply) => void>();
  private stopRequested = false;
  private armKill: (() => void) | null = null;
  private restarts = 0;
  private readonly outputCap: number;
  private readonly killGraceMs: number;

  constructor(
    private readonly factory: ReplTransportFactory,
    private readonly options: ReplClientOptions = {},
  ) {
    this.outputCap = options.outputCap ?? DEFAULT_OUTPUT_CAP;
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
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
    if (!this.starting) {
      this.starting = this.boot().catch((err: unknown) => {
        this.starting = null;
        const error = err instanceof ReplStartError ? err : new ReplStartError(err);
        this.options.onStatus?.({ state: "failed", message: error.message });
        throw error;
      });
    }
    return this.starting;
  }

  private async boot(): Promise<ReplBootInfo> {
    this.options.onStatus?.({ state: "starting" });
    const transport = this.factory();
    this.transport = transport;
    transport.onExit((reason) => {
      if (this.transport === transport) this.handleWorkerExit(reason);
    });
    const shared = canShareMemory();
    const interruptBuffer = shared ? new SharedArrayBuffer(1) : undefined;
    this.interruptView = interruptBuffer ? new Uint8Array(interruptBuffer) : null;
    const bootOptions: Omit<ReplBootOptions, "hostPort"> & { hostPort?: MessagePort } = {
      syncMode: this.options.syncMode ?? "auto",
      outputCap: this.outputCap,
      ...(this.options.recordSources === false ? { recordSources: false } : {}),
      ...(this.options.indexURL ? { indexURL: this.options.indexURL } : {}),
      ...(interruptBuffer ? { interruptBuffer } : {}),
    };
    // Sub-calls come back on a port of their own, with two message shapes and nothing else.
    const channel = new MessageChannel();
    const sabBuffer = shared ? new SharedArrayBuffer(SAB_HEADER_BYTES + SAB_DEFAULT_BYTES) : undefined;
    channel.port1.onmessage = (event: MessageEvent) => void this.onHostMessage(event.data, channel.port1, sabBuffer);
    this.hostPort = channel.port1;
    bootOptions.hostPort = channel.port2;
    if (sabBuffer) bootOptions.sabBuffer = sabBuffer;
    const info = await transport.api.boot(transport.transfer(bootOptions as ReplBootOptions, [channel.port2]));
    this.syncMode = info.syncMode;
    await this.reloadContext();
    if (this.booted) {
      const fresh = { beginQuestion: async (history: HistoryEntry[]) => void (await transport.api.beginQuestion(JSON.stringify(history))) };
      for (const listener of this.rebuiltListeners) await listener(fresh);
    }
    this.booted = true;
    this.options.onStatus?.({ state: "ready", syncMode: info.syncMode, bootMs: info.bootMs });
    return info;
  }

  /** The live worker, with any Stop left over from an earlier call cleared. */
  private async ready(): Promise<ReplTransport> {
    await this.start();
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
    const t = await this.ready();
    this.loaded = { kind: "documents", docs: new Map(docs.map((d) => [d.name, d.data])), shape };
    this.contextInfo = parseContextInfo(await t.api.loadDocuments(docs, shape));
    return this.contextInfo;
  }

  /** Decode one more document into `context`; the others are not touched. */
  async addDocument(name: string, data: Blob): Promise<ContextInfo> {
    const t = await this.ready();
    const docs = this.loaded.kind === "documents" ? this.loaded.docs : new Map<string, Blob>();
    docs.set(name, data);
    this.loaded = { kind: "documents", docs, shape: "auto" };
    this.contextInfo = parseContextInfo(await t.api.addDocument(name, data));
    return this.contextInfo;
  }

  async removeDocument(name: string): Promise<ContextInfo> {
    const t = await this.ready();
    if (this.loaded.kind === "documents") this.loaded.docs.delete(name);
    this.contextInfo = parseContextInfo(await t.api.removeDocument(name));
    return this.contextInfo;
  }

  async setContextText(text: string): Promise<ContextInfo> {
    const t = await this.ready();
    this.loaded = { kind: "text", text };
    this.contextInfo = parseContextInfo(await t.api.setContextText(text));
    return this.contextInfo;
  }

  onRebuilt(listener: RebuiltListener): void {
    this.rebuiltListeners.push(listener);
  }

  private async reloadContext(): Promise<void> {
    const t = this.transport;
    if (!t) return;
    if (this.loaded.kind === "text") {
      this.contextInfo = parseContextInfo(await t.api.setContextText(this.loaded.text));
    } else if (this.loaded.docs.size) {
      const docs = [...this.loaded.docs].map(([name, data]) => ({ name, data }));
      this.contextInfo = parseContextInfo(await t.api.loadDocuments(docs, this.loaded.shape));
    }
  }

  async beginQuestion(history: HistoryEntry[]): Promise<void> {
    const t = await this.ready();
    await t.api.beginQuestion(JSON.stringify(history));
  }

  async stats(): Promise<ReplStats> {
    const t = await this.ready();
    const s = await t.api.stats();
    return { wasmHeapBytes: typeof s?.wasmHeapBytes === "number" ? s.wasmHeapBytes : 0 };
  }

  /** The text of document ranges, for quoting an answer's sources (null where a range is gone). */
  async sourcePassages(ranges: ReadonlyArray<{ doc: string; start: number; end: number }>): Promise<Array<Passage | null>> {
    if (!ranges.length) return [];
    const t = await this.ready();
    const asked = ranges.map(({ doc, start, end }) => ({ doc, start, end }));
    return parsePassages(await t.api.sourcePassages(JSON.stringify(asked)), asked.length);
  }

  async resetNamespace(): Promise<void> {
    const t = await this.ready();
    await t.api.resetNamespace();
  }

  async runCell(code: string, options: RunCellOptions = {}): Promise<CellResult> {
    const t = await this.ready();
    this.stopRequested = false;
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const mustKill = new Promise<"kill">((resolve) => {
      this.armKill = () => {
        if (killTimer === undefined) killTimer = setTimeout(() => resolve("kill"), this.killGraceMs);
      };
    });
    if (options.timeoutMs && options.timeoutMs > 0) {
      timer = setTimeout(() => {
        timedOut = true;
        this.interrupt();
      }, options.timeoutMs);
    }
    const execution = t.api.runCell(code, this.outputCap).then((raw) => {
      try {
        return parseCellResult(raw);
      } catch (err) {
        // A worker that answers with something else is not trusted with this cell.
        this.protocolErrors.push(err instanceof Error ? err.message : String(err));
        return {
          stdout: "",
          stderr: "ProtocolError: the REPL returned a malformed result, which was dropped.\n",
          final_answer: null,
          locals: {},
          execution_time: 0,
          error: "ProtocolError",
          interrupted: false,
        } satisfies CellResult;
      }
    });
    try {
      const outcome = await Promise.race([execution, mustKill]);
      if (outcome === "kill") {
        execution.catch(() => undefined);
        const why = timedOut
          ? `the cell ran past its ${Math.round((options.timeoutMs ?? 0) / 1000)} s time limit and Python did not stop`
          : "Python did not stop when asked";
        await this.restart(why);
        return this.restartedResult(why);
      }
      if (timedOut) {
        outcome.stderr =
          `TimeoutError: the cell ran past its ${Math.round((options.timeoutMs ?? 0) / 1000)} s time limit and was stopped. ` +
          "Work on smaller pieces.\n" + outcome.stderr;
      }
      return outcome;
    } catch (err) {
      // run_cell catches every Python exception itself, so a rejection means the runtime
      // broke (a fatal Pyodide error, a dead worker): rebuild it.
      const why = `the Python worker crashed (${err instanceof Error ? err.message : String(err)})`;
      if (this.transport === t) await this.restart(why);
      return this.restartedResult(why);
    } finally {
      clearTimeout(timer);
      clearTimeout(killTimer);
      this.armKill = null;
    }
  }

  private restartedResult(why: string): CellResult {
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
    if (this.interruptView && !waitingInJspi) this.interruptView[0] = 2;
    for (const resolve of this.pendingReplies) resolve({ interrupted: true });
    this.pendingReplies.clear();
    // Without an interrupt buffer Python can only be stopped by killing the worker.
    this.armKill?.();
  }

  /** Kill the worker and start a fresh one with the same documents. */
  async restart(reason: string): Promise<void> {
    this.restarts += 1;
    this.options.onStatus?.({ state: "restarting", reason });
    this.teardown();
    await this.start();
  }

  private handleWorkerExit(reason: string): void {
    // The next runCell notices through its rejected promise; make sure a later call reboots.
    this.teardown();
    this.options.onStatus?.({ state: "restarting", reason });
  }

  private teardown(): void {
    const t = this.transport;
    this.transport = null;
    this.starting = null;
    for (const resolve of this.pendingReplies) resolve({ interrupted: true });
    this.pendingReplies.clear();
    this.hostPort?.close();
    this.hostPort = null;
    t?.terminate();
  }

  close(): void {
    this.teardown();
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
    try {
      return JSON.stringify(await Promise.race([work, stopped]));
    } finally {
      this.pendingReplies.delete(settle);
    }
  }

  private async onHostMessage(message: unknown, port: MessagePort, sabBuffer: SharedArrayBuffer | undefined): Promise<void> {
    if (!isSubcallRequestMessage(message)) {
      this.protocolErrors.push("The Python worker sent an unknown message on the sub-call port; it was dropped.");
      return;
    }
    const reply = await this.handleCall(message.request);
    if (this.syncMode === "sab" && sabBuffer) this.writeBlockingReply(reply, sabBuffer);
    else port.postMessage({ type: "reply", id: message.id, reply } satisfies SubcallMessage);
  }

  private writeBlockingReply(reply: string, buffer: SharedArrayBuffer): void {
    const ctrl = new Int32Array(buffer, 0, 2);
    const bytes = new TextEncoder().encode(reply);
    const room = buffer.byteLength - SAB_HEADER_BYTES;
    if (bytes.length > room) {
      Atomics.store(ctrl, 1, 0);
      Atomics.store(ctrl, 0, SAB_STATE_TOO_LARGE);
    } else {
      new Uint8Array(buffer, SAB_HEADER_BYTES, bytes.length).set(bytes);
      Atomics.store(ctrl, 1, bytes.length);
      Atomics.store(ctrl, 0, SAB_STATE_READY);
    }
    Atomics.notify(ctrl, 0);
  }
}
