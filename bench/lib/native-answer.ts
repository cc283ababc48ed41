// The scripted answer (scripted-answer.ts) as `rlm --model-file` runs it: RlmSession, real Pyodide,
// llama.cpp through node-llama-cpp, each sub-call on its own KV sequence. Times split into the
// root's prefill and generation and the sub-calls', from llama.cpp's own reports.
import { RlmSession } from "../../src/core/session.ts";
import { DEFAULT_CONFIG } from "../../src/core/types.ts";
import { openLocalModels, type LlamaRequestStats } from "../../src/engines/llama-node/index.ts";
import { createNodeRepl } from "../../src/repl/node.ts";
import { exactReplyGrammar, tinyQwenGguf } from "../../tests/fixtures/gguf/index.ts";
import { EXPECTED, QUESTION, SUB_REPLY, answerParts, rootReply, scriptedDocument, type AnswerParts } from "./scripted-answer.ts";

export interface RlmTiming extends AnswerParts {
  totalMs: number;
  window: number;
  /** Requests stopped by the loop itself before they finished (not in the sums). */
  abandoned: number;
}

/** The scripted answer through RlmSession, real Pyodide and node-llama-cpp (what `rlm --model-file` runs). */
export async function nativeScriptedAnswer(threads: number): Promise<RlmTiming> {
  const all: LlamaRequestStats[] = [];
  const local = await openLocalModels({
    modelFile: await tinyQwenGguf({ shape: "qwen2.5-0.5b" }),
    threads,
    onRequest: (s) => all.push(s),
    // The turn is the number of replies already in the conversation, so a request made again
    // (the loop may redo its first one) gets the same reply.
    testGrammar: ({ role, messages }) => {
      const turn = messages.filter((m) => m.role === "assistant").length;
      return exactReplyGrammar(role === "root" ? rootReply(turn) : SUB_REPLY);
    },
  });
  const session = new RlmSession({
    createRepl: () => createNodeRepl({ syncMode: "auto" }),
    engines: () => ({ root: local.root, sub: local.sub }),
    // The default cell limit (sub-calls' waits do not count against it), and an hour for the
    // question so a busy machine still finishes.
    config: () => ({ ...DEFAULT_CONFIG, runMode: "rlm", maxIterations: 8, maxConcurrentSubcalls: 1, maxWallTimeMs: 3_600_000 }),
  });
  try {
    await session.addDocuments([{ path: "big.txt", data: new Blob([scriptedDocument()]) }]);
    const started = performance.now();
    const result = await session.ask(QUESTION);
    const totalMs = performance.now() - started;
    if (result.status !== "answered" || !result.answer?.includes(EXPECTED))
      throw new Error(`the scripted run did not finish as scripted: ${result.status} ${result.message ?? ""}`);
    const stats = all.filter((s) => s.finishReason !== "abort");
    return {
      totalMs,
      ...answerParts(stats.map((s) => ({ ...s, role: s.role === "root" ? "root" : "sub" }))),
      window: local.root.contextWindow,
      abandoned: all.length - stats.length,
    };
  } finally {
    session.close();
    await local.close();
  }
}
