// Thinking models' empty replies (issue 36 §5): a Qwen3 or R1-style root can spend its whole
// turn budget inside <think> and show nothing. The same request again gets the same nothing, so
// the turn is asked once more with thinking off — `/no_think` in the message for Qwen3 (its
// template's soft switch, which servers that ignore `chat_template_kwargs` still pass through),
// `thinking: false` (the engine sends `enable_thinking: false` where the server takes it) — and
// a larger budget. If that is empty too, the harness reads the document itself.
import type { ChatMessage, ChatRequest } from "../engines/types.ts";
import { normaliseReply } from "./reply.ts";

/** Qwen3-family names, whose chat template reads `/no_think`. */
const QWEN3 = /qwen[-_ ]?3/i;

/**
 * Nothing visible, but thoughts still open when the reply ended (or the budget ran out): the model
 * spent its budget thinking. Thinking that closed with nothing after it is another fault — the
 * action written inside <think> — which its own message answers.
 */
export function spentOnThinking(reply: { text: string; finishReason?: string | null }): boolean {
  const normalised = normaliseReply(reply.text);
  if (normalised.text.trim() || normalised.cut || !normalised.thinking.trim()) return false;
  return reply.finishReason === "length" || /<think(?:ing)?\s*>(?![\s\S]*<\/think(?:ing)?\s*>)/i.test(reply.text);
}

/** The request again with thinking off and twice the budget (at most half the window). */
export function thinkingOff(model: string, rootWindow: number): (request: ChatRequest) => ChatRequest {
  return (request) => {
    const budget = request.maxTokens ?? 1024;
    const messages: ChatMessage[] = request.messages.map((m) => ({ ...m }));
    const last = messages.findLastIndex((m) => m.role === "user");
    if (QWEN3.test(model) && last >= 0) messages[last] = { ...messages[last]!, content: `${messages[last]!.content}\n/no_think` };
    return { ...request, messages, thinking: false, maxTokens: Math.max(budget, Math.min(2 * budget, Math.floor(rootWindow / 2))) };
  };
}

export interface Asked<R> {
  result: R;
  messages: ChatMessage[];
}

export interface ThinkingRetry<R> {
  asked: Asked<R>;
  /** For the trajectory: what was retried, and how. */
  note: string | null;
  /** The retry showed nothing either: time for the fallback. */
  failed: boolean;
}

/** Asks once more with thinking off when a reply was only thinking; otherwise the reply as it was. */
export async function retryIfOnlyThinking<R extends { text: string; finishReason?: string | null }>(
  first: Asked<R>,
  ask: (adjust: (request: ChatRequest) => ChatRequest) => Promise<Asked<R>>,
  model: string,
  rootWindow: number,
): Promise<ThinkingRetry<R>> {
  if (!spentOnThinking(first.result)) return { asked: first, note: null, failed: false };
  const adjust = thinkingOff(model, rootWindow);
  const again = await ask(adjust);
  const how = `${QWEN3.test(model) ? "/no_think, " : ""}thinking off and a larger budget`;
  const failed = spentOnThinking(again.result) || !normaliseReply(again.result.text).text.trim();
  const note =
    `The model's reply was only thinking (nothing visible), so the turn was asked again with ${how}` +
    (failed ? "; that showed nothing either, so the harness reads the document itself." : ".");
  return { asked: again, note, failed };
}
