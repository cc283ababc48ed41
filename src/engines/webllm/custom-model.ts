// A user-supplied WebLLM-format model (weights folder + compiled library). WebLLM is strict
// about the URLs in ways that fail late and obscurely (browser-stack.md A.10), so we check
// them up front:
//  - `model` goes through cleanModelUrl(), which appends "resolve/main/" unless the URL already
//    has "/resolve/<rev>/", then calls `new URL()` without a base: relative paths throw.
//  - `model_lib` is cached for offline use only when it is an absolute http(s) URL without
//    "localhost" in it.
import { CATALOG } from "./catalog.ts";
import { CustomModelError, type CustomModelProblem } from "./errors.ts";
import { DEFAULT_CONTEXT_WINDOW } from "./memory.ts";
import type { ModelSpec } from "./types.ts";

export interface CustomModelInput {
  id: string;
  /** Absolute URL of the weights folder (Hugging Face repo URL or self-hosted). */
  modelUrl: string;
  /** Absolute URL of the compiled WebGPU library (.wasm). */
  modelLibUrl: string;
  contextWindow?: number;
  /** VRAM at that window, if known (MB). */
  vramMB?: number;
  /** Whether the build uses f16 shaders; guessed from the id/library name when absent. */
  f16?: boolean;
  /** Qwen3-style thinking switch; guessed from the id when absent. */
  supportsThinkingToggle?: boolean;
}

export interface CustomModelCheck {
  spec: ModelSpec | undefined;
  problems: CustomModelProblem[];
  /** Things that are allowed but worth knowing (e.g. where files will be fetched from). */
  notes: string[];
}

export const MIN_CUSTOM_WINDOW = 512;
export const MAX_CUSTOM_WINDOW = 131_072;

/** Exactly what WebLLM 0.2.86's cleanModelUrl does, so we can show the user where files go. */
export function resolveWeightsBaseUrl(modelUrl: string): string {
  let url = modelUrl.endsWith("/") ? modelUrl : `${modelUrl}/`;
  if (!/.+\/resolve\/.+\//.test(url)) url += "resolve/main/";
  return new URL(url).href;
}

function parseAbsoluteHttpUrl(raw: string): URL | string {
  const value = raw.trim();
  if (!value) return "is empty";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value.startsWith("/") || value.startsWith(".")
      ? "is a relative path; WebLLM needs an absolute URL such as https://example.com/models/MyModel-MLC"
      : "is not a valid URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return `uses ${url.protocol} but must be http:// or https://`;
  if (url.search || url.hash) return "must not have a ?query or #fragment, because WebLLM appends file paths to it";
  return url;
}

export function checkCustomModel(input: CustomModelInput, existingIds: Iterable<string> = CATALOG.map((e) => e.id)): CustomModelCheck {
  const problems: CustomModelProblem[] = [];
  const notes: string[] = [];
  const id = input.id.trim();
  if (!id) problems.push({ field: "id", message: "Give the model an id (for example MyQwen-q4f16_1-MLC)." });
  else if (!/^[A-Za-z0-9][\w.-]*$/.test(id)) {
    problems.push({ field: "id", message: "The model id may use only letters, digits, '.', '_' and '-'." });
  } else if ([...existingIds].includes(id)) {
    problems.push({ field: "id", message: `The id ${id} is already taken by a built-in model; choose another.` });
  }

  const weights = parseAbsoluteHttpUrl(input.modelUrl);
  let weightsBase: string | undefined;
  if (typeof weights === "string") problems.push({ field: "modelUrl", message: `The weights URL ${weights}.` });
  else {
    weightsBase = resolveWeightsBaseUrl(weights.href);
    notes.push(
      `WebLLM will fetch ${weightsBase}mlc-chat-config.json, ${weightsBase}tensor-cache.json, ${weightsBase}tokenizer.json ` +
        "and the params_shard_*.bin files listed in tensor-cache.json; a self-hosted copy must use this layout.",
    );
    if (weights.protocol === "http:" && !isLoopback(weights.hostname)) {
      notes.push("The weights URL uses http://; an https:// page cannot fetch it (mixed content).");
    }
  }

  const lib = parseAbsoluteHttpUrl(input.modelLibUrl);
  if (typeof lib === "string") problems.push({ field: "modelLibUrl", message: `The model library URL ${lib}.` });
  else if (!lib.pathname.endsWith(".wasm")) {
    problems.push({ field: "modelLibUrl", message: "The model library URL must point at a .wasm file." });
  } else {
    if (lib.href.includes("localhost")) {
      notes.push(
        'WebLLM never caches a model library whose URL contains "localhost", so this model will not load offline ' +
          "unless the app's service worker caches the library.",
      );
    }
    if (lib.protocol === "http:" && !isLoopback(lib.hostname)) {
      notes.push("The model library URL uses http://; an https:// page cannot fetch it (mixed content).");
    }
  }

  const window = input.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  if (!Number.isInteger(window) || window < MIN_CUSTOM_WINDOW || window > MAX_CUSTOM_WINDOW) {
    problems.push({
      field: "contextWindow",
      message: `The context window must be a whole number of tokens from ${MIN_CUSTOM_WINDOW} to ${MAX_CUSTOM_WINDOW.toLocaleString("en-US")}.`,
    });
  }
  if (input.vramMB !== undefined && !(Number.isFinite(input.vramMB) && input.vramMB > 0)) {
    problems.push({ field: "vramMB", message: "The VRAM figure must be a positive number of MB (or left empty)." });
  }

  if (problems.length > 0 || typeof weights === "string" || typeof lib === "string") return { spec: undefined, problems, notes };

  const f16 = input.f16 ?? /f16/i.test(`${id} ${lib.pathname.split("/").pop() ?? ""}`);
  const spec: ModelSpec = {
    id,
    label: `${id} (custom)`,
    record: {
      model_id: id,
      model: weights.href,
      model_lib: lib.href,
      ...(input.vramMB !== undefined ? { vram_required_MB: input.vramMB } : {}),
      overrides: { context_window_size: window },
    },
    f16,
    vramMB: input.vramMB,
    maxContextWindow: window,
    architecture: undefined,
    supportsThinkingToggle: input.supportsThinkingToggle ?? /qwen3/i.test(id),
    custom: true,
  };
  return { spec, problems, notes };
}

/** The throwing form: a ModelSpec, or a CustomModelError listing every problem. */
export function customModelSpec(input: CustomModelInput, existingIds?: Iterable<string>): ModelSpec {
  const check = checkCustomModel(input, existingIds);
  if (!check.spec) throw new CustomModelError(check.problems);
  return check.spec;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
}
