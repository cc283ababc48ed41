import type { ChatMessage } from "./types.ts";

/**
 * Characters per token for budgeting. Qwen's tokenizer gives about 3.5–4 on English prose and
 * code; the lower figure over-counts slightly, which keeps prompts inside the window.
 */
export const CHARS_PER_TOKEN = 3.5;

/** Per-message overhead of chat templates (role markers, separators). */
const MESSAGE_OVERHEAD_TOKENS = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function estimateMessagesTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const m of messages) total += estimateTokens(m.content) + MESSAGE_OVERHEAD_TOKENS;
  return total;
}
