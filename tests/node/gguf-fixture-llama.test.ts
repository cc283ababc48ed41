// The weight-free fixture through real llama.cpp (node-llama-cpp, CPU): the random-weight Qwen
// GGUFs load, tokenize with Qwen's genuine ids, render Qwen's chat template from the file, and a
// grammar from exactReplyGrammar makes the model say the scripted RLM reply to the letter.
//
// node-llama-cpp is the CLI's optional engine (issue 26); where it is not installed this file is
// skipped, and says so.

import { describe, expect, it } from "vitest";
import { exactReplyGrammar, tinyQwenGguf, type QwenArch } from "../fixtures/gguf/index.ts";

/** The part of node-llama-cpp's API this test uses, so it type-checks before the package is added. */
interface NodeLlamaCpp {
  getLlama(options: { gpu: false; build: "never"; logLevel: "error" }): Promise<Llama>;
  LlamaCompletion: new (options: { contextSequence: unknown }) => {
    generateCompletion(prompt: string, options: { grammar?: unknown; temperature: number; maxTokens: number }): Promise<string>;
  };
  JinjaTemplateChatWrapper: new (options: { template: string }) => {
    generateContextState(options: { chatHistory: unknown[] }): { contextText: { toString(): string } };
  };
}
interface Llama {
  loadModel(options: { modelPath: string }): Promise<Model>;
  createGrammar(options: { grammar: string }): Promise<unknown>;
  dispose(): Promise<void>;
}
interface Model {
  tokenize(text: string, specialTokens: boolean): number[];
  fileInfo: { metadata: { tokenizer: { chat_template?: string } } };
  createContext(options: { contextSize: number; threads: number }): Promise<{ getSequence(): unknown; dispose(): Promise<void> }>;
  dispose(): Promise<void>;
}

const PACKAGE = "node-llama-cpp";
const nodeLlamaCpp = (await import(/* @vite-ignore */ PACKAGE).catch(() => undefined)) as NodeLlamaCpp | undefined;
if (!nodeLlamaCpp) console.warn(`${PACKAGE} is not installed: the fixture's llama.cpp checks are skipped`);

const REPLY =
  '```repl\nchunks = [context[i:i+1000] for i in range(0, len(context), 1000)]\nprint(len(chunks), "块")\n```\nFINAL("42 \\ done")';

describe.skipIf(!nodeLlamaCpp).each<QwenArch>(["qwen3", "qwen2"])("tiny %s GGUF in node-llama-cpp", (arch) => {
  it("tokenizes as Qwen, renders Qwen's template and says the scripted reply under the grammar", async () => {
    const { getLlama, LlamaCompletion, JinjaTemplateChatWrapper } = nodeLlamaCpp!;
    const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
    try {
      const model = await llama.loadModel({ modelPath: await tinyQwenGguf({ arch }) });
      expect(model.tokenize("Hello, world! 你好 <|im_start|>", true)).toEqual([9707, 11, 1879, 0, 220, 108386, 220, 151644]);

      const template = model.fileInfo.metadata.tokenizer.chat_template!;
      const chatHistory = [
        { type: "system", text: "You are an RLM." },
        { type: "user", text: "How long is it?" },
        { type: "model", response: [] },
      ];
      expect(new JinjaTemplateChatWrapper({ template }).generateContextState({ chatHistory }).contextText.toString()).toBe(
        "<|im_start|>system\nYou are an RLM.<|im_end|>\n<|im_start|>user\nHow long is it?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
      );

      // One thread: llama.cpp's threads spin at barriers, which a busy 2-core machine punishes.
      const context = await model.createContext({ contextSize: 1024, threads: 1 });
      const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
      const grammar = await llama.createGrammar({ grammar: exactReplyGrammar(REPLY) });
      expect(await completion.generateCompletion("<|im_start|>assistant\n", { grammar, temperature: 0, maxTokens: 200 })).toBe(REPLY);
      await context.dispose();
      await model.dispose();
    } finally {
      await llama.dispose();
    }
  });
});
