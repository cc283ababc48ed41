// The root model's message list. It grows append-only (so WebLLM can reuse its KV cache) until
// it nears the window; then the oldest turns go, in one larger step so the next few turns are
// append-only again. The system prompt and the question are never dropped.
import type { ChatMessage } from "../engines/types.ts";
import { estimateMessagesTokens, estimateTokens } from "../engines/tokens.ts";
import { clipMiddle } from "./format.ts";
import { droppedTurnsNote } from "./prompts.ts";

interface Turn {
  assistant: string;
  user: string;
}

/** After dropping, the history fills at most this share of its budget. */
const REFILL_SHARE = 0.7;

export class RootConversation {
  private turns: Turn[] = [];
  private dropped = 0;

  constructor(
    private readonly system: string,
    private readonly first: string,
    private readonly budgetTokens: number,
  ) {}

  get droppedTurns(): number {
    return this.dropped;
  }

  addTurn(assistant: string, user: string): void {
    this.turns.push({ assistant, user });
  }

  /** The messages to send; `extra` is appended to the last user message. */
  messages(extra?: string): ChatMessage[] {
    const first = this.dropped ? this.first + droppedTurnsNote(this.dropped) : this.first;
    const out: ChatMessage[] = [
      { role: "system", content: this.system },
      { role: "user", content: first },
    ];
    for (const t of this.turns) {
      out.push({ role: "assistant", content: t.assistant }, { role: "user", content: t.user });
    }
    if (extra) {
      const last = out[out.length - 1]!;
      last.content = `${last.content}\n\n${extra}`;
    }
    return out;
  }

  tokens(extra?: string): number {
    return estimateMessagesTokens(this.messages(extra));
  }

  /** Drops old turns if the conversation no longer fits. Returns how many were dropped now. */
  fit(extra?: string): number {
    if (this.tokens(extra) <= this.budgetTokens) return 0;
    return this.dropUntil(this.budgetTokens * REFILL_SHARE, extra);
  }

  /** The server said the prompt was too long although our estimate fit: cut harder. */
  shrink(extra?: string): boolean {
    const before = this.tokens(extra);
    this.dropUntil(Math.min(before * 0.6, this.budgetTokens * 0.5), extra);
    return this.tokens(extra) < before;
  }

  private dropUntil(target: number, extra?: string): number {
    let count = 0;
    while (this.turns.length > 1 && this.tokens(extra) > target) {
      this.turns.shift();
      this.dropped += 1;
      count += 1;
    }
    if (this.tokens(extra) > target && this.turns.length === 1) {
      // One turn alone is too big (a huge reply): keep both ends of each message.
      const t = this.turns[0]!;
      const fixed = estimateTokens(this.system) + estimateTokens(this.first) + 64;
      const room = Math.max(200, Math.floor((target - fixed) * 3.5 * 0.5));
      t.assistant = clipMiddle(t.assistant, room);
      t.user = clipMiddle(t.user, room);
    }
    return count;
  }
}
