// A REPL worker inside the CLI's Python sandbox process (src/node/python-sandbox.mjs), seen from
// the parent as one more ReplTransport: the worker's API calls, its sub-call and heartbeat ports,
// and Stop travel over the process's IPC channel, and the relay in the sandbox
// (workers/repl-sandbox.node-entry.ts) hands them to the worker thread. Shared memory cannot cross
// the boundary, so the client treats this worker like the page's sandboxed frame: Stop is a
// message (`interrupt`), and the sandbox owns the buffers.
//
// The sandbox runs model-written code: every message from it is checked
// (messages.ts) before anything here acts on it, and it may write to the cache
// directory only through this side, only while Python starts.
import { resolve } from "node:path";
import type { Remote } from "comlink";
import {
  SandboxUnavailableError,
  mayRead,
  sandboxLaunch,
  spawnSandbox,
  takePrestartedSandbox,
  type SandboxLaunch,
  type SandboxProcess,
} from "../node/python-sandbox.mjs";
import { localCacheWriter } from "./cache-writes.node.ts";
import type { ContextDocumentInput, ReplBootInfo, ReplBootOptions, ReplWorkerApi, SnapshotSetting } from "./protocol.ts";
import { parseSandboxMessage, type CacheWrite, type ParentToSandbox, type SandboxToParent, type SandboxWalls } from "./messages.ts";
import type { ReplTransport, ReplTransportFactory } from "./types.ts";

export { SandboxUnavailableError };

/** Which walls stand (tests prove each alone; everything else keeps both). */
export interface SandboxWallSetting {
  /** The sandbox process's own: the permission model, no environment, no string compilation. */
  outer: boolean;
  /** The worker's lockdown (workers/lockdown.node.ts). */
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
    const transport = sandboxTransport(starting, launch, snapshot, walls);
    // A worker rebuilt after a crash restores what the first start made.
    if (snapshot.kind === "directory") snapshot = { kind: "directory", path: snapshot.path };
    return transport;
  };
}

function sandboxTransport(
  starting: Promise<SandboxProcess>,
  launch: SandboxLaunch,
  snapshot: SnapshotSetting,
  walls: SandboxWallSetting,
): ReplTransport {
  let sandbox: SandboxProcess | null = null;
  let terminated = false;
  let booted = false;
  let walled: SandboxWalls | null = null;
  let nextId = 0;
  const calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const exitListeners: Array<(reason: string) => void> = [];
  const ports: { host: MessagePort | null; ping: MessagePort | null } = { host: null, ping: null };
  const writer = snapshot.kind === "directory" ? localCacheWriter(snapshot.path) : null;

  const ended = (reason: string) => {
    for (const { reject } of calls.values()) reject(new Error(reason));
    calls.clear();
    if (!terminated) for (const l of exitListeners) l(reason);
    terminated = true;
  };
  const post = (message: ParentToSandbox) => {
    if (sandbox?.child.connected) sandbox.child.send(message);
  };

  const ready = starting.then((s) => {
    sandbox = s;
    if (terminated) {
      s.child.kill("SIGKILL");
      return s;
    }
    s.onMessage((raw) => receive(raw));
    // No process at all (too many processes, no executable): say so, not that it crashed.
    s.child.once("error", (err: NodeJS.ErrnoException) =>
      ended(`this machine did not let rlm start a process for Python's sandbox (${err.code ?? err.message})`),
    );
    s.child.once("exit", (code, signal) => {
      const said = s.stderrTail();
      ended(`Python's sandbox process exited (${signal ?? `code ${code}`})${said ? `: ${said.split("\n").slice(-3).join(" ")}` : ""}`);
    });
    return s;
  });
  ready.catch((err: unknown) => ended(err instanceof Error ? err.message : String(err)));

  function receive(raw: unknown): void {
    const message = parseSandboxMessage(raw);
    if (!message) return; // not a message the sandbox may send: dropped
    handle(message);
  }

  function handle(message: SandboxToParent): void {
    switch (message.kind) {
      case "result":
      case "error": {
        const call = calls.get(message.id);
        calls.delete(message.id);
        if (message.kind === "result") call?.resolve(message.value);
        else call?.reject(Object.assign(new Error(message.message), { name: message.name }));
        return;
      }
      case "host":
        return ports.host?.postMessage(message.message);
      case "ping":
        return ports.ping?.postMessage(message.message);
      case "cache":
        return void writeCache(message.id, message.write);
      case "walls":
        walled ??= message.walls;
        return;
      case "worker-exit":
        return ended(`Python's worker thread ended (${message.reason})`);
    }
  }

  /** Only while Python starts: after that the sandbox runs model code, and may plant nothing. */
  async function writeCache(id: number, write: CacheWrite): Promise<void> {
    let error: string | undefined;
    if (booted || !writer) error = "the cache directory can only be written while Python starts";
    else {
      try {
        await writer(write);
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      }
    }
    post({ kind: "cache-done", id, ...(error !== undefined ? { error } : {}) });
  }

  async function call(method: string, args: unknown[]): Promise<unknown> {
    await ready;
    if (terminated) throw new Error("Python's sandbox process was ended");
    const id = ++nextId;
    const answer = new Promise<unknown>((resolve, reject) => calls.set(id, { resolve, reject }));
    // The client races every call against the worker's end and may have stopped listening to
    // this one when the sandbox is ended (as Comlink's calls simply stay pending).
    answer.catch(() => undefined);
    post({ kind: "call", id, method, args });
    return answer;
  }

  /** The worker's ports stay here; the relay in the sandbox has its own, and messages cross between them. */
  async function boot(options: ReplBootOptions): Promise<ReplBootInfo> {
    const { hostPort, pingPort, interruptBuffer: _i, sabBuffer: _s, ...rest } = options;
    ports.host = hostPort;
    ports.ping = pingPort ?? null;
    hostPort.onmessage = (event: MessageEvent) => post({ kind: "host", message: event.data });
    if (pingPort) pingPort.onmessage = (event: MessageEvent) => post({ kind: "ping", message: event.data });
    const info = (await call("boot", [{ ...rest, ...(walls.inner ? {} : { lockDown: false }) }])) as ReplBootInfo;
    booted = true;
    const seen = walled ?? { permission: false, noStringCode: false, envVars: -1 };
    return { ...info, sandbox: { ...seen, lockdown: walls.inner } };
  }

  const api = new Proxy(
    {},
    {
      get: (_, method) => {
        if (method === "boot") return boot;
        if (typeof method !== "string" || method === "then") return undefined;
        return async (...args: unknown[]) => call(method, await Promise.all(args.map((a) => crossable(a, launch))));
      },
    },
  ) as unknown as Remote<ReplWorkerApi>;

  return {
    api,
    bootOptions: { snapshot },
    transfer: (value) => value,
    sharesMemory: false,
    interrupt: () => post({ kind: "interrupt" }),
    terminate() {
      terminated = true;
      for (const { reject } of calls.values()) reject(new Error("Python's sandbox process was ended"));
      calls.clear();
      ports.host?.close();
      ports.ping?.close();
      void ready.then(
        (s) => s.child.kill("SIGKILL"),
        () => undefined,
      );
    },
    onExit(listener) {
      exitListeners.push(listener);
    },
  };
}

/**
 * An argument as it can cross the IPC channel: a Blob becomes its bytes, and so does a document
 * by path that the sandbox was not started to read (it may read only what its launch grants).
 */
async function crossable(arg: unknown, launch: SandboxLaunch): Promise<unknown> {
  if (Array.isArray(arg)) return Promise.all(arg.map((a) => crossable(a, launch)));
  if (!isDocument(arg)) return arg;
  const kind = arg.kind === undefined ? {} : { kind: arg.kind };
  if ("data" in arg) return { name: arg.name, bytes: new Uint8Array(await arg.data.arrayBuffer()), ...kind };
  if (mayRead(launch, resolve(arg.path))) return arg;
  const { readFile } = await import("node:fs/promises");
  return { name: arg.name, bytes: new Uint8Array(await readFile(arg.path)), ...kind };
}

function isDocument(v: unknown): v is ContextDocumentInput {
  if (typeof v !== "object" || v === null || typeof (v as { name?: unknown }).name !== "string") return false;
  return (v as { data?: unknown }).data instanceof Blob || typeof (v as { path?: unknown }).path === "string";
}
