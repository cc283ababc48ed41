// Messages between the CLI (the parent) and its Python sandbox process (workers/repl-sandbox.node-entry.ts),
// over Node's IPC channel. The sandbox process runs model-written code, so the parent trusts
// nothing it sends: every message is checked here, and what it carries is checked again by the
// same guards as a worker's (ReplClient, protocol.ts).
import type { ReplBootOptions, SandboxReport } from "./protocol.ts";
import { isCacheWrite, type CacheWrite } from "../../workers/cache-writes.node.ts";

/** The REPL worker's API calls, by name (ReplWorkerApi), with their arguments made cloneable. */
export type SandboxCall = { kind: "call"; id: number; method: string; args: unknown[] };

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
