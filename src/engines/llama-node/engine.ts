// A ChatEngine over llama.cpp in this process (node-llama-cpp). Each engine owns some KV
// sequences of a context (its slots); a request renders the chat with the model's own template,
// keeps the tokens its slot already holds, evaluates only the rest, then generates.
import type { ChatHistoryItem, LlamaChat, LlamaChatResponse, LlamaContextSequence, LlamaGrammar, LlamaModel, Token } from "node-llama-cpp";
import { ContextWindowExceededError, EngineAbortedError } from "../errors.ts";
import type { ChatCallOptions, ChatEngine, ChatMessage, ChatRequest, ChatResult, FinishReason } from "../types.ts";
import type { LlamaRuntime } from "./runtime.ts";
import type { Slot, Slots } from "./slots.ts";

/** One KV sequence and the chats that render prompts for it. */
export interface SequenceSlot {
  /** The sequence's number in its context (0 is the root's), for stats. */
  id: number;
  sequence: LlamaContextSequence;
  /** The model's chat template as it is. */
  chat: LlamaChat;
  /** The same template with thinking switched off (Qwen3's empty <think></think>); `chat` for models without a switch. */
  chatWithoutThinking: LlamaChat;
}

/** What one request cost, from llama.cpp's side: how much of the prompt its cache already held. */
export interface LlamaRequestStats {
  role: string;
  /** The KV sequence that served it. */
  sequence: number;
  promptTokens: number;
  /** Prompt tokens already in the sequence's KV cache from its previous request (not evaluated again). */
  reusedTokens: number;
  /** Prompt tokens llama.cpp evaluated for this request (reused + evaluated = prompt, unless Stop cut the prompt short). */
  evaluatedTokens: number;
  generatedTokens: number;
  prefillMs: number;
  generateMs: number;
  finishReason: FinishReason;
  /**
   * Tests only (performanceTracking): llama.cpp's own counters for this request's context, read
   * as it ends. Exact when requests do not overlap (a scripted run); overlapping ones share them.
   */
  llamaCpp?: LlamaCppCounters;
}

/** llama.cpp's own counts (llama_perf_context): tokens evaluated in batches, and single-token evaluations. */
export interface LlamaCppCounters {
  promptEvalTokens: number;
  evalRuns: number;
}

/**
 * Tests only: a GBNF grammar for a request, which turns a random-weight model into a scripted
 * one. No option, flag or environment variable of the CLI sets it (see src/cli/test-hook.ts).
 */
export type TestGrammar = (request: { role: string; messages: readonly ChatMessage[] }) => string | undefined;

export interface LlamaEngineOptions {
  runtime: LlamaRuntime;
  model: LlamaModel;
  /** The model's name in trajectories (and for choosing a prompt profile). */
  label: string;
  /** "root" or "sub": which of the run's requests this engine serves (in stats). */
  role: string;
  contextWindow: number;
  slots: Slots<SequenceSlot>;
  onRequest?: (stats: LlamaRequestStats) => void;
  /** After each batch of a prompt: how many of its tokens llama.cpp has read (cached ones count as read). */
  onPrefill?: (progress: PrefillProgress) => void;
  testGrammar?: TestGrammar;
  /** Tests only: llama.cpp's counters since the last read (they reset when read). */
  readCounters?: () => Promise<LlamaCppCounters>;
}

/** How far llama.cpp has read a prompt: on a processor a long one takes minutes before the first token. */
export interface PrefillProgress {
  role: string;
  readTokens: number;
  promptTokens: number;
}

/**
 * Prompt tokens are evaluated this many at a time (at most node-llama-cpp's batch size, 512),
 * and Stop is checked between batches. llama.cpp cannot interrupt a batch (node-llama-cpp has no
 * abort callback), and a process that exits waits for it: Node joins libuv's threads, one of them
 * inside llama_decode. A 512-token batch of a 0.5B model on one busy core took 11 s and more
 * after Ctrl-C; 128 tokens bound that to a few seconds and read 7,138 prompt tokens no slower in
 * the same back-to-back run (146 s against 159 s at load ~10).
 */
export const PREFILL_BATCH = 128;

/** Sampling when the request leaves it open: llama-server's defaults, so a local model behaves as it would there. */
const DEFAULT_SAMPLING = { temperature: 0.8, topK: 40, topP: 0.95, minP: 0.05 };

export class LlamaNodeEngine implements ChatEngine {
  readonly backend = "llama.cpp";
  readonly model: string;
  readonly contextWindow: number;
  readonly maxConcurrency: number;
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();

  constructor(private readonly o: LlamaEngineOptions) {
    this.model = o.label;
    this.contextWindow = o.contextWindow;
    this.maxConcurrency = o.slots.size;
  }

  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResult> {
    const { signal } = options;
    if (signal?.aborted) throw new EngineAbortedError();
    const work = this.run(request, options);
    // Stop answers at once, even mid-batch; the batch finishes in the background and frees its slot.
    work.catch(() => undefined);
    if (!signal) return work;
    return new Promise<ChatResult>((resolve, reject) => {
      const onAbort = () => reject(new EngineAbortedError());
      signal.addEventListener("abort", onAbort, { once: true });
      work
        .then(resolve, (err: unknown) => reject(signal.aborted ? new EngineAbortedError() : err))
        .finally(() => {
          signal.removeEventListener("abort", onAbort);
        });
    });
  }

  private async run(request: ChatRequest, { signal, onToken }: ChatCallOptions): Promise<ChatResult> {
    const history = toHistory(request.messages);
    const slot = await this.o.slots.acquire(promptKey(request.messages), signal);
    let cached = ""; // what the slot's cache holds if this request fails: unknown
    try {
      const result = await this.generate(slot, history, request, signal, onToken);
      cached = promptKey(request.messages);
      return result;
    } finally {
      this.o.slots.release(slot, cached);
    }
  }

  /**
   * Evaluates the prompt after its cached prefix in batches, all but the last token (generation
   * evaluates that one itself, for its logits), checking Stop between batches. Returns the tokens
   * evaluated; stopped, it says how far llama.cpp got (`stopped`; the batches done stay in the
   * cache) and throws EngineAbortedError.
   */
  private async prefill(
    sequence: LlamaContextSequence,
    tokens: Token[],
    reusedTokens: number,
    signal: AbortSignal | undefined,
    stopped: (evaluatedTokens: number) => void,
  ): Promise<number> {
    const before = sequence.tokenMeter.getState();
    const report = (readTokens: number) => this.o.onPrefill?.({ role: this.o.role, readTokens, promptTokens: tokens.length });
    report(reusedTokens);
    for (let at = reusedTokens; at < tokens.length - 1; at += PREFILL_BATCH) {
      if (signal?.aborted) {
        stopped(sequence.tokenMeter.diff(before).usedInputTokens);
        throw new EngineAbortedError();
      }
      const end = Math.min(at + PREFILL_BATCH, tokens.length - 1);
      await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(at, end));
      report(end);
    }
    return sequence.tokenMeter.diff(before).usedInputTokens;
  }

  private async generate(
    slot: Slot<SequenceSlot>,
    history: ChatHistoryItem[],
    request: ChatRequest,
    signal: AbortSignal | undefined,
    onToken: ((delta: string) => void) | undefined,
  ): Promise<ChatResult> {
    const { sequence } = slot.value;
    const chat = request.thinking === false ? slot.value.chatWithoutThinking : slot.value.chat;
    const tokens = this.promptTokens(chat, history);
    const room = this.contextWindow - tokens.length;
    if (room < 1) {
      throw new ContextWindowExceededError(`The prompt is ${tokens.length} tokens; the window is ${this.contextWindow} tokens.`);
    }
    const started = performance.now();
    const reusedTokens = await this.keepSharedPrefix(sequence, tokens);
    // What every report of this request says first: which request, and how much of it was cached.
    const prompt = { role: this.o.role, sequence: slot.value.id, promptTokens: tokens.length, reusedTokens };
    const prefilledTokens = await this.prefill(sequence, tokens, reusedTokens, signal, (evaluatedTokens) =>
      this.o.onRequest?.({
        ...prompt,
        evaluatedTokens,
        generatedTokens: 0,
        prefillMs: performance.now() - started,
        generateMs: 0,
        finishReason: "abort",
      }),
    );
    const prefilled = performance.now();
    const generating = sequence.tokenMeter.getState();

    let text = "";
    const grammar = await this.grammarFor(request);
    const response: LlamaChatResponse = await chat.generateResponse(history, {
      ...(signal ? { signal } : {}),
      maxTokens: Math.min(request.maxTokens ?? room, room),
      temperature: request.sampling?.temperature ?? DEFAULT_SAMPLING.temperature,
      topP: request.sampling?.topP ?? DEFAULT_SAMPLING.topP,
      topK: DEFAULT_SAMPLING.topK,
      minP: DEFAULT_SAMPLING.minP,
      seed: request.sampling?.seed,
      // Servers apply no repetition penalty by default; code repeats tokens on purpose.
      repeatPenalty: false,
      ...(request.stop?.length ? { customStopTriggers: [...request.stop] } : {}),
      ...(grammar ? { grammar } : {}),
      // The loop keeps its prompts inside the window; a shift would drop text silently.
      contextShift: {
        strategy: () => {
          throw new ContextWindowExceededError(`The reply would pass the ${this.contextWindow}-token window.`);
        },
      },
      onResponseChunk: (chunk) => {
        // Thoughts are not the reply (as a server's reasoning_content is not its content).
        if (chunk.type !== undefined || !chunk.text) return;
        text += chunk.text;
        onToken?.(chunk.text);
      },
    });
    const finishReason = toFinishReason(response.metadata.stopReason);
    // Generation evaluates the last prompt token (and anything node-llama-cpp rendered
    // differently) before sampling; the meter counts the token each evaluation samples from as
    // output. So: every token sampled, thoughts and a cut-off stop string included (as servers
    // count them), and the prompt's last token among the evaluated ones.
    const generation = sequence.tokenMeter.diff(generating);
    const evaluatedTokens = prefilledTokens + generation.usedInputTokens + 1;
    const generatedTokens = generation.usedOutputTokens;
    const generated = performance.now();
    const llamaCpp = await this.o.readCounters?.();
    this.o.onRequest?.({
      ...prompt,
      evaluatedTokens,
      generatedTokens,
      prefillMs: prefilled - started,
      generateMs: generated - prefilled,
      finishReason,
      ...(llamaCpp ? { llamaCpp } : {}),
    });
    return {
      text,
      usage: { promptTokens: tokens.length, completionTokens: generatedTokens },
      usageEstimated: false,
      finishReason,
      model: this.model,
    };
  }

  /** The prompt as the model's template renders it, ending where the model's reply begins. */
  private promptTokens(chat: LlamaChat, history: ChatHistoryItem[]) {
    const last = history.at(-1);
    const open: ChatHistoryItem[] = last?.type === "model" ? history : [...history, { type: "model", response: [] }];
    return chat.chatWrapper.generateContextState({ chatHistory: open }).contextText.tokenize(this.o.model.tokenizer);
  }

  /** Drops what the sequence holds past the prompt's shared beginning; returns how many tokens stay. */
  private async keepSharedPrefix(sequence: LlamaContextSequence, tokens: Token[]): Promise<number> {
    await sequence.adaptStateToTokens(tokens, false);
    return Math.min(sequence.nextTokenIndex, tokens.length - 1);
  }

  private grammarFor(request: ChatRequest): Promise<LlamaGrammar> | undefined {
    const source = this.o.testGrammar?.({ role: this.o.role, messages: request.messages });
    if (!source) return undefined;
    let grammar = this.grammars.get(source);
    if (!grammar) {
      grammar = this.o.runtime.llama.createGrammar({ grammar: source });
      this.grammars.set(source, grammar);
    }
    return grammar;
  }
}

function toHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  return messages.map((m): ChatHistoryItem => {
    if (m.role === "system") return { type: "system", text: m.content };
    if (m.role === "user") return { type: "user", text: m.content };
    return { type: "model", response: [m.content] };
  });
}

/** The text a slot is matched by: each message's role and content. */
function promptKey(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `\u0000${m.role}\u0001${m.content}`).join("");
}

function toFinishReason(reason: string | undefined): FinishReason {
  if (reason === "maxTokens") return "length";
  if (reason === "abort") return "abort";
  if (reason === "eogToken" || reason === "stopGenerationTrigger" || reason === "customStopTrigger") return "stop";
  return "other";
}
