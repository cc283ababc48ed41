// The one argument reader of `rlm`, `rlm bench` and `rlm warmup`, and every flag they take with
// its environment variable: the Python sandbox's launcher (src/node/python-sandbox.mjs) reads the
// same table before any TypeScript loads, so it cannot guess documents or the cache differently
// from the command that then runs. Plain JavaScript for that reason; types in flags.d.mts (a
// unit test holds the two to the same flags). Engines add no flags here by name: the flags an
// engine reads are listed by its command-line part (src/engines/*/command-line.ts).
import { parseArgs } from "node:util";

/** A bad flag or value: exit 2, with a message that says what to give instead. */
export class UsageError extends Error {
  name = "UsageError";
}

const text = { type: "string" };
const whole = { type: "string", number: "whole" };
const decimal = { type: "string", number: "decimal" };
const on = { type: "boolean" };

/** Flags of a model server (an OpenAI-compatible endpoint) and a local GGUF; `rlm` and `rlm bench` take them all. */
const MODEL_FLAGS = {
  "base-url": { ...text, env: ["RLM_BASE_URL"] },
  model: { ...text, env: ["RLM_MODEL"] },
  "sub-model": text,
  "api-key": { ...text, env: ["RLM_API_KEY", "OPENAI_API_KEY"] },
  "context-window": whole,
  "no-stream": on,
  "model-file": text,
  "sub-model-file": text,
  threads: whole,
};

/** `rlm`: every flag, in the order of --help. */
export const RLM_FLAGS = {
  ...MODEL_FLAGS,
  "sub-context-window": whole,
  "context-file": { type: "string", multiple: true },
  task: text,
  "output-trajectory": text,
  json: on,
  verbose: { ...on, short: "v" },
  "raw-output": on,
  quiet: { ...on, short: "q" },
  "cache-dir": text,
  "no-cache": on,
  "max-iterations": whole,
  "max-depth": whole,
  "max-tokens": whole,
  "sub-max-tokens": whole,
  "max-subcalls": whole,
  "max-time": decimal,
  "cell-timeout": decimal,
  concurrency: whole,
  temperature: decimal,
  "top-p": decimal,
  seed: whole,
  prompt: text,
  mode: text,
  thinking: on,
  fallback: text,
  "max-fallback-calls": whole,
  "max-fallback-tokens": whole,
  help: { ...on, short: "h" },
  version: on,
};

/** `rlm bench`: the model's flags and the run limits of `rlm`, and its own; its --seed seeds the task generator. */
export const BENCH_FLAGS = {
  ...MODEL_FLAGS,
  suites: text,
  sizes: text,
  methods: text,
  repeats: whole,
  seed: whole,
  out: text,
  "max-iterations": whole,
  "max-depth": whole,
  temperature: decimal,
  concurrency: whole,
  "max-time": whole,
  verbose: RLM_FLAGS.verbose,
  help: RLM_FLAGS.help,
};

/** `rlm warmup`. */
export const WARMUP_FLAGS = {
  "cache-dir": text,
  rebuild: on,
  verbose: RLM_FLAGS.verbose,
  help: RLM_FLAGS.help,
};

/**
 * Reads `argv` against a table of flags. A string flag missing from the command line takes the
 * first of its environment variables that is set; `given` says which flags were typed, `from`
 * where each value came from ("--base-url" or "RLM_BASE_URL"), for messages. Numbers are checked
 * here (whole or decimal, never negative). Unknown flags are refused unless `strict` is false
 * (the launcher's guess, which must not fail before the command can say why).
 */
export function readArgs(table, argv, env = {}, { positionals = false, strict = true } = {}) {
  const options = Object.fromEntries(
    Object.entries(table).map(([name, f]) => [
      name,
      { type: f.type, ...(f.short ? { short: f.short } : {}), ...(f.multiple ? { multiple: true } : {}) },
    ]),
  );
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: positionals || !strict, strict });
  } catch (err) {
    throw new UsageError(parseProblem(err, table));
  }
  const values = {};
  const from = {};
  const given = new Set();
  for (const [name, f] of Object.entries(table)) {
    let raw = parsed.values[name];
    if (raw !== undefined && typeof raw !== (f.type === "boolean" ? "boolean" : f.multiple ? "object" : "string")) raw = undefined;
    if (raw !== undefined) {
      given.add(name);
      from[name] = `--${name}`;
    } else if (f.env) {
      const variable = f.env.find((v) => env[v] !== undefined && env[v] !== "");
      if (variable) {
        raw = env[variable];
        from[name] = variable;
      }
    }
    if (f.type === "boolean") values[name] = raw === true;
    else if (f.multiple) values[name] = raw ?? [];
    else values[name] = f.number && raw !== undefined ? numberOf(from[name], raw, f.number === "whole") : raw;
  }
  return { values, positionals: parsed.positionals, given, from };
}

/** A number ≥ 0 (whole if asked), or a UsageError naming the flag and what it got. */
export function numberOf(flag, raw, integer) {
  const value = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < 0) {
    throw new UsageError(`${flag} needs a ${integer ? "whole " : ""}number ≥ 0, got "${raw}"`);
  }
  return value;
}

/** One of `allowed`, or a UsageError listing them. */
export function choiceOf(flag, raw, allowed) {
  if (raw === undefined) return undefined;
  if (!allowed.includes(raw)) throw new UsageError(`--${flag} must be one of ${allowed.join(", ")}, got "${raw}"`);
  return raw;
}

/** Node's parse errors, said as what to type instead. */
function parseProblem(err, table) {
  const message = err instanceof Error ? err.message : String(err);
  const code = err && typeof err === "object" ? err.code : undefined;
  const flag = /'(-{1,2}[^' =]+)/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && flag) {
    const near = nearest(flag.replace(/^-+/, ""), Object.keys(table));
    return `unknown option ${flag}${near ? ` (did you mean --${near}?)` : ""}`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && flag) {
    const name = flag.replace(/^-+/, "");
    return table[name]?.type === "boolean"
      ? `--${name} takes no value`
      : `--${name} needs a value (one starting with "-" goes as --${name}=-VALUE)`;
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    return `${message.replace(/\.$/, "")}; a value goes after its flag (quote text with spaces)`;
  }
  return message;
}

/** The flag a typo most likely meant: one or two letters off, or the start of it. */
function nearest(typed, names) {
  let best = null;
  let bestDistance = 3;
  for (const name of names) {
    const d = name.startsWith(typed) && typed.length >= 3 ? 1 : distance(typed, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

function distance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}
