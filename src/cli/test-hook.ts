// Tests only. A test that runs the real `rlm` process cannot hand the engine a function, so it
// preloads a module (`node --import tests/fixtures/...`) that puts one under this symbol; the
// command line reads it here, once, and hands it to node-llama-cpp's engines as their
// `testGrammar` option (the engines read no globals). The engine asks it for a GBNF grammar per
// request, which makes a random-weight model say exactly what the test scripted. No option, flag
// or environment variable sets it: only code already running inside the process can, and such
// code could do anything anyway.
import type { TestGrammar } from "../engines/llama-node/index.ts";

const TEST_GRAMMAR_SYMBOL = Symbol.for("recursive-reader.llama-node.test-grammar");

/** The grammar hook a preloaded test module registered, if any. */
export function registeredTestGrammar(): TestGrammar | undefined {
  const hook = (globalThis as Record<symbol, unknown>)[TEST_GRAMMAR_SYMBOL];
  return typeof hook === "function" ? (hook as TestGrammar) : undefined;
}
