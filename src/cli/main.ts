// `rlm`: ask a question about files from the terminal, through any OpenAI-compatible server.
import { readFile, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { RlmSession } from "../core/session.ts";
import { DEFAULT_CONFIG, type RlmConfig } from "../core/types.ts";
import { totalTokens } from "../core/usage.ts";
import { OpenAIEngine } from "../engines/openai.ts";
import { createNodeRepl } from "../repl/node.ts";
import type { ContextDocumentInput } from "../repl/protocol.ts";
import { HELP, UsageError, parseCliArgs, type CliOptions } from "./args.ts";
import { printSources, verbosePrinter } from "./verbose.ts";

const VERSION = "0.1.0";

export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readStdin: () => Promise<Buffer | null>;
  env: Record<string, string | undefined>;
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
};

function configFrom(o: CliOptions): RlmConfig {
  const c: RlmConfig = { ...DEFAULT_CONFIG };
  if (o.maxIterations !== undefined) c.maxIterations = o.maxIterations;
  if (o.maxDepth !== undefined) c.maxDepth = o.maxDepth;
  if (o.maxSubcalls !== undefined) c.maxSubcalls = o.maxSubcalls;
  if (o.maxTimeS !== undefined) c.maxWallTimeMs = o.maxTimeS * 1000;
  if (o.cellTimeoutS !== undefined) c.cellTimeoutMs = o.cellTimeoutS * 1000;
  if (o.concurrency !== undefined) c.maxConcurrentSubcalls = o.concurrency;
  if (o.maxTokens !== undefined) c.maxTokensPerTurn = o.maxTokens;
  if (o.subMaxTokens !== undefined) c.subMaxTokens = o.subMaxTokens;
  if (o.temperature !== undefined) c.temperature = o.temperature;
  if (o.topP !== undefined) c.topP = o.topP;
  if (o.seed !== undefined) c.seed = o.seed;
  return c;
}

async function loadInputs(o: CliOptions, io: CliIO): Promise<ContextDocumentInput[]> {
  if (o.contextFiles.length) {
    const docs: ContextDocumentInput[] = [];
    for (const path of o.contextFiles) {
      try {
        // Read into memory: Node cannot post file-backed Blobs (fs.openAsBlob) to a worker thread.
        const bytes = await readFile(path);
        docs.push({ name: o.contextFiles.length === 1 ? basename(path) : path, data: new Blob([new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)]) });
      } catch (err) {
        throw new UsageError(`cannot read --context-file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      }
    }
    return docs;
  }
  const stdin = await io.readStdin();
  if (!stdin) throw new UsageError("no document: give --context-file PATH or pipe the document on stdin");
  return [{ name: "stdin", data: new Blob([new Uint8Array(stdin)]) }];
}

export async function main(argv: string[], io: CliIO = defaultIO): Promise<number> {
  if (argv[0] === "bench") {
    const { benchMain } = await import("./bench.ts");
    return benchMain(argv.slice(1), io);
  }
  let options: CliOptions;
  try {
    options = parseCliArgs(argv, io.env);
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

  let session: RlmSession | null = null;
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    io.stderr("\nrlm: stopping (press Ctrl-C again to quit at once)…\n");
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  try {
    const docs = await loadInputs(options, io);
    const root = await OpenAIEngine.connect({
      baseUrl: options.baseUrl,
      model: options.model,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
      stream: options.stream,
      ...(options.concurrency ? { maxConcurrency: options.concurrency } : {}),
    });
    const sub = options.subModel ? root.withModel(options.subModel, options.subContextWindow) : root;
    const config = configFrom(options);
    session = new RlmSession({ createRepl: () => createNodeRepl({ syncMode: "auto" }), engines: () => ({ root, sub }), config: () => config });
    await session.addDocuments(docs.map((d) => ({ path: d.name, data: d.data })));
    if (options.verbose) {
      const info = session.contextInfo;
      io.stderr(
        `rlm: ${docs.length} document(s), ${(info?.total_chars ?? 0).toLocaleString("en-US")} characters; ` +
          `root ${root.model} (${root.contextWindow} tokens), sub ${sub.model}\n`,
      );
    }
    const result = await session.ask(options.task, {
      signal: controller.signal,
      ...(options.verbose ? { onEvent: verbosePrinter(io.stderr) } : {}),
    });
    if (options.outputTrajectory) await writeFile(options.outputTrajectory, session.exportJsonl());
    if (options.verbose && result.answer) printSources(io.stderr, result.sources ?? []);
    if (options.json) {
      const tokens = totalTokens(result.usage);
      io.stdout(
        `${JSON.stringify(
          {
            answer: result.answer,
            status: result.status,
            ...(result.message ? { message: result.message } : {}),
            iterations: result.iterations.length,
            usage: { ...result.usage, promptTokens: tokens.prompt, completionTokens: tokens.completion },
            sources: result.sources ?? [],
          },
          null,
          2,
        )}\n`,
      );
    } else if (result.answer) {
      io.stdout(`${result.answer}\n`);
    }
    if (result.status !== "answered" && result.message) io.stderr(`rlm: ${result.message}\n`);
    if (!result.answer) {
      if (!options.json) io.stderr(`rlm: no answer (${result.status}).\n`);
      return 1;
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`rlm: ${err.message}\n`);
      return 2;
    }
    io.stderr(`rlm: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    process.off("SIGINT", onSigint);
    (session as RlmSession | null)?.close();
  }
}
