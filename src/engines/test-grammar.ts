// The grammar hook, for tests only, shared by the engines that run a local model in the page
// (llama.cpp through wllama, WebLLM): a function from a request's messages to a grammar, or
// undefined, which makes a random-weight model emit an exact scripted reply. An engine takes it
// as an option (`testGrammar`) and reads no global: the page hands in its test seams
// (src/app/test-seams.ts), a test page or unit test its own function. Without one every request
// is unconstrained.
import type { ChatRequest } from "./types.ts";

export type TestGrammarHook = (messages: ChatRequest["messages"]) => string | undefined;

/** The hook's grammar for these messages, when there is a hook and it names one. */
export function testGrammarFor(hook: TestGrammarHook | undefined, messages: ChatRequest["messages"]): string | undefined {
  const grammar = hook?.(messages);
  return typeof grammar === "string" && grammar ? grammar : undefined;
}
