// The command line's side of an OpenAI-compatible endpoint: `rlm --model NAME [--base-url URL]`,
// the default engine when no other is chosen.
import { UsageError } from "../../cli/flags.mjs";
import type { CommandLineEngine, ParsedFlags } from "../command-line.ts";
import { OpenAIEngine, type OpenAIEngineOptions } from "../openai.ts";
import { OPENAI } from "./descriptor.ts";

const DEFAULT_BASE_URL = "http://localhost:8000/v1";

export interface EndpointOptions {
  baseUrl: string;
  model: string;
  subModel?: string;
  apiKey?: string;
  contextWindow?: number;
  subContextWindow?: number;
  stream: boolean;
  concurrency?: number;
}

export const OPENAI_COMMAND_LINE: CommandLineEngine = {
  id: OPENAI.id,
  flags: ["base-url", "model", "sub-model", "sub-context-window"],
  refuse: (flag) =>
    flag === "threads" ? "--threads is for a local model (--model-file); a server sets its own" : `--${flag} goes with --model-file`,
  choose(flags) {
    const options = endpointOptions(flags);
    return {
      id: OPENAI.id,
      options,
      opening: "asking the model server about its models",
      open: (context) => openEndpoint(options, context.fetch),
      isBadOption: (_err): _err is Error => false,
    };
  },
};

function endpointOptions({ values: v, from }: ParsedFlags): EndpointOptions {
  if (!v.model) throw new UsageError("--model is required (or set RLM_MODEL), or give a local GGUF with --model-file");
  const baseUrl = v["base-url"] ?? DEFAULT_BASE_URL;
  checkBaseUrl(baseUrl, from["base-url"] ?? "--base-url");
  return {
    baseUrl,
    model: v.model,
    subModel: v["sub-model"] || undefined,
    apiKey: v["api-key"] || undefined,
    contextWindow: v["context-window"] || undefined,
    subContextWindow: v["sub-context-window"],
    stream: v["no-stream"] !== true,
    concurrency: v.concurrency || undefined,
  };
}

/** A server's address is an http(s) URL: "localhost:8000" parses as a URL of scheme "localhost:", and would fail later as unreachable. */
function checkBaseUrl(raw: string, from: string): void {
  let url: URL | null = null;
  try {
    url = new URL(raw.trim());
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) {
    throw new UsageError(`${from} must be an http:// or https:// address such as http://localhost:8000/v1, got "${raw}"`);
  }
}

async function openEndpoint(o: EndpointOptions, fetch: typeof globalThis.fetch) {
  const connect: OpenAIEngineOptions = {
    fetch,
    // A Node client: "unreachable" must not send the person to the browser's CORS rules.
    cors: false,
    baseUrl: o.baseUrl,
    model: o.model,
    apiKey: o.apiKey,
    contextWindow: o.contextWindow,
    stream: o.stream,
    maxConcurrency: o.concurrency,
  };
  const root = await OpenAIEngine.connect(connect);
  const sub = o.subModel ? root.withModel(o.subModel, o.subContextWindow) : root;
  return { root, sub, close: async () => undefined };
}
