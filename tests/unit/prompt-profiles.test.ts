// Prompt profiles: the guided one for ≤ 4B roots, the standard one, the canonical one for
// RLM-trained models, the automatic choice from a model's name, and numbers in code that a
// model can copy (the "range(0, len(context), 8,000)" bug).
import { describe, expect, it } from "vitest";
import { deriveBudgets } from "../../src/core/budgets.ts";
import { PROMPT_PROFILES, chooseProfile, modelSizeB, type PromptProfileName } from "../../src/core/profiles/index.ts";
import { systemPrompt } from "../../src/core/prompts.ts";
import { estimateTokens } from "../../src/engines/tokens.ts";

const small = deriveBudgets({ rootWindow: 4096, subWindow: 4096 });
const large = deriveBudgets({ rootWindow: 131_072, subWindow: 32_768 });
const names = Object.keys(PROMPT_PROFILES) as PromptProfileName[];
const info = { type: "str", total_chars: 2_000_000, items: 1 };

/** Code a model might copy: fenced blocks and `inline code`. */
function codeIn(text: string): string[] {
  const fenced = [...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const inline = [...text.replace(/```[\s\S]*?```/g, "").matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return [...fenced, ...inline];
}

describe("numbers in code", () => {
  it("the standard prompt's chunking hint is valid Python: no thousands separators", () => {
    for (const budgets of [small, large]) {
      const prompt = systemPrompt({ budgets, recursive: false });
      expect(prompt).toContain(`range(0, len(context), ${budgets.chunkChars})`);
      expect(prompt).not.toMatch(/range\([^)]*\d,\d{3}/);
    }
  });

  it.each(names)("no code in the %s profile has a number with a thousands separator", (name) => {
    const p = PROMPT_PROFILES[name];
    for (const budgets of [small, large]) {
      const texts = [
        p.systemPrompt({ budgets, recursive: true }),
        p.firstUserMessage({ question: "Q?", context: info, previous: [], budgets, maxIterations: 20 }),
      ];
      for (const code of texts.flatMap(codeIn)) expect(code, name).not.toMatch(/\d,\d{3}/);
    }
  });

  it.each(names)("the %s profile takes its limits from the budgets", (name) => {
    const p = PROMPT_PROFILES[name];
    const at4k = p.systemPrompt({ budgets: small, recursive: false });
    const at128k = p.systemPrompt({ budgets: large, recursive: false });
    expect(at4k).toContain(small.outputCharsPerCell.toLocaleString("en-US"));
    expect(at128k).toContain(large.outputCharsPerCell.toLocaleString("en-US"));
    expect(at4k).not.toBe(at128k);
  });
});

describe("the guided profile (≤ 4B roots)", () => {
  const p = PROMPT_PROFILES.guided;
  const sys = p.systemPrompt({ budgets: small, recursive: true });
  const first = p.firstUserMessage({ question: "When is the deadline?", context: info, previous: [], budgets: small });

  it("is short: well under the standard prompt", () => {
    const standard = systemPrompt({ budgets: small, recursive: true });
    expect(estimateTokens(sys)).toBeLessThan(450);
    expect(sys.length).toBeLessThan(standard.length * 1.2);
  });

  it("lists few helpers with one-line signatures, search and map_query among them", () => {
    expect(sys).toMatch(/search\(pattern, window=200\)/);
    expect(sys).toMatch(/map_query\(question\)/);
    expect(sys).toMatch(/llm_query\(prompt\)/);
    expect(sys).not.toMatch(/llm_query_batched|rlm_query|SHOW_VARS/);
  });

  it("has one worked example, the allowed imports, and says the context is unseen", () => {
    expect(sys.match(/```repl\n/g)).toHaveLength(1);
    expect(sys).toMatch(/import only re, json, math, collections/);
    expect(first).toContain("You have NOT seen the context yet");
    expect(first).toContain("When is the deadline?");
  });

  it("restates the task in every turn footer and in feedback", () => {
    expect(p.turnFooter(3, 20, "When is the deadline?")).toContain("When is the deadline?");
    expect(p.turnFooter(19, 20, "Q")).toMatch(/Last turn/);
    expect(p.restateTask).toBe(true);
  });
});

describe("the canonical profile (RLM-trained models)", () => {
  const p = PROMPT_PROFILES.canonical;
  const sys = p.systemPrompt({ budgets: large, recursive: false });

  it("describes the answer dict protocol and the canonical helpers", () => {
    expect(sys).toContain('answer["content"]');
    expect(sys).toContain('answer["ready"] = True');
    for (const name of ["llm_query", "llm_query_batched", "rlm_query", "rlm_query_batched", "SHOW_VARS"]) expect(sys).toContain(name);
  });

  it("says truthfully whether rlm_query recurses", () => {
    expect(sys).toMatch(/recursion is off/);
    expect(p.systemPrompt({ budgets: large, recursive: true })).toMatch(/recursive RLM with its own REPL/);
  });

  it("numbers turns the canonical way and guards the first turn", () => {
    const first = p.firstUserMessage({ question: "Q?", context: info, previous: [], budgets: large, maxIterations: 30 });
    expect(first).toMatch(/^Answer the following: Q\?/);
    expect(first).toContain("Your context is a str of 2,000,000 total characters");
    expect(first).toMatch(/do not submit an answer on this turn/);
    expect(first).toMatch(/Turn 1\/30:$/);
    expect(p.turnFooter(4, 30, "Q")).toBe("Turn 5/30:");
    expect(p.finalRequest).toContain('answer["ready"] = True');
  });
});

describe("choosing a profile from the model", () => {
  it.each([
    ["Qwen2.5-0.5B-Instruct-q4f16_1-MLC", 0.5],
    ["Qwen2.5-1.5B-Instruct-q4f16_1-MLC", 1.5],
    ["Qwen3-4B-q4f16_1-MLC", 4],
    ["Qwen/Qwen2.5-7B-Instruct", 7],
    ["qwen2.5:0.5b", 0.5],
    ["qwen3:8b", 8],
    ["Qwen3-30B-A3B-Instruct-2507", 30],
    ["SmolLM2-360M-Instruct-q4f16_1-MLC", 0.36],
    ["Llama-3.2-3B-Instruct", 3],
    ["gpt-4o-mini", null],
    ["Qwen2.5-Coder", null],
    // A file's hash is no size (a GGUF named after its digest).
    ["model-7b750a1c.gguf", null],
    ["qwen2.5-0.5b-instruct-q4_k_m-3b9f2.gguf", 0.5],
  ])("%s has %s billion parameters", (name, size) => {
    expect(modelSizeB(name)).toBe(size);
  });

  it.each([
    ["Qwen2.5-0.5B-Instruct-q4f16_1-MLC", "guided"],
    ["Qwen3-4B-q4f16_1-MLC", "guided"],
    ["qwen2.5:3b", "guided"],
    ["Qwen/Qwen2.5-7B-Instruct", "standard"],
    ["Qwen3-30B-A3B-Instruct-2507", "standard"],
    ["RLM-Qwen3-8B", "canonical"],
    ["mit-oasys/rlm-qwen3-30b-a3b-v0.1", "canonical"],
    ["gpt-4o-mini", "standard"],
  ])("auto gives %s the %s profile", (name, profile) => {
    expect(chooseProfile(name).profile).toBe(profile);
  });

  it("'rlm' must be a word: a name merely containing the letters is not RLM-trained", () => {
    expect(chooseProfile("Qwen2.5-7B-Instruct-xrlmx").profile).toBe("standard");
  });

  it("an explicit choice wins over the name", () => {
    expect(chooseProfile("RLM-Qwen3-8B", { choice: "guided" })).toMatchObject({ profile: "guided" });
  });

  it("an unknown size with a 4K window is treated as a small local model", () => {
    expect(chooseProfile("my-local-model", { rootWindow: 4096 }).profile).toBe("guided");
    expect(chooseProfile("my-local-model", { rootWindow: 32_768 }).profile).toBe("standard");
  });

  it("says why", () => {
    expect(chooseProfile("Qwen3-4B-q4f16_1-MLC").reason).toMatch(/4B parameters/);
  });
});
