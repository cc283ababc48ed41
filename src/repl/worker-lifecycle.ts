// One REPL worker's life, as the host sees it: started (and tried once more if that fails),
// booted with the ports and buffers this side keeps, torn down when it dies, hangs or its session
// closes, and started again on demand. What a boot loads into the worker is the client's
// business (the `afterBoot` hook).
import { ReplStartError, WorkerGoneError, startFailureReason } from "./errors.ts";
import { SAB_DEFAULT_BYTES, SAB_HEADER_BYTES, type ReplBootInfo, type ReplBootOptions, type SyncMode } from "./protocol.ts";
import { WorkerPulse } from "./pulse.ts";
import { watchSlowStart } from "./slow-start.ts";
import type { SubcallChannel } from "./subcall-channel.ts";
import type { ReplClientOptions, ReplStatus, ReplTransport, ReplTransportFactory, SubcallRelay } from "./types.ts";
import { WorkerCalls } from "./worker-calls.ts";

/** How long an idle worker may take to answer the heartbeat (generous: the machine may be busy). */
const DEFAULT_HEARTBEAT_MS = 3000;

/** What one worker was handed at boot, released with it. */
export interface WorkerEnds {
  hostPort: MessagePort | null;
  pulse: WorkerPulse | null;
  relay: SubcallRelay | null;
  /** Asks Python to stop: through the buffer shared with the worker, or through its transport. */
  raiseInterrupt: (() => void) | null;
  interruptView: Uint8Array | null;
}

const NO_ENDS: WorkerEnds = { hostPort: null, pulse: null, relay: null, raiseInterrupt: null, interruptView: null };

export interface LifecycleHooks {
  /** Python's sub-calls: answered on the port each worker is booted with. */
  subcalls: SubcallChannel;
  /** How the live worker waits for sub-calls (null before the first boot). */
  syncMode(): SyncMode | null;
  /** After the boot call, before the worker counts as ready; `rebuilt` when it replaces an earlier one. */
  afterBoot(t: ReplTransport, info: ReplBootInfo, rebuilt: boolean): Promise<void>;
  /** The live worker ended on its own (a running cell gets no reply now). */
  onExit(reason: string): void;
}

function canShareMemory(): boolean {
  if (typeof SharedArrayBuffer !== "function") return false;
  // Browsers only allow SharedArrayBuffer messaging when cross-origin isolated; Node always does.
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  return isolated !== false;
}

export class WorkerLifecycle {
  readonly calls = new WorkerCalls();
  private transport: ReplTransport | null = null;
  private workerEnds: WorkerEnds = NO_ENDS;
  private starting: Promise<ReplBootInfo> | null = null;
  private booted = false;
  private restarts = 0;
  private closed = false;
  /** While a start runs (and may be retried): a teardown then must not forget it (see teardown). */
  private bootAttempts = false;
  /** What the status says while starting: the first try, or the retry and why. */
  private startPhase: Extract<ReplStatus, { state: "starting" }> = { state: "starting" };

  constructor(
    private readonly factory: ReplTransportFactory,
    private readonly options: ReplClientOptions & { outputCap: number },
    private readonly hooks: LifecycleHooks,
  ) {}

  /** Whether a worker is running (false before start and after close). */
  get hasWorker(): boolean {
    return this.transport !== null;
  }

  /** How many times the worker was rebuilt (crash, hang). */
  get restartCount(): number {
    return this.restarts;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The live worker's ports and buffers (none between workers). */
  get ends(): WorkerEnds {
    return this.workerEnds;
  }

  /** Whether `t` is still the live worker. */
  isLive(t: ReplTransport): boolean {
    return this.transport === t;
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

  /** The live worker, with any Stop left over from an earlier call cleared. */
  async ready(): Promise<ReplTransport> {
    if (this.closed) throw new WorkerGoneError("its session was closed");
    await this.start();
    if (this.closed) throw new WorkerGoneError("its session was closed");
    if (!this.transport) throw new ReplStartError("the worker is gone");
    if (this.workerEnds.interruptView) this.workerEnds.interruptView[0] = 0;
    return this.transport;
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
    this.calls.follow(transport);
    transport.onExit((reason) => {
      if (this.transport === transport) this.workerExited(reason);
    });
    const { options, transferables } = this.bootOptions(transport);
    const info = await this.calls.call(transport, transport.api.boot(transport.transfer(options, transferables)));
    transport.onBooted?.();
    await this.hooks.afterBoot(transport, info, this.booted);
    this.booted = true;
    this.options.onStatus?.({ state: "ready", syncMode: info.syncMode, bootMs: info.bootMs });
    return info;
  }

  /** What a new worker is booted with, and the ports and buffers this side keeps of it. */
  private bootOptions(transport: ReplTransport): { options: ReplBootOptions; transferables: Transferable[] } {
    const shared = transport.sharesMemory !== false && canShareMemory();
    const interruptBuffer = shared ? new SharedArrayBuffer(1) : undefined;
    const view = interruptBuffer ? new Uint8Array(interruptBuffer) : null;
    // Sub-calls come back on a port of their own, with two message shapes and nothing else.
    const channel = new MessageChannel();
    const sabBuffer = shared ? new SharedArrayBuffer(SAB_HEADER_BYTES + SAB_DEFAULT_BYTES) : undefined;
    const subcalls = this.hooks.subcalls;
    channel.port1.onmessage = (event: MessageEvent) =>
      void subcalls.onPortMessage(event.data, channel.port1, sabBuffer, this.hooks.syncMode);
    const ping = new MessageChannel();
    // Without shared memory, blocking sub-calls go through the service worker where there is one.
    const relay = shared ? null : (transport.openSubcallRelay?.((request) => subcalls.answer(request)) ?? null);
    this.workerEnds = {
      hostPort: channel.port1,
      pulse: new WorkerPulse(ping.port1, this.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS),
      relay,
      interruptView: view,
      raiseInterrupt: view ? () => void (view[0] = 2) : transport.interrupt ? () => transport.interrupt?.() : null,
    };
    const options: ReplBootOptions = {
      syncMode: this.options.syncMode ?? "auto",
      outputCap: this.options.outputCap,
      ...(this.options.recordSources === false ? { recordSources: false } : {}),
      ...(this.options.indexURL ? { indexURL: this.options.indexURL } : {}),
      ...(interruptBuffer ? { interruptBuffer } : {}),
      ...transport.bootOptions,
      hostPort: channel.port2,
      pingPort: ping.port2,
      ...(sabBuffer ? { sabBuffer } : {}),
      ...(relay ? { subcallUrl: relay.url } : {}),
    };
    return { options, transferables: [channel.port2, ping.port2, ...(transport.transferables ?? [])] };
  }

  /** Kill the worker and start a fresh one with the same documents. */
  async restart(reason: string): Promise<void> {
    this.restarts += 1;
    this.options.onStatus?.({ state: "restarting", reason });
    this.teardown(reason);
    await this.start();
  }

  private workerExited(reason: string): void {
    // A running cell gets no reply from a dead worker: end it now, and make a later call reboot.
    this.hooks.onExit(reason);
    this.teardown(reason);
    this.options.onStatus?.({ state: "restarting", reason });
  }

  private teardown(reason: string): void {
    const t = this.transport;
    this.transport = null;
    if (t) this.calls.tornDown(t, reason);
    // A start under way settles by itself (it is retried, or fails); forgetting it here would let
    // a second caller boot a second worker beside the retry.
    if (!this.bootAttempts) this.starting = null;
    this.hooks.subcalls.wakeAll();
    this.workerEnds.hostPort?.close();
    this.workerEnds.pulse?.close();
    this.workerEnds.relay?.close();
    this.workerEnds = NO_ENDS;
    t?.terminate();
  }

  close(): void {
    this.closed = true;
    this.teardown("its session was closed");
  }
}
