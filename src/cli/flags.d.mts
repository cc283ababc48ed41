// Types for flags.mjs (plain JavaScript: the sandbox's launcher reads it before TypeScript loads).
// tests/unit/cli-flags.test.ts holds these tables to the ones in flags.mjs.

export declare class UsageError extends Error {}

export interface FlagSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** Environment variables read, in order, when the flag is not on the command line. */
  env?: readonly string[];
  /** A string flag that holds a number ≥ 0: checked and converted by readArgs. */
  number?: "whole" | "decimal";
}

type Text = { type: "string"; env?: readonly string[] };
type Whole = { type: "string"; number: "whole" };
type Decimal = { type: "string"; number: "decimal" };
type On = { type: "boolean"; short?: string };

type ModelFlags = {
  "base-url": Text;
  model: Text;
  "sub-model": Text;
  "api-key": Text;
  "context-window": Whole;
  "no-stream": On;
  "model-file": Text;
  "sub-model-file": Text;
  threads: Whole;
};

export type RlmFlags = ModelFlags & {
  "sub-context-window": Whole;
  "context-file": { type: "string"; multiple: true };
  task: Text;
  "output-trajectory": Text;
  json: On;
  verbose: On;
  "raw-output": On;
  quiet: On;
  "cache-dir": Text;
  "no-cache": On;
  "max-iterations": Whole;
  "max-depth": Whole;
  "max-tokens": Whole;
  "sub-max-tokens": Whole;
  "max-subcalls": Whole;
  "max-time": Decimal;
  "cell-timeout": Decimal;
  concurrency: Whole;
  temperature: Decimal;
  "top-p": Decimal;
  seed: Whole;
  prompt: Text;
  mode: Text;
  thinking: On;
  fallback: Text;
  "max-fallback-calls": Whole;
  "max-fallback-tokens": Whole;
  help: On;
  version: On;
};

export type BenchFlags = ModelFlags & {
  suites: Text;
  sizes: Text;
  methods: Text;
  repeats: Whole;
  seed: Whole;
  out: Text;
  "max-iterations": Whole;
  "max-depth": Whole;
  temperature: Decimal;
  concurrency: Whole;
  "max-time": Whole;
  verbose: On;
  help: On;
};

export type WarmupFlags = { "cache-dir": Text; rebuild: On; verbose: On; help: On };

export declare const RLM_FLAGS: RlmFlags;
export declare const BENCH_FLAGS: BenchFlags;
export declare const WARMUP_FLAGS: WarmupFlags;

/** What a flag holds once read: a boolean, a list, a number or text (undefined when not given and not in the environment). */
export type FlagValue<F> = F extends { type: "boolean" }
  ? boolean
  : F extends { multiple: true }
    ? string[]
    : F extends { number: string }
      ? number | undefined
      : string | undefined;

export type FlagValues<T> = { [K in keyof T]: FlagValue<T[K]> };

export interface ReadArgs<T> {
  values: FlagValues<T>;
  positionals: string[];
  /** The flags typed on the command line (not taken from the environment). */
  given: ReadonlySet<keyof T & string>;
  /** Where each value came from: "--base-url" or "RLM_BASE_URL". */
  from: Partial<Record<keyof T & string, string>>;
}

export declare function readArgs<T extends Record<string, FlagSpec>>(
  table: T,
  argv: readonly string[],
  env?: Record<string, string | undefined>,
  options?: { positionals?: boolean; strict?: boolean },
): ReadArgs<T>;

export declare function numberOf(flag: string, raw: string, integer: boolean): number;
export declare function choiceOf<C extends string>(flag: string, raw: string | undefined, allowed: readonly C[]): C | undefined;
