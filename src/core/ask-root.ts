// Steps 1 and 2 of a turn: ask the root model for its next reply (dropping old turns first when
// the window is full, once more when the server counts differently), count its time and usage,
// and classify the reply, announcing the faults that are not the model's own.
import { ContextWindowExceededError } from "../engines/errors.ts";
import type { ChatEngine, ChatMessage, ChatRequest } from "../engines/types.ts";
import type { Budgets } from "./budgets.ts";
import type { RootConversation } from "./conversation.ts";
import { analyseReply, type ReplyAnalysis } from "./reply.ts";
import { completeRoot, rootRequest, type RootReply } from "./root-request.ts";
import type { Emit, SharedRunState } from "./subcalls.ts";
import type { RlmConfig } from "./types.ts";

export interface RootAsker {
  /** The conversation as it is now (the run may open it again when Python's context differs). */
  conversation(): RootConversation;
  engine: ChatEngine;
  config: RlmConfig;
  budgets: Budgets;
  shared: SharedRunState;
  emit: Emit;
}

export interface RootAsked {
  result: RootReply;
  messages: ChatMessage[];
}

/** `extra`: a last user message (the final request); `adjust`: a change to the request (thinking off). */
export async function askRoot(
  host: RootAsker,
  turn: number,
  extra: string | undefined,
  signal: AbortSignal,
  adjust: (request: ChatRequest) => ChatRequest = (r) => r,
): Promise<RootAsked> {
  const { engine, config, budgets, shared, emit } = host;
  const conversation = host.conversation();
  for (let attempt = 0; ; attempt++) {
    if (conversation.fit(extra)) emit({ type: "history-compacted", droppedTurns: conversation.droppedTurns });
    const messages = conversation.messages(extra);
    const started = Date.now();
    try {
      const result = await completeRoot(engine, adjust(rootRequest(config, budgets, messages)), {
        signal,
        onToken: (text) => emit({ type: "token", turn, text }),
      });
      shared.usage.addTime("generationMs", Date.now() - started);
      shared.usage.addCall(result.model || engine.model, result.usage, "root");
      emit({ type: "turn-finished", turn, response: result.text, usage: result.usage, durationMs: Date.now() - started });
      return { result, messages };
    } catch (err) {
      shared.usage.addTime("generationMs", Date.now() - started);
      // The server counts tokens differently from our estimate: drop more history, once.
      if (err instanceof ContextWindowExceededError && attempt === 0 && conversation.shrink(extra)) {
        emit({ type: "history-compacted", droppedTurns: conversation.droppedTurns });
        continue;
      }
      throw err;
    }
  }
}

/** Step 2: the reply normalised and classified; faults that are not the model's are announced. */
export function parseRoot({ result, messages }: RootAsked, emit: Emit): ReplyAnalysis {
  // An echo repeats what the model was sent (a template fault), not its own earlier turns.
  const reply = analyseReply(result.text, { prompts: messages.filter((m) => m.role !== "assistant").map((m) => m.content) });
  if (reply.problems.includes("echo")) {
    emit({
      type: "notice",
      message: "The model repeated its prompt instead of answering: check the model's chat template and stop token.",
    });
  }
  if (result.runaway) emit({ type: "notice", message: "The model began repeating itself; its reply was cut there." });
  return reply;
}
