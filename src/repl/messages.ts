// Every message that crosses a REPL boundary, one closed union per channel, in one place. The
// REPL's other side runs model-written code over documents that may carry prompt injections, so
// each channel's receiver checks what arrives against these shapes (the guards beside them, and
// protocol.ts for the worker's Comlink calls and their replies).
//
//   channel                                  sender ⇄ receiver                        union
//   the frame's control port                 page ⇄ sandboxed frame                    PageToFrame / FrameToPage
//   a frame worker's first message           frame → worker                            SandboxWorkerSetup
//   the sub-call port                        worker ⇄ host                             SubcallMessage
//   the private pulse port                   host ⇄ worker's own JS                    HostToPulse / PulseToHost
//   the service worker's sub-call relay      service worker ⇄ page                     SubcallRelayMessage / SubcallRelayAnswer
//   the snapshot port (frame workers)        worker ⇄ page                             SnapshotPortRequest / SnapshotPortAnswer
//   Node's IPC channel                       CLI ⇄ sandbox process                     ParentToSandbox / SandboxToParent
//   the cache-write port (Node)              worker ⇄ sandbox relay ⇄ CLI              CacheWriteRequest / CacheWriteReply
//
// This module imports nothing: the workers build on it, and it on nothing of theirs.
import type { ReplBootOptions, SandboxReport } from "./protocol.ts";

// --- the page and its sandboxed frame (Chromium; src/repl/sandbox-frame.ts) ------------------

/** Everything a worker needs, fetched by the page (the frame has an opaque origin and no network). */
export interface SandboxAssets {
  workerScript: Blob;
  pyodideAsm: Blob;
  stdlib: Blob;
  wasm: Blob;
  lockFileContents: string;
}

export type PageToFrame =
  | { kind: "init"; assets: SandboxAssets }
  | { kind: "start"; id: number; port: MessagePort }
  | { kind: "interrupt"; id: number }
  | { kind: "terminate"; id: number }
  | { kind: "ping"; n: number };

export type FrameToPage =
  | { kind: "ready" }
  | { kind: "failed"; message: string }
  | { kind: "worker-error"; id: number; message: string }
  | { kind: "pong"; n: number };

/** The first (and only) message a sandboxed worker gets from the frame. */
export interface SandboxWorkerSetup {
  /** Comlink's endpoint: the page talks to the worker over it, through the process boundary. */
  port: MessagePort;
  /** Present when the frame is cross-origin isolated: Stop interrupts Python instead of ending the worker. */
  interruptBuffer?: SharedArrayBuffer;
  wasmModule?: WebAssembly.Module;
  files: { asmUrl: string; stdlibUrl: string; lockFileContents: string };
}

/** Where the page finds the sandboxed worker's classic-script build (vite.config.ts makes it). */
export const SANDBOXED_WORKER_FILE = "repl-sandboxed.worker.js";

/** Why every worker of a frame that stopped answering ended: its process crashed. */
export const SANDBOX_CRASHED = "the Python sandbox's process crashed, most likely out of memory (the page itself was not affected)";

/**
 * Why a frame that never answered (or could not prepare Python) ended its workers. Not a crash:
 * something in this browser keeps the frame from running, so the page stops using it.
 */
export const SANDBOX_DID_NOT_START =
  "the Python sandbox's frame did not start in this browser, so Python will run in the page's own worker: press Restart Python";

// --- the sub-call port and the service worker's relay ---------------------------------------

/**
 * The only messages on the host port. Worker → host: a request; host → worker: its reply (JSPI
 * mode; in "sab" mode the reply is written into sabBuffer instead). Deliberately not Comlink:
 * Comlink would let the worker walk property paths of a host object (`call.__proto__`...).
 */
export type SubcallMessage = { type: "request"; id: number; request: string } | { type: "reply"; id: number; reply: string };

export function isSubcallRequestMessage(v: unknown): v is Extract<SubcallMessage, { type: "request" }> {
  if (typeof v !== "object" || v === null) return false;
  const m = v as Record<string, unknown>;
  return m.type === "request" && typeof m.id === "number" && Number.isSafeInteger(m.id) && typeof m.request === "string";
}

/** Where the REPL worker posts blocking sub-calls in "service-worker" mode (a token follows). */
export const SUBCALL_RELAY_PATH = "__rlm/subcall/";

/** The service worker's message to the pages it controls; the page answers on the transferred port. */
export interface SubcallRelayMessage {
  type: "rlm-subcall";
  token: string;
  request: string;
}

/** A page's answer: the reply when the token is its own, else `owned: false`. */
export type SubcallRelayAnswer = { owned: true; reply: string } | { owned: false };

export function isSubcallRelayMessage(v: unknown): v is SubcallRelayMessage {
  if (typeof v !== "object" || v === null) return false;
  const m = v as Record<string, unknown>;
  return m.type === "rlm-subcall" && typeof m.token === "string" && typeof m.request === "string";
}

// --- the private pulse port (src/repl/pulse.ts, workers/shared/repl-pulse.ts) ---------------------

/** A heartbeat: the worker's own JS answers with the same number once its queued work has run. */
export type HostToPulse = number;

/** Sent by the worker's own code, never by Python: a cell taken, and the result Python returned. */
export type PulseToHost = { started: number } | { id: number; result: string };

// --- the snapshot port: a frame's worker has no storage, the page keeps its snapshot ----------

/** What the worker asks. A write carries header + payload in one Blob (copied, so the caller may free its bytes). */
export type SnapshotPortRequest =
  | { op: "find"; id: number; key: string }
  | { op: "write"; id: number; key: string; body: Blob }
  | { op: "remove"; id: number; key: string };

/**
 * What the page answers: the stored snapshot for a find (null: none), or why the request failed.
 * A Blob, read here: 30 MiB read on the page's main thread would hold it up.
 */
export interface SnapshotPortAnswer {
  id: number;
  blob?: Blob | null;
  error?: string;
}

// --- the CLI and its Python sandbox process, over Node's IPC channel ------------------------
// The sandbox process runs model-written code, so the parent trusts nothing it sends: every
// message is checked here, and what it carries is checked again by the same guards as a
// worker's (ReplClient, protocol.ts).

/** The REPL worker's API calls, by name (ReplWorkerApi), with their arguments made cloneable. */
export type SandboxCall = { kind: "call"; id: number; method: string; args: unknown[] };

/**
 * A document argument as it crosses the IPC channel, where a Blob cannot: its bytes (or a document
 * by path the sandbox may read itself, which crosses as it is). The relay makes it a Blob again.
 */
export interface DocumentBytes {
  name: string;
  bytes: Uint8Array;
  kind?: string;
}

/** Boot options as they cross the process boundary: the ports and buffers are the relay's own. */
export type SandboxBootOptions = Omit<ReplBootOptions, "hostPort" | "pingPort" | "sabBuffer" | "interruptBuffer">;

export type ParentToSandbox =
  | SandboxCall
  /** A reply on the sub-call channel (SubcallMessage), for the worker. */
  | { kind: "host"; message: unknown }
  /** A heartbeat for the worker's private port (a number). */
  | { kind: "ping"; message: unknown }
  /** Stop: raise KeyboardInterrupt in Python (the relay owns the interrupt buffer). */
  | { kind: "interrupt" }
  /** The answer to a cache write. */
  | { kind: "cache-done"; id: number; error?: string };

export type SandboxToParent =
  | { kind: "result"; id: number; value: unknown }
  | { kind: "error"; id: number; name: string; message: string }
  | { kind: "host"; message: unknown }
  | { kind: "ping"; message: unknown }
  /** A write to the cache directory, which only the parent may make, and only while Python starts. */
  | { kind: "cache"; id: number; write: CacheWrite }
  /** The walls the process stands behind, as it sees them: said once, before anything else. */
  | { kind: "walls"; walls: SandboxWalls }
  /** The worker thread ended: the process ends too. */
  | { kind: "worker-exit"; reason: string };

/** What the sandbox process reports of itself (for --verbose and for the tests). */
export type SandboxWalls = Omit<SandboxReport, "lockdown">;

/** Longest error text kept from the sandbox. */
const MAX_TEXT = 2_000;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isId = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);

/** The message if it is one the sandbox may send, else null (the caller counts it as a protocol error). */
export function parseSandboxMessage(v: unknown): SandboxToParent | null {
  if (!isRecord(v)) return null;
  switch (v.kind) {
    case "result":
      return isId(v.id) ? { kind: "result", id: v.id, value: v.value } : null;
    case "error":
      return isId(v.id)
        ? { kind: "error", id: v.id, name: String(v.name).slice(0, 80), message: String(v.message).slice(0, MAX_TEXT) }
        : null;
    case "host":
    case "ping":
      return { kind: v.kind, message: v.message };
    case "cache":
      return isId(v.id) && isCacheWrite(v.write) ? { kind: "cache", id: v.id, write: v.write } : null;
    case "walls": {
      const w = v.walls;
      if (!isRecord(w) || typeof w.permission !== "boolean" || typeof w.noStringCode !== "boolean" || !isId(w.envVars)) return null;
      return { kind: "walls", walls: { permission: w.permission, noStringCode: w.noStringCode, envVars: w.envVars } };
    }
    case "worker-exit":
      return { kind: "worker-exit", reason: String(v.reason).slice(0, MAX_TEXT) };
    default:
      return null;
  }
}

// --- cache writes: only the CLI (the sandbox's parent) writes its cache directory -----------

/** The code cache's file name: this prefix, 16 hex digits, this suffix (cache-writes.node.ts). */
export const CODE_CACHE_PREFIX = "pyodide-js-";
export const CODE_CACHE_SUFFIX = ".bin";

export type CacheWrite =
  /** A new snapshot: its envelope header, then Pyodide's bytes. */
  | { op: "snapshot"; key: string; header: Uint8Array; payload: Uint8Array }
  /** The stamp of a snapshot that passed its full check (see snapshot-store.node.ts). */
  | { op: "snapshot-stamp"; key: string; stamp: string }
  /** Forget a snapshot that was rejected or would not restore. */
  | { op: "snapshot-remove"; key: string }
  /** V8's code cache for pyodide.asm.mjs, under the name pyodide-code-cache.node.ts chose. */
  | { op: "code-cache"; name: string; payload: Uint8Array };

const KEY = /^[0-9A-Za-z._-]{1,200}$/;
const CODE_CACHE_NAME = new RegExp(`^${CODE_CACHE_PREFIX}[0-9a-f]{16}\\${CODE_CACHE_SUFFIX}$`);
/** Far above a real snapshot (≤ 30 MiB) or code cache (~1.2 MB): anything bigger is not ours. */
const MAX_BYTES = 64 * 1024 * 1024;

const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array && v.byteLength <= MAX_BYTES;

/** Whether a message from the sandbox process is a write this module would carry out. */
export function isCacheWrite(v: unknown): v is CacheWrite {
  if (typeof v !== "object" || v === null) return false;
  const w = v as Record<string, unknown>;
  const key = typeof w.key === "string" && KEY.test(w.key);
  switch (w.op) {
    case "snapshot":
      return key && isBytes(w.header) && isBytes(w.payload);
    case "snapshot-stamp":
      return key && typeof w.stamp === "string" && w.stamp.length < 1024;
    case "snapshot-remove":
      return key;
    case "code-cache":
      return typeof w.name === "string" && CODE_CACHE_NAME.test(w.name) && isBytes(w.payload);
    default:
      return false;
  }
}

/** A write asked on the write port (worker → relay), answered by a CacheWriteReply with its id. */
export interface CacheWriteRequest {
  id: number;
  write: CacheWrite;
}

/** A reply on the write port: the request's id, and why it failed if it did. */
export interface CacheWriteReply {
  id: number;
  error?: string;
}
