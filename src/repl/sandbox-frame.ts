// Chromium: Python workers in a sandboxed frame with its own process. A worker is a thread of
// the process that created it, so a cell that exhausts the JavaScript heap (huge arrays built
// through `js`) crashes that process. Started by the page, it would take the whole tab down;
// started by this frame — an opaque origin, which Chromium isolates in a process of its own — it
// takes only the frame down, and the page rebuilds the sandbox and says why.
//
// One frame serves every session's worker (one extra process, one compile of Pyodide's wasm).
// It has no network and no storage: the page sends it Pyodide's files once, and keeps the
// Python snapshot for it. Sub-calls use JSPI (Chromium has it); Stop writes the worker's
// interrupt buffer through the frame, which is cross-origin isolated like the page.
import * as Comlink from "comlink";
import { DEFAULT_SNAPSHOT_CACHE, cacheStorageSnapshotStore } from "./snapshot-store.ts";
import type { ReplWorkerApi, SnapshotSetting } from "./protocol.ts";
// The frame's own script lives beside its worker: the one import of workers/ the REPL wall allows.
import { frameScript } from "../../workers/browser/repl-sandboxed.frame.ts";
import {
  SANDBOXED_WORKER_FILE,
  SANDBOX_CRASHED,
  SANDBOX_DID_NOT_START,
  type FrameToPage,
  type PageToFrame,
  type SandboxAssets,
  type SnapshotPortAnswer,
  type SnapshotPortRequest,
} from "./messages.ts";
import type { ReplTransport } from "./types.ts";

/** How often the page asks the frame whether it still runs, and how long a ping may go unanswered. */
const PING_MS = 1000;
const SILENCE_MS = 5000;
/**
 * How long a new frame may take to answer at all, by default: its process starts and loads its
 * document first, which a busy machine can make slow. Silence that long means it never ran.
 */
export const FIRST_ANSWER_MS = 30_000;

export interface SandboxFrameOptions {
  /**
   * How long a new frame may stay silent before it is taken for one that cannot run here
   * (default FIRST_ANSWER_MS). A test of a frame that never runs sets it short, so that it does
   * not wait out the allowance a busy machine needs.
   */
  firstAnswerMs?: number;
}

/** Whether this browser puts the frame in a process of its own and can run Python there. */
export function sandboxFrameSupported(): boolean {
  if (typeof document === "undefined" || !globalThis.crossOriginIsolated) return false;
  // The frame's workers wait for sub-calls with JSPI: they cannot share memory with the page.
  if (!("Suspending" in WebAssembly || "Suspender" in WebAssembly)) return false;
  // Chromium isolates opaque-origin (sandboxed) frames in their own process; Firefox and WebKit
  // keep them in the page's process, where the frame would add cost and contain nothing.
  const brands = (navigator as Navigator & { userAgentData?: { brands?: Array<{ brand: string }> } }).userAgentData?.brands ?? [];
  return brands.some((b) => b.brand === "Chromium");
}

let assets: Promise<SandboxAssets> | null = null;

/** Pyodide's files and the worker script, fetched by the page once (the service worker has them offline). */
function sandboxAssets(pyodideIndexUrl: string, base: string): Promise<SandboxAssets> {
  const blob = async (url: string) => {
    // The reason a person can act on, short enough for the status line: which file did not
    // arrive, and what the browser said.
    const file = new URL(url).pathname.split("/").pop();
    const response = await fetch(url).catch((err: unknown) => {
      throw new Error(`could not load ${file} (${err instanceof Error ? err.message : String(err)})`);
    });
    if (!response.ok) throw new Error(`could not load ${file} (HTTP ${response.status})`);
    return response.blob();
  };
  assets ??= (async () => {
    const [workerScript, pyodideAsm, stdlib, wasm, lock] = await Promise.all([
      blob(new URL(SANDBOXED_WORKER_FILE, base).href),
      blob(`${pyodideIndexUrl}pyodide.asm.mjs`),
      blob(`${pyodideIndexUrl}python_stdlib.zip`),
      blob(`${pyodideIndexUrl}pyodide.asm.wasm`),
      blob(`${pyodideIndexUrl}pyodide-lock.json`),
    ]);
    return { workerScript, pyodideAsm, stdlib, wasm, lockFileContents: await lock.text() };
  })();
  assets.catch(() => (assets = null)); // try again with the next worker
  return assets;
}

interface WorkerEnds {
  onError(message: string): void;
  onEnd(reason: string): void;
}

function hiddenSandboxedFrame(): HTMLIFrameElement {
  const iframe = document.createElement("iframe");
  // allow-scripts and nothing else: an opaque origin, no storage, no navigation, no popups.
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.setAttribute("allow", "cross-origin-isolated *");
  iframe.setAttribute("aria-hidden", "true");
  iframe.tabIndex = -1;
  iframe.title = "Python sandbox";
  iframe.style.cssText = "position:absolute;width:0;height:0;border:0;visibility:hidden";
  return iframe;
}

/** The frame, created with the first worker and replaced after a crash. */
class SandboxFrame {
  private readonly iframe: HTMLIFrameElement = hiddenSandboxedFrame();
  private readonly control: MessageChannel = new MessageChannel();
  private readonly ready: Promise<void>;
  private readonly ends = new Map<number, WorkerEnds>();
  private readonly ping: ReturnType<typeof setInterval>;
  private lastPing: { n: number; at: number } | null = null;
  private answered = 0;
  private ids = 0;
  dead = false;
  private readonly firstAnswerMs: number;

  constructor(pyodideIndexUrl: string, base: string, options: SandboxFrameOptions = {}) {
    this.firstAnswerMs = options.firstAnswerMs ?? FIRST_ANSWER_MS;
    const loaded = new Promise<void>((resolve) => this.iframe.addEventListener("load", () => resolve(), { once: true }));
    this.ready = (async () => {
      const [files, html] = await Promise.all([sandboxAssets(pyodideIndexUrl, base), frameDocument()]);
      this.iframe.srcdoc = html;
      document.body.append(this.iframe);
      await loaded;
      this.control.port1.onmessage = (event: MessageEvent) => this.onMessage(event.data as FrameToPage);
      this.iframe.contentWindow?.postMessage("connect", "*", [this.control.port2]);
      await new Promise<void>((resolve, reject) => {
        this.initDone = { resolve, reject };
        this.send({ kind: "init", assets: files });
      });
    })();
    // A frame that could not get ready (its files did not arrive) is not reused: the next start
    // builds a new one, which fetches them again.
    this.ready.catch((err: unknown) => this.end(err instanceof Error ? err.message : String(err)));
    this.ping = setInterval(() => this.checkAlive(), PING_MS);
  }

  private initDone: { resolve(): void; reject(err: Error): void } | null = null;

  private send(message: PageToFrame, transfer: Transferable[] = []): void {
    this.control.port1.postMessage(message, transfer);
  }

  private onMessage(message: FrameToPage): void {
    switch (message.kind) {
      case "pong":
        this.answered = Math.max(this.answered, message.n);
        return;
      case "ready":
        return this.initDone?.resolve();
      case "failed":
        return this.end(`${SANDBOX_DID_NOT_START} (${message.message})`);
      case "worker-error":
        return this.ends.get(message.id)?.onError(message.message);
    }
  }

  /**
   * A ping unanswered for SILENCE_MS: the frame's process is gone (the frame does nothing else
   * that could hold it). A frame that never answered at all did not crash: it never ran.
   */
  private checkAlive(): void {
    if (!this.iframe.isConnected) return; // not started yet
    const now = performance.now();
    if (this.lastPing && this.answered < this.lastPing.n) {
      const neverAnswered = this.answered === 0;
      if (now - this.lastPing.at > (neverAnswered ? this.firstAnswerMs : SILENCE_MS))
        this.end(neverAnswered ? SANDBOX_DID_NOT_START : SANDBOX_CRASHED);
      return;
    }
    const n = (this.lastPing?.n ?? 0) + 1;
    this.lastPing = { n, at: now };
    this.send({ kind: "ping", n });
  }

  private end(reason: string): void {
    if (this.dead) return; // the frame's failure also fails its start, which ends it again
    this.dead = true;
    if (reason.startsWith(SANDBOX_DID_NOT_START)) unusable = true;
    clearInterval(this.ping);
    this.iframe.remove();
    this.control.port1.close();
    this.initDone?.reject(new Error(reason));
    for (const ends of this.ends.values()) ends.onEnd(reason);
    this.ends.clear();
  }

  startWorker(snapshot: SnapshotSetting | undefined): ReplTransport {
    const id = ++this.ids;
    const channel = new MessageChannel();
    const api = Comlink.wrap<ReplWorkerApi>(channel.port1);
    const exitListeners: Array<(reason: string) => void> = [];
    let exited = false;
    // Once: a frame that ends before it was ready also fails the start that waits for it.
    const exit = (reason: string) => {
      if (exited) return;
      exited = true;
      this.ends.delete(id);
      for (const l of exitListeners) l(reason);
    };
    let booted = false;
    this.ends.set(id, {
      // As with a worker of the page: uncaught errors after the start do not mean it is dead.
      onError: (message) => !booted && exit(message),
      onEnd: exit,
    });
    const snapshots = snapshotPort(snapshot);
    this.ready.then(
      () => this.send({ kind: "start", id, port: channel.port2 }, [channel.port2]),
      (err: unknown) => exit(err instanceof Error ? err.message : String(err)),
    );
    return {
      api,
      sharesMemory: false,
      bootOptions: { snapshot: snapshots.setting },
      transferables: snapshots.transferables,
      transfer: (value, transferables) => Comlink.transfer(value, transferables),
      onBooted: () => {
        booted = true;
        snapshots.close();
      },
      interrupt: () => this.send({ kind: "interrupt", id }),
      terminate: () => {
        api[Comlink.releaseProxy]();
        this.ends.delete(id);
        snapshots.close();
        if (!this.dead) this.send({ kind: "terminate", id });
        channel.port1.close();
      },
      onExit: (listener) => void exitListeners.push(listener),
    };
  }
}

/**
 * The worker's snapshot store, kept by the page in Cache Storage and served over a port until
 * the worker has booted. A write is acknowledged once the page holds the bytes, and stored after.
 */
function snapshotPort(setting: SnapshotSetting | undefined): { setting: SnapshotSetting; transferables: Transferable[]; close(): void } {
  if (setting?.kind === "off") return { setting, transferables: [], close: () => undefined };
  const store = cacheStorageSnapshotStore(setting?.kind === "cache-storage" ? setting.cacheName : DEFAULT_SNAPSHOT_CACHE);
  const channel = new MessageChannel();
  const answer = (a: SnapshotPortAnswer, transfer: Transferable[] = []) => channel.port1.postMessage(a, transfer);
  channel.port1.onmessage = async (event: MessageEvent) => {
    const request = event.data as SnapshotPortRequest;
    try {
      if (request.op === "find") return answer({ id: request.id, blob: await store.findBlob(request.key) });
      if (request.op === "write") {
        answer({ id: request.id });
        return await store
          .writeBlob(request.key, request.body)
          .catch((err: unknown) => console.warn("Could not store the Python snapshot:", err));
      }
      await store.remove(request.key);
      answer({ id: request.id });
    } catch (err) {
      answer({ id: request.id, error: err instanceof Error ? err.message : String(err) });
    }
  };
  const rebuild = setting && "rebuild" in setting && setting.rebuild ? { rebuild: true } : {};
  return { setting: { kind: "port", port: channel.port2, ...rebuild }, transferables: [channel.port2], close: () => channel.port1.close() };
}

/** The frame's document: its script, allowed by hash, and a policy that lets it and its workers reach nothing. */
async function frameDocument(): Promise<string> {
  const script = frameScript();
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(script));
  const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
  const policy = [
    "default-src 'none'",
    `script-src 'sha256-${hash}' blob: 'wasm-unsafe-eval'`,
    "worker-src blob:",
    "connect-src blob:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html><meta http-equiv="Content-Security-Policy" content="${policy}"><script>${script}</script>`;
}

let current: SandboxFrame | null = null;
/** Set when a frame could not start here: the page's own workers take over for this page. */
let unusable = false;

/** Whether new workers may still go to the frame (false once a frame failed to start). */
export function sandboxFrameUsable(): boolean {
  return !unusable;
}

/** A worker in the page's sandboxed frame (a new frame after a crash). */
export function startSandboxedWorker(
  pyodideIndexUrl: string,
  base: string,
  snapshot?: SnapshotSetting,
  options: SandboxFrameOptions = {},
): ReplTransport {
  if (!current || current.dead) current = new SandboxFrame(pyodideIndexUrl, base, options);
  return current.startWorker(snapshot);
}
