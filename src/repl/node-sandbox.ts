// A REPL worker inside the CLI's Python sandbox process (src/node/python-sandbox.mjs), seen from
// the parent as one more ReplTransport: the worker's API calls, its sub-call and heartbeat ports,
// and Stop travel over the process's IPC channel, and the relay in the sandbox
// (workers/node/repl-sandbox-entry.node.ts) hands them to the worker thread. Shared memory cannot cross
// the boundary, so the client treats this worker like the page's sandboxed frame: Stop is a
// message (`interrupt`), and the sandbox owns the buffers.
//
// The sandbox runs model-written code: every message from it is checked
// (messages.ts) before anything here acts on it, and it may write to the cache
// directory only through this side, only while Python starts.
import { resolve } from "node:path";
import type { Remote } from "comlink";
import {
  mayRead,
  sandboxLaunch,
  spawnSandbox,
  takePrestartedSandbox,
  type SandboxLaunch,
  type SandboxProcess,
} from "../node/python-sandbox.mjs";
import { localCacheWriter, type CacheWriter } from "./cache-writes.node.ts";
import type { ContextDocumentInput, ReplBootInfo, ReplBootOptions, ReplWorkerApi, SnapshotSetting } from "./protocol.ts";
import {
  parseSandboxMessage,
  type CacheWrite,
  type DocumentBytes,
  type ParentToSandbox,
  type SandboxToParent,
  type SandboxWalls,
} from "./messages.ts";
import type { ReplTransport, ReplTransportFactory } from "./types.ts";

/** Which walls stand (tests prove each alone; everything else keeps both). */
export interface SandboxWallSetting {
  /** The sandbox process's own: the permission model, no environment, no string compilation. */
  outer: boolean;
  /** The worker's lockdown (workers/node/lockdown.node.ts). */
  inner: boolean;
}

export interface NodeSandboxOptions {
  /** The cache directory (Python snapshot, code cache), or null for none. */
  snapshotDir: string | null;
  /** Make a new snapshot even if a good one is stored (the first start only). */
  rebuild?: boolean;
  /** Host files the REPL will be given by path: the sandbox may read them, and nothing else of the host. */
  documents?: readonly string[];
  walls?: SandboxWallSetting;
}

const BOTH_WALLS: SandboxWallSetting = { outer: true, inner: true };

export function nodeSandboxTransportFactory(options: NodeSandboxOptions): ReplTransportFactory {
  const { snapshotDir, walls = BOTH_WALLS } = options;
  const launch = sandboxLaunch({ documents: [...(options.documents ?? [])], cacheDir: snapshotDir, walls: { outer: walls.outer } });
  let snapshot: SnapshotSetting = snapshotDir
    ? { kind: "directory", path: snapshotDir, ...(options.rebuild ? { rebuild: true } : {}) }
    : { kind: "off" };
  let first = true;
  return () => {
    // The CLI started the first sandbox before its modules loaded (bin/rlm.mjs); later ones start here.
    const starting = first ? takePrestartedSandbox(launch).then((s) => s ?? spawnSandbox(launch)) : spawnSandbox(launch);
    first = false;
    const transport = new SandboxTransport(starting, launch, snapshot, walls);
    // A worker rebuilt after a crash restores what the first start made.
    if (snapshot.kind === "directory") snapshot = { kind: "directory", path: snapshot.path };
    return transport;
  };
}

class SandboxTransport implements ReplTransport {
  readonly api: Remote<ReplWorkerApi>;
  readonly bootOptions: { snapshot: SnapshotSetting };
  readonly sharesMemory = false;
  private sandbox: SandboxProcess | null = null;
  private terminated = false;
  private booted = false;
  private walled: SandboxWalls | null = null;
  private nextId = 0;
  private readonly calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly exitListeners: Array<(reason: string) => void> = [];
  private readonly ports: { host: MessagePort | null; ping: MessagePort | null } = { host: null, ping: null };
  private readonly writer: CacheWriter | null;
  private readonly ready: Promise<SandboxProcess>;

  constructor(
    starting: Promise<SandboxProcess>,
    private readonly launch: SandboxLaunch,
    snapshot: SnapshotSetting,
    private readonly walls: SandboxWallSetting,
  ) {
    this.bootOptions = { snapshot };
    this.writer = snapshot.kind === "directory" ? localCacheWriter(snapshot.path) : null;
    this.ready = starting.then((s) => this.attach(s));
    this.ready.catch((err: unknown) => this.ended(err instanceof Error ? err.message : String(err)));
    this.api = new Proxy(
      {},
      {
        get: (_, method) => {
          if (method === "boot") return (options: ReplBootOptions) => this.boot(options);
          if (typeof method !== "string" || method === "then") return undefined;
          return async (...args: unknown[]) => this.call(method, await Promise.all(args.map((a) => crossable(a, this.launch))));
        },
      },
    ) as unknown as Remote<ReplWorkerApi>;
  }

  transfer<T>(value: T): T {
    return value;
  }

  interrupt(): void {
    this.post({ kind: "interrupt" });
  }

  terminate(): void {
    this.terminated = true;
    for (const { reject } of this.calls.values()) reject(new Error("Python's sandbox process was ended"));
    this.calls.clear();
    this.ports.host?.close();
    this.ports.ping?.close();
    void this.ready.then(
      (s) => s.child.kill("SIGKILL"),
      () => undefined,
    );
  }

  onExit(listener: (reason: string) => void): void {
    this.exitListeners.push(listener);
  }

  private attach(s: SandboxProcess): SandboxProcess {
    this.sandbox = s;
    if (this.terminated) {
      s.child.kill("SIGKILL");
      return s;
    }
    s.onMessage((raw) => {
      const message = parseSandboxMessage(raw);
      if (message) this.handle(message); // else not a message the sandbox may send: dropped
    });
    // No process at all (too many processes, no executable): say so, not that it crashed.
    s.child.once("error", (err: NodeJS.ErrnoException) =>
      this.ended(`this machine did not let rlm start a process for Python's sandbox (${err.code ?? err.message})`),
    );
    s.child.once("exit", (code, signal) => {
      const said = s.stderrTail();
      this.ended(`Python's sandbox process exited (${signal ?? `code ${code}`})${said ? `: ${said.split("\n").slice(-3).join(" ")}` : ""}`);
    });
    return s;
  }

  private ended(reason: string): void {
    for (const { reject } of this.calls.values()) reject(new Error(reason));
    this.calls.clear();
    if (!this.terminated) for (const l of this.exitListeners) l(reason);
    this.terminated = true;
  }

  private post(message: ParentToSandbox): void {
    if (this.sandbox?.child.connected) this.sandbox.child.send(message);
  }

  private handle(message: SandboxToParent): void {
    switch (message.kind) {
      case "result":
      case "error": {
        const call = this.calls.get(message.id);
        this.calls.delete(message.id);
        if (message.kind === "result") call?.resolve(message.value);
        else call?.reject(Object.assign(new Error(message.message), { name: message.name }));
        return;
      }
      case "host":
        return this.ports.host?.postMessage(message.message);
      case "ping":
        return this.ports.ping?.postMessage(message.message);
      case "cache":
        return void this.writeCache(message.id, message.write);
      case "walls":
        this.walled ??= message.walls;
        return;
      case "worker-exit":
        return this.ended(`Python's worker thread ended (${message.reason})`);
    }
  }

  /** Only while Python starts: after that the sandbox runs model code, and may plant nothing. */
  private async writeCache(id: number, write: CacheWrite): Promise<void> {
    let error: string | undefined;
    if (this.booted || !this.writer) error = "the cache directory can only be written while Python starts";
    else {
      try {
        await this.writer(write);
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      }
    }
    this.post({ kind: "cache-done", id, ...(error !== undefined ? { error } : {}) });
  }

  private async call(method: string, args: unknown[]): Promise<unknown> {
    await this.ready;
    if (this.terminated) throw new Error("Python's sandbox process was ended");
    const id = ++this.nextId;
    const answer = new Promise<unknown>((resolve, reject) => this.calls.set(id, { resolve, reject }));
    // The client races every call against the worker's end and may have stopped listening to
    // this one when the sandbox is ended (as Comlink's calls simply stay pending).
    answer.catch(() => undefined);
    this.post({ kind: "call", id, method, args });
    return answer;
  }

  /** The worker's ports stay here; the relay in the sandbox has its own, and messages cross between them. */
  private async boot(options: ReplBootOptions): Promise<ReplBootInfo> {
    const { hostPort, pingPort, interruptBuffer: _i, sabBuffer: _s, ...rest } = options;
    this.ports.host = hostPort;
    this.ports.ping = pingPort ?? null;
    hostPort.onmessage = (event: MessageEvent) => this.post({ kind: "host", message: event.data });
    if (pingPort) pingPort.onmessage = (event: MessageEvent) => this.post({ kind: "ping", message: event.data });
    const info = (await this.call("boot", [{ ...rest, ...(this.walls.inner ? {} : { lockDown: false }) }])) as ReplBootInfo;
    this.booted = true;
    const seen = this.walled ?? { permission: false, noStringCode: false, envVars: -1 };
    return { ...info, sandbox: { ...seen, lockdown: this.walls.inner } };
  }
}

/**
 * An argument as it can cross the IPC channel: a Blob becomes its bytes, and so does a document
 * by path that the sandbox was not started to read (it may read only what its launch grants).
 */
async function crossable(arg: unknown, launch: SandboxLaunch): Promise<unknown> {
  if (Array.isArray(arg)) return Promise.all(arg.map((a) => crossable(a, launch)));
  if (!isDocument(arg)) return arg;
  const kind = arg.kind === undefined ? {} : { kind: arg.kind };
  if ("data" in arg) return { name: arg.name, bytes: new Uint8Array(await arg.data.arrayBuffer()), ...kind } satisfies DocumentBytes;
  if (mayRead(launch, resolve(arg.path))) return arg;
  const { readFile } = await import("node:fs/promises");
  return { name: arg.name, bytes: new Uint8Array(await readFile(arg.path)), ...kind } satisfies DocumentBytes;
}

function isDocument(v: unknown): v is ContextDocumentInput {
  if (typeof v !== "object" || v === null || typeof (v as { name?: unknown }).name !== "string") return false;
  return (v as { data?: unknown }).data instanceof Blob || typeof (v as { path?: unknown }).path === "string";
}
