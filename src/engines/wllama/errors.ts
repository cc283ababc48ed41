// How the llama.cpp engine fails, each with what the person can do.
import { ContextWindowExceededError, EngineAbortedError, EngineError } from "../errors.ts";

export class WllamaWorkerCrashedError extends EngineError {
  override name = "WllamaWorkerCrashedError";
  constructor(detail: string) {
    super(`The llama.cpp worker stopped (${detail}). Reload the page; if it happens again, choose a smaller model or window.`);
  }
}

export class ModelTooBigError extends EngineError {
  override name = "ModelTooBigError";
  constructor(
    readonly arithmetic: string,
    name = "This model",
  ) {
    super(
      `${name} does not fit llama.cpp's memory in the page with this window: ${arithmetic}. Choose a smaller window, a smaller quantization (Q4_K_M) or a smaller model.`,
    );
  }
}

export class UnknownArchitectureError extends EngineError {
  override name = "UnknownArchitectureError";
  constructor(
    readonly architecture: string,
    libllama: string,
  ) {
    super(
      `llama.cpp in this page (${libllama}) does not know the model architecture "${architecture}". Choose a model of a supported family (Qwen2.5, Qwen3, Llama, Gemma, Phi, Mistral…). Nothing was changed.`,
    );
  }
}

export class LocalModelLoadError extends EngineError {
  override name = "LocalModelLoadError";
}

/** Turns what the worker threw (a plain Error whose name says what failed) into an EngineError. */
export function mapWorkerError(err: unknown, context: { libllama: string; modelName: string }): EngineError {
  if (err instanceof EngineError) return err;
  const name = err instanceof Error ? err.name : "";
  const message = err instanceof Error ? err.message : String(err);
  switch (name) {
    case "AbortError":
      return new EngineAbortedError();
    case "UnknownArchitectureError":
      return new UnknownArchitectureError(message, context.libllama);
    case "ContextWindowExceededError":
      return new ContextWindowExceededError(message);
    case "WllamaOutOfMemoryError":
      return new LocalModelLoadError(`${context.modelName} ran out of memory in llama.cpp (${message}). Choose a smaller window or model.`);
    case "WllamaVersionMismatchError":
      return new LocalModelLoadError(
        `The page's llama.cpp files do not match each other (${message}). Reload the page to get the current version.`,
      );
    case "WllamaLoadError":
      return new LocalModelLoadError(`llama.cpp could not load ${context.modelName}: ${message}. Is the file a complete GGUF model?`);
    case "ModelStoreError":
      return new LocalModelLoadError(message);
    case "ModelNotLoadedError":
      return new LocalModelLoadError("The local model is not loaded. Load it again from Settings.");
    default:
      return new EngineError(`llama.cpp failed: ${message}`);
  }
}
