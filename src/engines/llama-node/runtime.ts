// node-llama-cpp, loaded on first use and only then: `rlm --help` and endpoint runs never pay
// for it (nothing else in the CLI imports it; only types are imported statically). llama.cpp is
// the prebuilt CPU build that `npm ci` installed (@node-llama-cpp/<platform>): never a CUDA or
// Vulkan build, never a build from source, never a download at run time. The one exception is
// Apple Silicon, whose only prebuilt build is Metal's (the GPU shares the machine's memory).
import type { Llama, LlamaLogLevel } from "node-llama-cpp";
import { LocalEngineUnavailableError } from "../errors.ts";

export type NodeLlamaCpp = typeof import("node-llama-cpp");

export interface LlamaRuntime {
  lib: NodeLlamaCpp;
  llama: Llama;
  /** "b1234 (ggml-org/llama.cpp)", for messages. */
  version: string;
}

/** A line llama.cpp or node-llama-cpp logged, for whoever listens (load errors, --verbose). */
export type LlamaLogListener = (level: LlamaLogLevel, message: string) => void;

const listeners = new Set<LlamaLogListener>();

/** Hear llama.cpp's log lines until the returned function is called. */
export function listenToLlamaLog(listener: LlamaLogListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

let runtime: Promise<LlamaRuntime> | undefined;

/** The one llama.cpp of this process. */
export function llamaRuntime(): Promise<LlamaRuntime> {
  runtime ??= start();
  runtime.catch(() => (runtime = undefined)); // a failed start may be retried
  return runtime;
}

async function start(): Promise<LlamaRuntime> {
  let lib: NodeLlamaCpp;
  try {
    lib = await import("node-llama-cpp");
  } catch (err) {
    throw new LocalEngineUnavailableError(
      `node-llama-cpp is not installed (${err instanceof Error ? err.message.split("\n")[0] : String(err)}). ` +
        "Run npm ci in Recursive Reader's folder, or use a model server with --base-url.",
    );
  }
  try {
    const llama = await lib.getLlama({
      gpu: appleSilicon() ? "metal" : false,
      build: "never",
      progressLogs: false,
      // Warnings and errors reach the listeners (a load failure's reason is only logged);
      // nothing is printed unless a listener prints it.
      logLevel: lib.LlamaLogLevel.warn,
      logger: (level, message) => {
        for (const listener of listeners) listener(level, message);
      },
    });
    const release = llama.llamaCppRelease;
    return { lib, llama, version: `llama.cpp ${release.release}` };
  } catch (err) {
    if (err instanceof lib.NoBinaryFoundError) throw new LocalEngineUnavailableError(noBinaryMessage());
    throw new LocalEngineUnavailableError(`llama.cpp did not start: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** node-llama-cpp ships no CPU-only build for arm64 macOS: its Metal build is the one there. */
export function appleSilicon(platform = process.platform, arch = process.arch): boolean {
  return platform === "darwin" && arch === "arm64";
}

/** One line: what this machine is, and what to do instead. */
export function noBinaryMessage(platform = process.platform, arch = process.arch): string {
  return (
    `--model-file needs llama.cpp's prebuilt CPU build, and none was installed for ${platform}-${arch} ` +
    "(there are builds for Linux x64/arm64 with glibc, macOS and Windows). " +
    "Run the model in llama-server, Ollama or LM Studio and point rlm at it with --base-url and --model."
  );
}
