// `rlm`: ask a question about files from the terminal, through any OpenAI-compatible server.
import { registeredTestGrammar } from "./test-hook.ts";
import { writeFile } from "node:fs/promises";
import { RlmSession, type SessionDocument } from "../core/session.ts";
import { configWith, type RlmConfig, type RlmResult } from "../core/types.ts";
import { totalTokens, UsageTracker } from "../core/usage.ts";
import { abortable, signalAt } from "../core/stop.ts";
import { deriveBudgets } from "../core/budgets.ts";
import type { EngineChoice, OpenedEngines } from "../engines/command-line.ts";
import type { ChatEngine } from "../engines/types.ts";
import { nodeHttpFetch } from "../node/http-fetch.ts";
import { createNodeRepl } from "../repl/node.ts";
import type { ContextDocumentInput } from "../repl/protocol.ts";
import { HELP, UsageError, parseCliArgs, type CliOptions } from "./args.ts";
import { resolveCacheDir } from "./cache-dir.mjs";
import { contextDocuments, decodedChars } from "./context-files.ts";
import { fallbackLine, fallbackPolicyFrom, terminalAsker, yesNo } from "./fallback-prompt.ts";
import { describeStart, timeSplitLine } from "./timing.ts";
import { printSources, verbosePrinter } from "./verbose.ts";
import { RunProgress, terminalLine, type StatusLine } from "./progress.ts";
import { groupDigits } from "../core/numbers.ts";
import { inertJson, terminalSafe, type TerminalStreams } from "./terminal-text.ts";

const VERSION = "0.1.0";

export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readStdin: () => Promise<Buffer | null>;
  env: Record<string, string | undefined>;
  /** When the command started (epoch ms): --max-time counts from it. Default: when main() is called. */
  startedAt?: number;
  /** Which streams are a terminal: there, control characters are shown, not obeyed (terminal-text.ts). */
  terminal?: TerminalStreams;
  /** A yes/no question to the person at a terminal; null when there is none (a pipe, a script). */
  ask?: ((prompt: string, signal: AbortSignal) => Promise<boolean>) | null;
  /** A progress line on stderr when it is a terminal (src/cli/progress.ts); null otherwise. */
  progress?: StatusLine | null;
}

const defaultIO: CliIO = {
  stdout: (s) => void process.stdout.write(s),
  stderr: (s) => void process.stderr.write(s),
  readStdin: async () => {
    if (process.stdin.isTTY) return null;
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  },
  env: process.env,
  // Node's start: reading a huge document or stdin before the first model call counts too.
  startedAt: performance.timeOrigin,
  terminal: { stdout: process.stdout.isTTY === true, stderr: process.stderr.isTTY === true },
  // Only a person at a terminal can answer (stdin then holds no document: see readStdin).
  ask: process.stdin.isTTY && process.stderr.isTTY ? yesNo(process.stdin, process.stderr) : null,
  progress: process.stderr.isTTY
    ? terminalLine(
        (s) => void process.stderr.write(s),
        () => process.stderr.columns,
      )
    : null,
};

function configFrom(o: CliOptions): RlmConfig {
  return configWith({
    maxIterations: o.maxIterations,
    maxDepth: o.maxDepth,
    maxSubcalls: o.maxSubcalls,
    maxWallTimeMs: o.maxTimeS === undefined ? undefined : o.maxTimeS * 1000,
    cellTimeoutMs: o.cellTimeoutS === undefined ? undefined : o.cellTimeoutS * 1000,
    maxConcurrentSubcalls: o.concurrency,
    maxTokensPerTurn: o.maxTokens,
    subMaxTokens: o.subMaxTokens,
    sampling: o.sampling,
    prompt: o.prompt,
    runMode: o.mode,
    thinking: o.thinking || undefined,
    fallback: fallbackPolicyFrom(o),
  });
}

/** A CLI document as the session holds it: a host file by path, or bytes (stdin); its size in characters if known. */
function sessionDocument(doc: ContextDocumentInput, chars: number | undefined): SessionDocument {
  const known = { ...(chars === undefined ? {} : { chars }), ...(doc.kind === undefined ? {} : { kind: doc.kind }) };
  return "path" in doc ? { path: doc.name, file: doc.path, ...known } : { path: doc.name, data: doc.data, ...known };
}

/** --json: the keys scripts already read, unchanged, then what issue 13 added (how it was answered). */
function jsonResult(result: RlmResult): string {
  const tokens = totalTokens(result.usage);
  const out = {
    answer: result.answer,
    status: result.status,
    // JSON leaves out what is undefined: a key is there only when it says something.
    message: result.message || undefined,
    iterations: result.iterations.length,
    usage: { ...result.usage, promptTokens: tokens.prompt, completionTokens: tokens.completion },
    mode: result.mode || undefined,
    producedBy: result.producedBy || undefined,
    fallback: result.fallback || undefined,
    unverified: result.unverified || undefined,
    cutOff: result.cutOff || undefined,
    sources: result.sources ?? [],
  };
  return `${inertJson(JSON.stringify(out, null, 2))}\n`;
}

/**
 * One closing line on how the answer was produced: with --verbose always, and without it when
 * the answer is not simply the model's (the fallback wrote it, or no output showed it).
 */
function howAnswered(result: RlmResult): string {
  if (result.fallback) return fallbackLine(result);
  if (result.unverified) return `rlm: ${result.unverified}\n`;
  if (result.cutOff) return `rlm: ${result.cutOff}\n`;
  if (result.mode?.used === "direct") return `rlm: answered directly in one call (${result.mode.reason}).\n`;
  return "";
}

/** What was used instead of --max-tokens, when it is more than the root's window allows (else ""). */
function maxTokensNote(asked: number | undefined, window: number): string {
  if (asked === undefined) return "";
  const used = deriveBudgets({ rootWindow: window, subWindow: window, maxTokensPerTurn: asked }).maxTokensPerTurn;
  if (used === asked) return "";
  return `rlm: --max-tokens ${asked} is more than half the root's ${groupDigits(window)}-token window (the prompt needs the rest); using ${used}.\n`;
}

/** --max-time ran out before the session's run began (which then keeps the clock itself). */
class OutOfTimeBeforeAsking extends Error {
  override name = "OutOfTimeBeforeAsking";
}

/** The limit ended the command before the model was asked: said like any run that ran out of time. */
function outOfTimeBeforeAsking(io: CliIO, json: boolean, config: RlmConfig, phase: string): number {
  const limit = Math.round(config.maxWallTimeMs / 1000);
  const message = `The ${limit} s time limit was reached while ${phase} (--max-time counts from the start of rlm). Allow more time with --max-time.`;
  if (json) {
    io.stdout(jsonResult({ answer: "", status: "out-of-time", message, iterations: [], usage: new UsageTracker().snapshot() }));
  } else {
    io.stderr(`rlm: ${message}\nrlm: no answer (out-of-time).\n`);
  }
  return 1;
}

export async function main(argv: string[], given: CliIO = defaultIO): Promise<number> {
  if (argv[0] === "warmup") {
    const { warmupMain } = await import("./warmup.ts");
    return warmupMain(argv.slice(1), terminalSafe(given, given.terminal, false));
  }
  if (argv[0] === "bench") {
    const { benchMain } = await import("./bench.ts");
    return benchMain(argv.slice(1), terminalSafe(given, given.terminal, false));
  }
  let options: CliOptions;
  let io = given;
  try {
    options = parseCliArgs(argv, io.env);
    // Everything after this point may carry text a document, the model or its code chose.
    io = terminalSafe(given, given.terminal, options.rawOutput);
  } catch (err) {
    io.stderr(`rlm: ${err instanceof Error ? err.message : String(err)}\nRun rlm --help for the options.\n`);
    return 2;
  }
  if (options.help) {
    io.stdout(`${HELP}\n`);
    return 0;
  }
  if (options.version) {
    io.stdout(`rlm ${VERSION}\n`);
    return 0;
  }

  const config = configFrom(options);
  config.startedAt = given.startedAt ?? Date.now();
  // Until the session's run takes over the clock (RlmSession.ask), the steps before it are held to the limit here.
  const timeUp = signalAt(config.startedAt + config.maxWallTimeMs);
  let phase = "reading the documents";
  const inTime = <T>(work: Promise<T>): Promise<T> => abortable(work, timeUp, () => new OutOfTimeBeforeAsking());
  let session: RlmSession | null = null;
  let opened: OpenedEngines | null = null;
  const chosen = options.engine as EngineChoice; // null only with --help or --version, answered above
  let progress: RunProgress | null = null;
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    io.stderr("\nrlm: stopping (press Ctrl-C again to quit at once)…\n");
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  try {
    const docs = await inTime(contextDocuments(options.contextFiles, io.readStdin, io.stderr));
    const cache = resolveCacheDir({ cacheDir: options.cacheDir, noCache: options.noCache, env: io.env });
    const snapshotDir = cache.dir;
    const engines: { root?: ChatEngine; sub?: ChatEngine } = {};
    session = new RlmSession({
      // Python runs in its sandbox process, which may read these documents and nothing else of yours.
      createRepl: () => createNodeRepl({ syncMode: "auto", snapshotDir, documents: docs.flatMap((d) => ("path" in d ? [d.path] : [])) }),
      engines: () => ({ root: engines.root!, sub: engines.sub! }),
      config: () => config,
    });
    // Python starts (its thread is already up, bin/rlm.mjs) while the documents' characters are
    // counted and the model server is asked about its models; the first model request then goes
    // out while Python is still restoring and decoding (RlmSession.ask), and no cell runs before
    // the documents are in Python.
    const printer = options.verbose ? verbosePrinter(io.stderr) : undefined;
    progress = !options.verbose && !options.quiet && io.progress ? new RunProgress(io.progress, config.maxIterations) : null;
    progress?.stage(`starting Python · ${chosen.opening}…`);
    const say = (message: string) => printer?.({ type: "notice", message, depth: 0 });
    const booting = session.start();
    booting.catch(() => undefined); // awaited below, unless connecting fails first
    let bootedAt = 0;
    void booting.then(
      (boot) => {
        bootedAt = performance.now();
        say(`rlm: ${describeStart(boot, cache.dir === null ? cache.why : undefined)}`);
      },
      () => undefined,
    );
    const counting = Promise.all(docs.map((d) => decodedChars(d)));
    // The engine is opened only now (a local model loads in this process), while Python starts.
    phase = chosen.opening;
    opened = await inTime(
      chosen.open({
        // node:http rather than Node's fetch (undici): ~60 ms less CPU per run (src/node/http-fetch.ts).
        fetch: nodeHttpFetch,
        stderr: progress?.around(io.stderr) ?? io.stderr,
        signal: AbortSignal.any([controller.signal, timeUp]),
        onLoadProgress: progress?.loading,
        onPrefill: progress?.prefill,
        testGrammar: registeredTestGrammar(),
      }),
    );
    engines.root = opened.root;
    engines.sub = opened.sub;
    const root = engines.root;
    const sub = engines.sub;
    const tokensNote = maxTokensNote(options.maxTokens, root.contextWindow);
    if (tokensNote) io.stderr(tokensNote);
    phase = "counting the documents' characters";
    const chars = await inTime(counting);
    const loading = session.addDocuments(docs.map((d, i) => sessionDocument(d, chars[i])));
    let documentMs = 0;
    loading.then(
      async () => {
        documentMs = performance.now() - bootedAt;
        const boot = await booting;
        say(
          `rlm: ${docs.length} document(s), ${groupDigits(session!.contextInfo?.total_chars ?? 0)} characters; ` +
            `root ${root.model} (${root.contextWindow} tokens), sub ${sub.model}; REPL ${boot.syncMode}`,
        );
      },
      () => undefined, // the question fails with the reason
    );
    const result = await session.ask(options.task, {
      signal: controller.signal,
      onEvent: printer ?? progress?.event,
      confirmFallback: io.ask && config.fallback?.mode === "ask" ? terminalAsker(io.ask) : undefined,
    });
    progress?.done();
    // A start that failed is the run's error; after a question, the boot has long finished.
    const boot = await booting;
    if (options.outputTrajectory) await writeFile(options.outputTrajectory, session.exportJsonl());
    if (options.verbose && result.answer) printSources(io.stderr, result.sources ?? []);
    // Without an answer, the line on the fallback (how to allow it) follows the message saying why.
    const how = howAnswered(result);
    const hintAfter = !result.answer && !!result.fallback;
    if (!hintAfter && (options.verbose || result.fallback || result.unverified || result.cutOff)) io.stderr(how);
    if (options.json) {
      io.stdout(jsonResult(result));
    } else if (result.answer) {
      io.stdout(`${result.answer}\n`);
    }
    if (result.status !== "answered" && result.message) io.stderr(`rlm: ${result.message}\n`);
    if (hintAfter) io.stderr(how);
    // performance.now() counts from process start: "other" includes Node and module loading.
    if (options.verbose) io.stderr(`rlm: ${timeSplitLine({ totalMs: performance.now(), boot, documentMs, usage: result.usage })}\n`);
    if (!result.answer) {
      if (!options.json) io.stderr(`rlm: no answer (${result.status}).\n`);
      return 1;
    }
    return 0;
  } catch (err) {
    (progress as RunProgress | null)?.done();
    if (err instanceof OutOfTimeBeforeAsking) return outOfTimeBeforeAsking(io, options.json, config, phase);
    if (err instanceof UsageError || chosen.isBadOption(err)) {
      io.stderr(`rlm: ${err.message}\n`);
      return 2;
    }
    io.stderr(`rlm: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    (progress as RunProgress | null)?.done();
    process.off("SIGINT", onSigint);
    (session as RlmSession | null)?.close();
    // After Stop, llama.cpp may still be finishing a batch: do not hold the exit for it.
    const closing = (opened as OpenedEngines | null)?.close().catch(() => undefined);
    if (!controller.signal.aborted) await closing;
  }
}
