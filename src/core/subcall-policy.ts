// How one llm_query prompt becomes a model request (issue 13, "sub-calls that respect small
// windows"; small-models.md M13): measured against the sub-model's window (over it, a clear
// Error: string with the size and the limit, never a silent cut), capped in reply length,
// thinking off unless asked (Qwen3 would spend the small window reasoning about a lookup), and
// identical prompts answered once per run (a small root re-asks the same chunk question).
import { estimateTokens } from "../engines/tokens.ts";
import type { ChatEngine, ChatRequest, ChatResult } from "../engines/types.ts";
import type { Budgets } from "./budgets.ts";
import { stripThinking } from "./parse.ts";
import { groupDigits } from "./numbers.ts";
import type { Sampling } from "./sampling.ts";

export class SubcallTooLongError extends Error {
  override name = "SubcallTooLongError";
  constructor(
    readonly promptTokens: number,
    readonly limitTokens: number,
    chunkChars: number,
  ) {
    super(
      `the prompt is about ${groupDigits(promptTokens)} tokens but the helper model reads at most ` +
        `${groupDigits(limitTokens)}. Split it into pieces of at most ${groupDigits(chunkChars)} characters.`,
    );
  }
}

export interface SubcallPolicyOptions {
  budgets: Pick<Budgets, "subMaxTokens" | "chunkChars">;
  /** Thinking for sub-calls; default false. */
  thinking?: boolean;
  /** Answer identical prompts (same model) once per run; default true. */
  memoize?: boolean;
  /** Temperature, top-p, seed as one value (src/core/sampling.ts); absent: the engine's defaults. */
  sampling?: Sampling;
}

export interface SubcallOutcome {
  /** The reply with any thinking removed. */
  text: string;
  /** The engine's result; for a memoised answer, the first call's (its usage was counted then). */
  result: ChatResult;
  /** True when this prompt was answered earlier in the run and not sent again. */
  cached: boolean;
}

/** One per run: the memo lives as long as the run. */
export class SubcallPolicy {
  private readonly memo = new Map<string, Promise<{ text: string; result: ChatResult }>>();

  constructor(private readonly options: SubcallPolicyOptions) {}

  /** The request for `prompt` on `engine`, or SubcallTooLongError when it cannot fit. */
  request(prompt: string, engine: Pick<ChatEngine, "contextWindow">, model?: string): ChatRequest {
    const { subMaxTokens, chunkChars } = this.options.budgets;
    const promptTokens = estimateTokens(prompt);
    const limit = engine.contextWindow - subMaxTokens;
    if (promptTokens > limit) throw new SubcallTooLongError(promptTokens, limit, chunkChars);
    const o = this.options;
    return {
      messages: [{ role: "user", content: prompt }],
      maxTokens: subMaxTokens,
      thinking: o.thinking ?? false,
      sampling: o.sampling,
      ...(model ? { model } : {}),
    };
  }

  /** Whether `prompt` was asked in this run already (so it costs no model call and no budget). */
  remembers(prompt: string, engine: Pick<ChatEngine, "model">, model?: string): boolean {
    return this.options.memoize !== false && this.memo.has(memoKey(prompt, engine, model));
  }

  /**
   * Runs one sub-call through `send` (the loop's counted, recorded path to the engine). A prompt
   * already asked in this run returns the same answer without a request; a failed call is not
   * remembered, so asking again retries.
   */
  async run(
    prompt: string,
    engine: Pick<ChatEngine, "contextWindow" | "model">,
    send: (request: ChatRequest) => Promise<ChatResult>,
    model?: string,
  ): Promise<SubcallOutcome> {
    const request = this.request(prompt, engine, model);
    const key = memoKey(prompt, engine, model);
    const remembered = this.options.memoize === false ? undefined : this.memo.get(key);
    if (remembered) return { ...(await remembered), cached: true };
    const pending = send(request).then((result) => ({ text: stripThinking(result.text).trim(), result }));
    if (this.options.memoize !== false) {
      this.memo.set(key, pending);
      pending.catch(() => this.memo.delete(key));
    }
    return { ...(await pending), cached: false };
  }
}

const memoKey = (prompt: string, engine: Pick<ChatEngine, "model">, model?: string) => `${model ?? engine.model}\u0000${prompt}`;
