import { OpenAIEngine } from "../../src/engines/openai.ts";
import { createNodeRepl } from "../../src/repl/node.ts";
import type { ReplClient } from "../../src/repl/client.ts";
import { DEFAULT_CONFIG, type RlmConfig } from "../../src/core/types.ts";
import type { ScriptedServer } from "../fixtures/scripted-server.ts";

export async function startRepl(
  syncMode: "auto" | "jspi" | "sab" = "auto",
  extra: Parameters<typeof createNodeRepl>[0] = {},
): Promise<ReplClient> {
  const repl = createNodeRepl({ syncMode, ...extra });
  await repl.start();
  return repl;
}

export function engines(server: ScriptedServer, window = 8192, stream = true) {
  const root = new OpenAIEngine({ baseUrl: server.baseUrl, model: "root-model", contextWindow: window, stream });
  const sub = root.withModel("sub-model", window);
  return { root, sub };
}

/** These tests drive the RLM loop: auto mode would answer their small documents in one call. */
export function config(overrides: Partial<RlmConfig> = {}): RlmConfig {
  return { ...DEFAULT_CONFIG, maxIterations: 6, cellTimeoutMs: 20_000, runMode: "rlm", ...overrides };
}

export const text = (s: string) => new Blob([s]);
