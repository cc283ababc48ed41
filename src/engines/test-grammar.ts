// The grammar hook, for tests only, shared by the engines that run a local model in the page
// (llama.cpp through wllama, WebLLM). An e2e test defines `globalThis.__rlmTestGrammar` (a
// function from the request's messages to a grammar, or undefined) with an init script or on its
// test page, so a random-weight model emits an exact scripted reply. Nothing in the page, its
// settings or its links sets it; with no such global every request is unconstrained.
import type { ChatRequest } from "./types.ts";

export type TestGrammarHook = (messages: ChatRequest["messages"]) => string | undefined;

export function testGrammarFor(messages: ChatRequest["messages"]): string | undefined {
  const hook = (globalThis as { __rlmTestGrammar?: unknown }).__rlmTestGrammar;
  if (typeof hook !== "function") return undefined;
  const grammar = (hook as TestGrammarHook)(messages);
  return typeof grammar === "string" && grammar ? grammar : undefined;
}
