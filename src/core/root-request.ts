// Step 1 of a turn: the request the root model gets, and its reply. Every root request carries
// the harness's own labels as stop sequences (so a server stops where a small model would start
// inventing the REPL's answer, M05) and the thinking switch (off unless asked: a Qwen3 root would
// spend its small window reasoning, M08). While the reply streams in, a runaway repetition
// ("print(x)\nprint(x)\n…" until the token limit, M09) ends the request early; what came before
// it is kept and parsed like any reply.
import { EngineAbortedError } from "../engines/errors.ts";
import { estimateMessagesTokens, estimateTokens } from "../engines/tokens.ts";
import type { ChatEngine, ChatMessage, ChatRequest, ChatResult } from "../engines/types.ts";
import type { Budgets } from "./budgets.ts";
import { endsInRunawayRepetition } from "./guards/runaway.ts";
import { ROOT_STOP_SEQUENCES } from "./reply.ts";
import type { RlmConfig } from "./types.ts";
import { samplingOf } from "./sampling.ts";

export function rootRequest(config: RlmConfig, budgets: Budgets, messages: ChatMessage[]): ChatRequest {
  return {
    messages,
    maxTokens: budgets.maxTokensPerTurn,
    stop: ROOT_STOP_SEQUENCES,
    thinking: config.thinking ?? false,
    ...samplingOf(config),
  };
}

export interface RootReply extends ChatResult {
  /** The reply was cut where it began repeating itself. */
  runaway: boolean;
}

/** Streamed text is checked for a runaway loop every this many characters (cheap, not per token). */
const CHECK_EVERY_CHARS = 48;

/**
 * The root model's reply to `request`. Stop (the run's signal) still throws; a runaway reply
 * comes back cut, with `runaway` set and its usage estimated (the server never reported it).
 */
export async function completeRoot(
  engine: ChatEngine,
  request: ChatRequest,
  options: { signal: AbortSignal; onToken?: (text: string) => void },
): Promise<RootReply> {
  // One controller per request, following the run's signal; the listener is removed after the
  // request, so a long run does not pile up listeners on its signal (AbortSignal.any would).
  const perRequest = new AbortController();
  const follow = () => perRequest.abort();
  if (options.signal.aborted) follow();
  else options.signal.addEventListener("abort", follow, { once: true });
  let runaway = false;
  let text = "";
  let checkedAt = 0;
  const onToken = (delta: string) => {
    options.onToken?.(delta);
    text += delta;
    if (text.length - checkedAt < CHECK_EVERY_CHARS) return;
    checkedAt = text.length;
    if (!runaway && endsInRunawayRepetition(text)) {
      runaway = true;
      perRequest.abort();
    }
  };
  try {
    const result = await engine.complete(request, { signal: perRequest.signal, onToken });
    return { ...result, runaway: false };
  } catch (err) {
    if (!runaway || options.signal.aborted || !(err instanceof EngineAbortedError)) throw err;
    return {
      text,
      usage: { promptTokens: estimateMessagesTokens(request.messages), completionTokens: estimateTokens(text) },
      usageEstimated: true,
      finishReason: "abort",
      model: engine.model,
      runaway: true,
    };
  } finally {
    options.signal.removeEventListener("abort", follow);
  }
}
