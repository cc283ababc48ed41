// How fast llama.cpp ran on this device, from its own reports of the last question's calls: the
// figure a person can plan the next question by (the catalog's speeds are estimates from another
// machine). No DOM.
import type { CallRecord } from "./engine.ts";

export interface MeasuredRates {
  /** Prompt tokens evaluated per second (cached tokens cost nothing and are left out). */
  prefill: number | null;
  /** Tokens generated per second. */
  decode: number | null;
}

/**
 * A prompt of a few tokens is mostly llama.cpp's per-call overhead, not its reading speed: only
 * evaluations at least this long count.
 */
const MIN_EVALUATED = 16;

export function measuredRates(calls: readonly CallRecord[]): MeasuredRates {
  const read = calls.filter((c) => c.evaluatedTokens >= MIN_EVALUATED && c.promptMs > 0);
  const written = calls.filter((c) => c.completionTokens > 0 && c.predictedMs > 0);
  const rate = (tokens: number, ms: number) => (ms > 0 ? (tokens / ms) * 1000 : null);
  return {
    prefill: read.length
      ? rate(
          sum(read, (c) => c.evaluatedTokens),
          sum(read, (c) => c.promptMs),
        )
      : null,
    decode: written.length
      ? rate(
          sum(written, (c) => c.completionTokens),
          sum(written, (c) => c.predictedMs),
        )
      : null,
  };
}

/** "23 tokens/s reading prompts, 9.8 writing", or "" when the calls measured nothing. */
export function ratesText({ prefill, decode }: MeasuredRates): string {
  const f = (x: number) => x.toLocaleString("en-US", { maximumFractionDigits: x < 10 ? 1 : 0 });
  const parts = [prefill !== null ? `${f(prefill)} tokens/s reading prompts` : "", decode !== null ? `${f(decode)} writing` : ""];
  return parts.filter(Boolean).join(", ");
}

function sum(calls: readonly CallRecord[], pick: (c: CallRecord) => number): number {
  return calls.reduce((n, c) => n + pick(c), 0);
}
