// What an OpenAI-style chat stream said, chunk by chunk: its text, why it ended and its token
// counts. Both in-page model workers (WebLLM's, llama.cpp's through wllama) read their engine's
// stream this way; each adds what only its engine sends (WebLLM's model id, wllama's timings).

/** The fields of a streamed chat chunk this reads (WebLLM's and wllama's chunks both have them). */
export interface ChatChunkLike {
  choices: Array<{ delta?: { content?: string | null }; finish_reason?: string | null } | undefined>;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
}

export class ChatStreamTally {
  text = "";
  finishReason: string | null = null;
  usage: { promptTokens: number; completionTokens: number } | null = null;

  /** Adds one chunk; `onDelta` gets each piece of new text. */
  add(chunk: ChatChunkLike, onDelta: (delta: string) => void): void {
    const choice = chunk.choices[0];
    const delta = choice?.delta?.content ?? "";
    if (delta) {
      this.text += delta;
      onDelta(delta);
    }
    if (choice?.finish_reason) this.finishReason = choice.finish_reason;
    if (chunk.usage) this.usage = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
  }
}
