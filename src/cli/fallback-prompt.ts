// `rlm --fallback ask` on a terminal: the question src/core/fallback-cost.ts words, asked on
// stderr and answered on stdin (y or n). Without a terminal nobody can answer, so there is no
// asker and the core does not read above the limits (the run says so and how to allow it).
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { DEFAULT_FALLBACK_POLICY, questionWords, type FallbackAsker, type FallbackPolicy } from "../core/fallback-cost.ts";
import type { FallbackSummary, RlmResult } from "../core/types.ts";
import type { CliOptions } from "./args.ts";

/** Asks a yes/no question; anything but y/yes (an empty line, end of input, Ctrl-C, Stop) is no. */
export function yesNo(input: Readable, output: Writable): (prompt: string, signal: AbortSignal) => Promise<boolean> {
  return (prompt, signal) =>
    new Promise<boolean>((resolve) => {
      const rl = createInterface({ input, output, terminal: (input as { isTTY?: boolean }).isTTY === true });
      let done = false;
      const finish = (yes: boolean) => {
        if (done) return;
        done = true;
        signal.removeEventListener("abort", no);
        rl.close();
        resolve(yes);
      };
      const no = () => finish(false);
      signal.addEventListener("abort", no, { once: true });
      rl.on("SIGINT", no);
      rl.on("close", no);
      rl.question(prompt, (line) => finish(/^\s*y(es)?\s*$/i.test(line)));
    });
}

/** The fallback's policy from the command line: the core's defaults, changed by the flags given. */
export function fallbackPolicyFrom(o: Pick<CliOptions, "fallback" | "maxFallbackCalls" | "maxFallbackTokens">): FallbackPolicy {
  return {
    mode: o.fallback ?? DEFAULT_FALLBACK_POLICY.mode,
    maxCalls: o.maxFallbackCalls ?? DEFAULT_FALLBACK_POLICY.maxCalls,
    maxTokens: o.maxFallbackTokens ?? DEFAULT_FALLBACK_POLICY.maxTokens,
  };
}

/** The asker for `--fallback ask`: the question on stderr, the answer from the terminal. */
export function terminalAsker(ask: (prompt: string, signal: AbortSignal) => Promise<boolean>): FallbackAsker {
  return (question, signal) => ask(`rlm: ${questionWords(question)}\nRead it? [y/N] `, signal);
}

/**
 * One stderr line on what happened with the fallback, whenever it was weighed: how a reading
 * that answered was allowed, or what to pass to allow one that was not made. "" otherwise.
 */
export function fallbackLine(result: RlmResult): string {
  const f: FallbackSummary | undefined = result.fallback;
  if (!f) return "";
  if (result.producedBy === "fallback") {
    const allowed =
      f.decision === "agreed"
        ? "you agreed"
        : f.decision === "always"
          ? "--fallback always"
          : f.decision === "within-limits"
            ? "within the limits"
            : "";
    return `rlm: answered by the fallback (${f.reason}); the harness read ${f.chunksRead} of ${f.chunksTotal} parts itself${allowed ? ` (${allowed})` : ""}.\n`;
  }
  if (f.decision === "over-limits")
    return "rlm: to let the harness read it, pass --fallback always, or raise --max-fallback-calls / --max-fallback-tokens (or run on a terminal to be asked).\n";
  if (f.decision === "never") return "rlm: the harness's own reading is off (--fallback never).\n";
  return "";
}
