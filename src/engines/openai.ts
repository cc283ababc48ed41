// A ChatEngine over any OpenAI-compatible /v1/chat/completions endpoint (vLLM, Ollama,
// llama.cpp server, LM Studio, hosted APIs). Uses fetch only, so it runs in browsers and Node.
import {
  ContextWindowExceededError,
  EngineAbortedError,
  EngineHttpError,
  EngineProtocolError,
  EngineUnreachableError,
  looksLikeContextOverflow,
} from "./errors.ts";
import { readSse } from "./sse.ts";
import { estimateMessagesTokens, estimateTokens } from "./tokens.ts";
import type { ChatCallOptions, ChatEngine, ChatRequest, ChatResult, FinishReason } from "./types.ts";
import { openAiSampling } from "../core/sampling.ts";

export interface OpenAIEngineOptions {
  /** e.g. http://localhost:8000/v1 (a bare host gets /v1 appended). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Tokens; when absent, read from /v1/models (max_model_len) or a safe default. */
  contextWindow?: number;
  /** Stream with SSE (default) or ask for one JSON reply. */
  stream?: boolean;
  /** Requests in flight at once for batched sub-calls (a vLLM server batches them). */
  maxConcurrency?: number;
  /**
   * How a request's `thinking` switch reaches the server. "auto" (default): for Qwen3-family
   * model names, `chat_template_kwargs: {enable_thinking}` (vLLM, SGLang, llama.cpp server);
   * dropped for good if the server rejects the field. "reasoning-effort": `reasoning_effort:
   * "none"` when off (Ollama's /v1). "none": never send a switch.
   */
  thinkingControl?: ThinkingControl;
  fetch?: typeof fetch;
  /**
   * Whether the browser's cross-origin rules apply to `fetch` (default true: the page). False for
   * the command line's Node HTTP client, whose "unreachable" must not send the person to CORS.
   */
  cors?: boolean;
}

export type ThinkingControl = "auto" | "chat-template-kwargs" | "reasoning-effort" | "none";

/** OpenAI's own API accepts at most four stop sequences; vLLM and llama.cpp accept more. */
export const MAX_STOP_SEQUENCES = 4;

/** Model families whose chat template reads `enable_thinking` (Qwen3, Qwen3.5, their fine-tunes). */
export function hasThinkingSwitch(model: string): boolean {
  return /qwen-?3/i.test(model);
}

/** A 400 that says the server does not know a field we sent. */
function rejectsField(detail: string, field: string): boolean {
  return new RegExp(
    `${field}|unrecognized|unknown (?:field|parameter|argument)|extra (?:fields|inputs)|not permitted|additional properties`,
    "i",
  ).test(detail);
}

/** Used when neither the user nor the server says how big the window is. */
export const DEFAULT_OPENAI_CONTEXT_WINDOW = 8192;

export function normalizeBaseUrl(raw: string): string {
  const trimmed = raw.trim().replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new EngineUnreachableError(raw, "that is not a valid URL; it should look like http://localhost:8000/v1");
  }
  if (url.pathname === "" || url.pathname === "/") return `${trimmed}/v1`;
  return trimmed;
}

interface ModelListEntry {
  id?: unknown;
  max_model_len?: unknown;
  context_length?: unknown;
  context_window?: unknown;
}

/** Reads the context window a server reports for `model`, if it reports one. */
export async function discoverContextWindow(
  baseUrl: string,
  model: string,
  apiKey?: string,
  fetchImpl: typeof fetch = globalThis.fetch,
): Promise<number | undefined> {
  try {
    const res = await fetchImpl(`${normalizeBaseUrl(baseUrl)}/models`, { headers: authHeaders(apiKey) });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { data?: ModelListEntry[] };
    const entries = Array.isArray(body.data) ? body.data : [];
    const entry = entries.find((e) => e.id === model) ?? (entries.length === 1 ? entries[0] : undefined);
    const value = entry?.max_model_len ?? entry?.context_length ?? entry?.context_window;
    return typeof value === "number" && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

export interface ServerModel {
  id: string;
  /** The window the server reports (vLLM max_model_len, LM Studio context_length…), if any. */
  contextWindow?: number;
}

/**
 * The models a server offers (GET /models), for Settings' "Test connection". Unlike
 * discoverContextWindow it throws: a refused connection or a 401 is exactly what the person
 * testing the connection needs to read.
 */
export async function listServerModels(
  baseUrl: string,
  apiKey?: string,
  fetchImpl: typeof fetch = globalThis.fetch,
): Promise<ServerModel[]> {
  const url = `${normalizeBaseUrl(baseUrl)}/models`;
  let res: Response;
  try {
    res = await fetchImpl(url, { headers: authHeaders(apiKey) });
  } catch (err) {
    throw new EngineUnreachableError(url, err instanceof Error ? err.message : String(err));
  }
  if (!res.ok) throw new EngineHttpError(res.status, await res.text().catch(() => ""));
  let body: { data?: ModelListEntry[] };
  try {
    body = (await res.json()) as { data?: ModelListEntry[] };
  } catch {
    throw new EngineProtocolError(`${url} did not answer with JSON`);
  }
  const entries = Array.isArray(body.data) ? body.data : [];
  return entries.flatMap((e) => {
    if (typeof e.id !== "string" || !e.id) return [];
    const window = e.max_model_len ?? e.context_length ?? e.context_window;
    return [{ id: e.id, ...(typeof window === "number" && window > 0 ? { contextWindow: window } : {}) }];
  });
}

function authHeaders(apiKey?: string): Record<string, string> {
  return apiKey ? { Authorization: `Bearer ${apiKey}` } : {};
}

function toFinishReason(value: unknown): FinishReason {
  if (value === "stop" || value === "length") return value;
  if (value === "abort") return "abort";
  return value == null ? "stop" : "other";
}

interface ChoiceChunk {
  delta?: { content?: unknown; reasoning_content?: unknown };
  message?: { content?: unknown };
  finish_reason?: unknown;
}
interface CompletionBody {
  model?: unknown;
  choices?: ChoiceChunk[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  error?: { message?: unknown };
}

export class OpenAIEngine implements ChatEngine {
  readonly backend = "openai";
  readonly model: string;
  readonly contextWindow: number;
  readonly maxConcurrency: number;
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly stream: boolean;
  private readonly fetchImpl: typeof fetch;
  private readonly cors: boolean;
  private readonly thinkingControl: ThinkingControl;
  /** The server answered 400 to chat_template_kwargs once: never send it again. */
  private templateKwargsRejected = false;

  constructor(options: OpenAIEngineOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.model = options.model;
    this.apiKey = options.apiKey || undefined;
    this.contextWindow = options.contextWindow ?? DEFAULT_OPENAI_CONTEXT_WINDOW;
    this.stream = options.stream ?? true;
    this.maxConcurrency = Math.max(1, options.maxConcurrency ?? 4);
    this.thinkingControl = options.thinkingControl ?? "auto";
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.cors = options.cors ?? true;
  }

  /** Builds an engine, asking the server for the window when the caller did not give one. */
  static async connect(options: OpenAIEngineOptions): Promise<OpenAIEngine> {
    if (options.contextWindow) return new OpenAIEngine(options);
    const found = await discoverContextWindow(options.baseUrl, options.model, options.apiKey, options.fetch);
    return new OpenAIEngine({ ...options, ...(found ? { contextWindow: found } : {}) });
  }

  /** The same server and key with another model (for a separate sub-call model). */
  withModel(model: string, contextWindow?: number): OpenAIEngine {
    return new OpenAIEngine({
      baseUrl: this.baseUrl,
      model,
      ...(this.apiKey ? { apiKey: this.apiKey } : {}),
      contextWindow: contextWindow ?? this.contextWindow,
      stream: this.stream,
      maxConcurrency: this.maxConcurrency,
      thinkingControl: this.thinkingControl,
      fetch: this.fetchImpl,
      cors: this.cors,
    });
  }

  /** The fields that carry `request.thinking` to this server, if any. */
  private thinkingFields(model: string, thinking: boolean | undefined): Record<string, unknown> {
    if (thinking === undefined || this.thinkingControl === "none") return {};
    if (this.thinkingControl === "reasoning-effort") return thinking ? {} : { reasoning_effort: "none" };
    if (this.templateKwargsRejected) return {};
    if (this.thinkingControl === "auto" && !hasThinkingSwitch(model)) return {};
    return { chat_template_kwargs: { enable_thinking: thinking } };
  }

  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResult> {
    const model = request.model ?? this.model;
    const body: Record<string, unknown> = {
      model,
      messages: request.messages,
      stream: this.stream,
    };
    if (this.stream) body.stream_options = { include_usage: true };
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    Object.assign(body, openAiSampling(request.sampling));
    if (request.stop?.length) body.stop = request.stop.slice(0, MAX_STOP_SEQUENCES);
    Object.assign(body, this.thinkingFields(model, request.thinking));

    let res = await this.post(body, options);
    if (!res.ok) {
      let detail = await readErrorDetail(res);
      // A server that refuses the thinking switch still answers without it; ask once more.
      if ((res.status === 400 || res.status === 422) && "chat_template_kwargs" in body && rejectsField(detail, "chat_template_kwargs")) {
        this.templateKwargsRejected = true;
        delete body.chat_template_kwargs;
        res = await this.post(body, options);
        detail = res.ok ? "" : await readErrorDetail(res);
      }
      if (!res.ok) {
        if (looksLikeContextOverflow(detail)) throw new ContextWindowExceededError(detail);
        throw new EngineHttpError(res.status, detail);
      }
    }
    try {
      const contentType = res.headers.get("content-type") ?? "";
      const result = contentType.includes("text/event-stream") ? await this.readStream(res, options) : await this.readJson(res, options);
      if (result.usage.promptTokens === 0) result.usage.promptTokens = estimateMessagesTokens(request.messages);
      return { ...result, model: result.model || model };
    } catch (err) {
      if (options.signal?.aborted) throw new EngineAbortedError();
      throw err;
    }
  }

  private async post(body: Record<string, unknown>, options: ChatCallOptions): Promise<Response> {
    try {
      return await this.fetchImpl(`${this.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...authHeaders(this.apiKey) },
        body: JSON.stringify(body),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (err) {
      if (options.signal?.aborted) throw new EngineAbortedError();
      throw new EngineUnreachableError(this.baseUrl, err instanceof Error ? err.message : String(err), this.cors);
    }
  }

  private async readJson(res: Response, options: ChatCallOptions): Promise<ChatResult> {
    let body: CompletionBody;
    try {
      body = (await res.json()) as CompletionBody;
    } catch {
      throw new EngineProtocolError("the body is not JSON");
    }
    const choice = body.choices?.[0];
    if (!choice) throw new EngineProtocolError("no choices in the reply");
    const text = typeof choice.message?.content === "string" ? choice.message.content : "";
    if (text) options.onToken?.(text);
    return this.finish(text, body.usage, choice.finish_reason, body.model);
  }

  private async readStream(res: Response, options: ChatCallOptions): Promise<ChatResult> {
    if (!res.body) throw new EngineProtocolError("an empty stream");
    let text = "";
    let usage: CompletionBody["usage"];
    let finish: unknown = null;
    let model: unknown;
    for await (const data of readSse(res.body, options.signal)) {
      if (data === "[DONE]") break;
      let chunk: CompletionBody;
      try {
        chunk = JSON.parse(data) as CompletionBody;
      } catch {
        throw new EngineProtocolError("a stream event that is not JSON");
      }
      if (chunk.error) throw new EngineHttpError(500, String(chunk.error.message ?? "stream error"));
      model ??= chunk.model;
      const choice = chunk.choices?.[0];
      const delta = choice?.delta?.content;
      if (typeof delta === "string" && delta) {
        text += delta;
        options.onToken?.(delta);
      }
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    if (options.signal?.aborted) throw new EngineAbortedError();
    return this.finish(text, usage, finish, model);
  }

  private finish(text: string, usage: CompletionBody["usage"], finish: unknown, model: unknown): ChatResult {
    const prompt = typeof usage?.prompt_tokens === "number" ? usage.prompt_tokens : undefined;
    const completion = typeof usage?.completion_tokens === "number" ? usage.completion_tokens : undefined;
    return {
      text,
      usage: { promptTokens: prompt ?? 0, completionTokens: completion ?? estimateTokens(text) },
      usageEstimated: prompt === undefined || completion === undefined,
      finishReason: toFinishReason(finish),
      model: typeof model === "string" ? model : "",
    };
  }
}

async function readErrorDetail(res: Response): Promise<string> {
  const raw = await res.text().catch(() => "");
  try {
    const parsed = JSON.parse(raw) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    if (typeof parsed.error === "string") return parsed.error;
    if (parsed.error && typeof parsed.error.message === "string") return parsed.error.message;
    if (typeof parsed.message === "string") return parsed.message;
    if (typeof parsed.detail === "string") return parsed.detail;
  } catch {
    // not JSON: fall through to the raw text
  }
  return raw.slice(0, 500);
}
