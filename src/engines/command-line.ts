// An engine's command-line part: the flags it reads, the flag that chooses it, how it is built
// from them. `rlm` and `rlm bench` pick an engine from src/engines/command-line-registry.ts by
// these parts, never by name. Kept apart from the page's descriptors (descriptor.ts) because
// these build Node-only engines (llama.cpp native) that the page's bundle must never reach.
import type { FlagValues, RlmFlags } from "../cli/flags.mjs";
import type { LoadProgress, PrefillProgress, TestGrammar } from "./llama-node/index.ts";
import type { ChatEngine } from "./types.ts";

/** The flags as read (src/cli/flags.mjs); `rlm bench` has fewer flags than `rlm`, so each may be absent. */
export interface ParsedFlags {
  values: Partial<FlagValues<RlmFlags>>;
  /** The flags typed on the command line (not taken from the environment). */
  given: ReadonlySet<string>;
  /** Where each value came from: "--base-url" or "RLM_BASE_URL". */
  from: Partial<Record<string, string>>;
}

/** What opening an engine is given by the command it runs in. */
export interface OpenContext {
  /** node:http's fetch (src/node/http-fetch.ts): the engines folder does not reach for Node's sockets itself. */
  fetch: typeof fetch;
  stderr: (s: string) => void;
  signal: AbortSignal;
  /** For a progress line while a local model loads and reads its prompts. */
  onLoadProgress?: (progress: LoadProgress) => void;
  onPrefill?: (progress: PrefillProgress) => void;
  /** Tests only: the grammar hook a preloaded test module registered (src/cli/test-hook.ts); engines read no globals. */
  testGrammar?: TestGrammar;
}

export interface OpenedEngines {
  root: ChatEngine;
  sub: ChatEngine;
  close(): Promise<void>;
}

/** An engine chosen and its options read: ready to open. */
export interface EngineChoice {
  readonly id: string;
  /** The options read from the flags (what `open` uses; tests look at them). */
  readonly options: object;
  /** What the command is doing while it opens, for messages: "loading the model file". */
  readonly opening: string;
  open(context: OpenContext): Promise<OpenedEngines>;
  /** An error while opening that is a bad option (exit 2, like one): a file that is no model, a window too large. */
  isBadOption(err: unknown): err is Error;
}

export interface CommandLineEngine {
  /** The page registry's id for the same engine, or its own (an engine the page cannot run). */
  readonly id: string;
  /** The flag that chooses this engine; the one engine without it is the default. */
  readonly chosenBy?: string;
  /** Flags only this engine reads: typed while another engine is chosen, they are refused. */
  readonly flags: readonly string[];
  /** Why `flag` (another engine's) cannot go with this engine, said as what to do. */
  refuse(flag: string): string;
  /** Reads its options (a UsageError names what is missing or wrong). */
  choose(flags: ParsedFlags): EngineChoice;
}
