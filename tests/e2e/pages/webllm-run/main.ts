// Test page for tests/e2e/webllm-generation.test.ts: the product's WebLLM engine (model worker,
// client, WebLLMEngine), the RLM loop (RlmSession) and the browser REPL (Pyodide), wired as the
// app wires them, with a custom model whose files the test serves from this machine. The model's
// replies are fixed by grammars through the engines' test hook option (src/engines/test-grammar.ts).
import { DEFAULT_CONFIG, RlmSession, type RlmEvent, type RlmResult } from "../../../../src/core/index.ts";
import type { ChatMessage } from "../../../../src/engines/types.ts";
import { ModelWorkerClient, customModelSpec, loadWebLLMEngines, type WebLLMEngines } from "../../../../src/engines/webllm/index.ts";
import { createBrowserRepl } from "../../../../src/repl/browser.ts";
import { exactReplyGrammar } from "../../../fixtures/gguf/grammar.ts";

const pageProblems: string[] = [];
window.addEventListener("unhandledrejection", (e) => pageProblems.push(`unhandledrejection: ${String(e.reason)}`));
window.addEventListener("error", (e) => pageProblems.push(`error: ${e.message}`));

/** What the model says: root turns in order, and one reply for every sub-call. */
interface Script {
  root: string[];
  sub: string;
  /** A prompt containing this is a sub-call. */
  subMarker: string;
}

let script: Script = { root: [], sub: "", subMarker: "\u0000" };
/** Every request's grammar choice, in order, for the test to check the flow. */
const requests: Array<{ kind: "root" | "sub"; turn: number }> = [];

const testGrammar = (messages: ChatMessage[]) => {
  const last = messages.at(-1);
  if (last?.role === "user" && last.content.includes(script.subMarker)) {
    requests.push({ kind: "sub", turn: 0 });
    return exactReplyGrammar(script.sub);
  }
  const turn = messages.filter((m) => m.role === "assistant").length;
  requests.push({ kind: "root", turn });
  const reply = script.root[Math.min(turn, script.root.length - 1)];
  return reply === undefined ? undefined : exactReplyGrammar(reply);
};

let engines: WebLLMEngines | null = null;
let session: RlmSession | null = null;
let running: AbortController | null = null;
const events: RlmEvent[] = [];
type RunOutcome =
  | { ok: true; answer: string; status: string; message: string | undefined; usage: RlmResult["usage"]; seconds: number }
  | { ok: false; name: string; message: string; seconds: number };
let pendingRun: Promise<RunOutcome> | null = null;
type DirectOutcome =
  | { ok: true; text: string; usage: { promptTokens: number; completionTokens: number }; seconds: number }
  | { ok: false; name: string; message: string; seconds: number };
let pendingDirect: Promise<DirectOutcome> | null = null;
let directTokens = 0;
const statuses: string[] = [];
/** When each load status arrived (seconds from the load's start), to see where a load's time goes. */
const statusTimes: Array<{ at: number; status: string }> = [];
let loadStartedAt = 0;
/** The model workers' clients, for what the workers reported outside any call. */
const clients: ModelWorkerClient[] = [];

function describe(err: unknown) {
  return { name: err instanceof Error ? err.name : "non-error", message: err instanceof Error ? err.message : String(err) };
}

const api = {
  async load(input: { id: string; modelUrl: string; modelLibUrl: string; separateSub: boolean; contextWindow: number }) {
    const started = performance.now();
    loadStartedAt = started;
    const window = input.contextWindow;
    try {
      const spec = customModelSpec({ id: input.id, modelUrl: input.modelUrl, modelLibUrl: input.modelLibUrl, contextWindow: window });
      engines = await loadWebLLMEngines({
        root: { model: spec, contextWindow: window },
        ...(input.separateSub ? { sub: { model: spec, contextWindow: window } } : {}),
        testGrammar,
        onProgress: (role, s) => {
          statuses.push(`${role}: ${s.message}`);
          statusTimes.push({ at: (performance.now() - loadStartedAt) / 1000, status: `${role}: ${s.message}` });
        },
        createWorker: () => {
          const client = ModelWorkerClient.spawn();
          clients.push(client);
          return { worker: client, terminate: () => client.terminate() };
        },
      });
      return { ok: true as const, seconds: (performance.now() - started) / 1000, f16: spec.f16 };
    } catch (err) {
      return { ok: false as const, ...describe(err), statuses: statuses.slice(-5) };
    }
  },
  async addDocument(name: string, text: string) {
    session = new RlmSession({
      createRepl: () => createBrowserRepl({ sandboxFrame: false }),
      engines: () => ({ root: engines!.root, sub: engines!.sub }),
      // A software adapter on a busy machine can take over 15 min (the default limit) for one turn;
      // this page's limit is the test's timeouts instead (a cell's own limit leaves out sub-calls).
      config: () => ({
        ...DEFAULT_CONFIG,
        runMode: "rlm",
        maxIterations: 4,
        maxTokensPerTurn: 96,
        subMaxTokens: 16,
        sampling: { temperature: 0 },
        maxWallTimeMs: 3 * 60 * 60_000,
      }),
    });
    await session.start();
    await session.addDocuments([{ path: name, data: new Blob([text]) }]);
  },
  /** Starts a question; `settled()` waits for its result. */
  ask(question: string, newScript: Script) {
    script = newScript;
    requests.length = 0;
    events.length = 0;
    running = new AbortController();
    const startedAt = performance.now();
    pendingRun = session!.ask(question, { signal: running.signal, onEvent: (e) => events.push(e) }).then(
      (r) => ({
        ok: true as const,
        answer: r.answer,
        status: r.status,
        message: r.message,
        usage: r.usage,
        seconds: (performance.now() - startedAt) / 1000,
      }),
      (err: unknown) => ({ ok: false as const, ...describe(err), seconds: (performance.now() - startedAt) / 1000 }),
    );
  },
  settled() {
    return pendingRun!;
  },
  /**
   * One request straight to the loaded root engine, stoppable with stop(): the loop's Stop reaches
   * the engine the same way, through the request's signal. Its prompt is a few tokens, where the
   * loop's first turn prefills ~350 (minutes on a software adapter). `prompt` must contain the
   * script's sub-call marker: the reply is then fixed by the grammar for `reply`.
   */
  direct(prompt: string, reply: string, maxTokens: number) {
    script = { root: [], sub: reply, subMarker: prompt };
    requests.length = 0;
    directTokens = 0;
    running = new AbortController();
    const startedAt = performance.now();
    const seconds = () => (performance.now() - startedAt) / 1000;
    pendingDirect = engines!.root
      .complete(
        { messages: [{ role: "user", content: prompt }], maxTokens, sampling: { temperature: 0 } },
        { signal: running.signal, onToken: () => directTokens++ },
      )
      .then(
        (r) => ({ ok: true as const, text: r.text, usage: r.usage, seconds: seconds() }),
        (err: unknown) => ({ ok: false as const, ...describe(err), seconds: seconds() }),
      );
  },
  directSettled() {
    return pendingDirect!;
  },
  directTokens() {
    return directTokens;
  },
  /** Stop, as the page's Stop button does: aborts the question's signal. */
  stop() {
    running?.abort();
    return performance.now();
  },
  progress() {
    return {
      status: statuses.at(-1) ?? "",
      tokens: events.filter((e) => e.type === "token").length,
      types: events.map((e) => e.type),
      turns: events.flatMap((e) =>
        e.type === "turn-finished" ? [{ turn: e.turn, response: e.response, usage: e.usage, ms: e.durationMs }] : [],
      ),
      subcalls: events.flatMap((e) => (e.type === "subcall-finished" ? [e] : [])),
      requests: requests.slice(),
    };
  },
  /** The load's statuses with their times, the first of each kind of message (WebLLM reports hundreds). */
  loadPhases() {
    const seen = new Set<string>();
    return statusTimes.filter((s) => {
      const kind = s.status.replace(/[\d.,%/\[\]]+/g, "#").slice(0, 60);
      if (seen.has(kind)) return false;
      seen.add(kind);
      return true;
    });
  },
  problems() {
    return { page: [...pageProblems], workers: clients.flatMap((c) => c.problems) };
  },
};

declare global {
  interface Window {
    webllmRun: typeof api;
  }
}
window.webllmRun = api;
document.getElementById("status")!.textContent = "ready";
