// One class per way a model call can fail; each message says what the user can do.

export class EngineError extends Error {
  override name = "EngineError";
}

export class EngineAbortedError extends EngineError {
  override name = "EngineAbortedError";
  constructor() {
    super("The model call was stopped.");
  }
}

export class EngineUnreachableError extends EngineError {
  override name = "EngineUnreachableError";
  /** `cors`: whether the browser's cross-origin rules govern the request (the page), so a server may refuse it for that. */
  constructor(
    readonly url: string,
    cause: string,
    cors = true,
  ) {
    super(
      `Could not reach the model server at ${url} (${cause}). Check that the server is running and the base URL is right` +
        (cors ? ", and that it allows requests from this page (CORS)." : "."),
    );
  }
}

export class EngineHttpError extends EngineError {
  override name = "EngineHttpError";
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(EngineHttpError.explain(status, detail));
  }

  private static explain(status: number, detail: string): string {
    const said = detail ? ` The server said: ${detail.slice(0, 300)}` : "";
    if (status === 401 || status === 403) return `The model server refused the API key (HTTP ${status}). Check the key in Settings.${said}`;
    if (status === 404) return `The model server has no such model or endpoint (HTTP 404). Check the model name and base URL.${said}`;
    if (status === 429) return `The model server is rate-limiting requests (HTTP 429). Wait a moment and try again.${said}`;
    if (status >= 500) return `The model server failed (HTTP ${status}). Try again, or check the server's logs.${said}`;
    return `The model server rejected the request (HTTP ${status}).${said}`;
  }
}

export class ContextWindowExceededError extends EngineError {
  override name = "ContextWindowExceededError";
  constructor(detail: string) {
    super(`The prompt is longer than the model's context window. ${detail}`.trim());
  }
}

export class EngineProtocolError extends EngineError {
  override name = "EngineProtocolError";
  constructor(detail: string) {
    super(`The model server sent a reply this app cannot read (${detail}). Is it an OpenAI-compatible /v1 endpoint?`);
  }
}

/**
 * Whether a failed call says the model cannot answer now (unreachable, a refused key, no such
 * model, a broken server, a lost GPU or a stopped worker), as opposed to one request being turned
 * down (too long for the window, rate-limited, malformed) or stopped by the person. The page turns
 * the model's status red on the first kind only: a failed call feeds the status, it never leaves
 * it at "connected" (issue 28).
 */
export function meansModelUnavailable(err: unknown): boolean {
  if (!(err instanceof EngineError)) return false;
  if (err instanceof EngineAbortedError || err instanceof ContextWindowExceededError) return false;
  if (err instanceof EngineHttpError) return err.status === 401 || err.status === 403 || err.status === 404 || err.status >= 500;
  return true;
}

/** Servers word overflow differently; these are the phrasings of vLLM, llama.cpp, Ollama, OpenAI. */
export function looksLikeContextOverflow(detail: string): boolean {
  return /context length|context window|maximum context|too many tokens|exceeds the (?:available )?context|prompt is too long|max_model_len/i.test(
    detail,
  );
}

// Local model files (rlm --model-file): each refusal happens before anything is loaded and says
// what to do instead.

/** The model file is missing, unreadable, not a GGUF, or cut short. */
export class ModelFileError extends EngineError {
  override name = "ModelFileError";
  constructor(
    readonly path: string,
    problem: string,
    remedy: string,
  ) {
    super(`${path}: ${problem}. ${remedy}`);
  }
}

/** A GGUF whose architecture the bundled llama.cpp cannot run. */
export class ModelArchitectureError extends EngineError {
  override name = "ModelArchitectureError";
  constructor(
    readonly path: string,
    readonly architecture: string,
    llamaCppVersion: string,
  ) {
    super(
      `${path}: the model's architecture "${architecture}" is not one this llama.cpp (${llamaCppVersion}) can run. ` +
        "Choose a GGUF of a supported family (Qwen2.5 and Qwen3 work), or run the model in a server that supports it and use --base-url.",
    );
  }
}

/** The weights and the KV cache for the chosen window do not fit in the memory available. */
export class ModelTooLargeError extends EngineError {
  override name = "ModelTooLargeError";
  constructor(
    readonly arithmetic: string,
    remedy: string,
  ) {
    super(`The model does not fit in memory: ${arithmetic}. ${remedy}`);
  }
}

/** A --context-window longer than the model was trained for: past it, a model writes nonsense. */
export class ContextWindowTooLargeError extends EngineError {
  override name = "ContextWindowTooLargeError";
  constructor(
    readonly requested: number,
    readonly trained: number,
  ) {
    super(
      `--context-window ${requested} is more than the model was trained for (${trained} tokens); past that it writes nonsense. ` +
        `Use --context-window ${trained} or less, or leave it out to get the largest window that fits in memory.`,
    );
  }
}

/** The local engine cannot run on this machine (no prebuilt llama.cpp for the platform). */
export class LocalEngineUnavailableError extends EngineError {
  override name = "LocalEngineUnavailableError";
}
