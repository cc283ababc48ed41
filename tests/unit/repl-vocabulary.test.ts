// The helper vocabulary (src/core/repl-vocabulary.ts) is the one place a helper is declared: Python's
// generated file is in step with it, every profile's prompt and feedback list come from it, and the
// guards that recognise helper calls use it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { deriveBudgets } from "../../src/core/budgets.ts";
import { mapPrompt as fallbackMapPrompt } from "../../src/core/fallback.ts";
import { usesContext } from "../../src/core/guards/stuck.ts";
import { PROMPT_PROFILES, type PromptProfileName } from "../../src/core/profiles/index.ts";
import {
  CALLS_LIMITED_HELPER,
  MAP_PROMPT_TEMPLATE,
  NOT_FOUND,
  REPL_VOCABULARY,
  helperLines,
  mapPrompt,
  offeredNames,
} from "../../src/core/repl-vocabulary.ts";
import { PYTHON_VOCABULARY_FILE, renderPythonVocabulary } from "../../scripts/python-vocabulary.ts";

const budgets = deriveBudgets({ rootWindow: 32_768, subWindow: 8192 });
const profiles = Object.keys(PROMPT_PROFILES) as PromptProfileName[];
const names = REPL_VOCABULARY.map((e) => e.name);

describe("the vocabulary", () => {
  it("is what Python reads: workers/python/rlm_runtime/vocabulary.py is generated from it and unedited", () => {
    // On failure: node --import tsx scripts/python-vocabulary.ts --write
    expect(readFileSync(PYTHON_VOCABULARY_FILE, "utf8")).toBe(renderPythonVocabulary());
  });

  it("declares each name once, with a Python signature that names it", () => {
    expect(new Set(names).size).toBe(names.length);
    for (const e of REPL_VOCABULARY) expect(e.signature.startsWith(e.name), e.name).toBe(true);
    for (const e of REPL_VOCABULARY.filter((x) => x.kind === "function")) expect(e.signature, e.name).toMatch(/^\w+\(.*\)$/);
  });

  it("gives Python every name it reserves, the helpers it installs and the names a NameError lists", () => {
    const python = renderPythonVocabulary();
    const tuple = (name: string) =>
      [...new RegExp(`^${name} = \\(([^)]*)\\)`, "m").exec(python)![1]!.matchAll(/"(\w+)"/g)].map((m) => m[1]);
    expect(tuple("RESERVED")).toEqual(names);
    expect(tuple("FUNCTIONS")).toEqual(REPL_VOCABULARY.filter((e) => e.kind === "function").map((e) => e.name));
    expect(tuple("NAME_ERROR_NAMES")).toEqual(REPL_VOCABULARY.filter((e) => e.inNameErrors).map((e) => e.name));
    expect(python).toContain('"chunk_chars": 8000');
    expect(python).toContain(`NOT_FOUND = "${NOT_FOUND}"`);
  });
});

describe("what each profile offers", () => {
  it.each(profiles)("the %s profile's helpers are vocabulary names, and feedback names only what it offers", (name) => {
    const p = PROMPT_PROFILES[name];
    for (const recursive of [false, true]) {
      const listed = p.helpers(recursive);
      expect(listed).toEqual(offeredNames(name, recursive));
      for (const helper of listed) expect(names).toContain(helper);
      for (const helper of listed) expect(REPL_VOCABULARY.find((e) => e.name === helper)!.offeredBy[name], helper).toBeDefined();
    }
  });

  it.each(profiles)("the %s profile's system prompt carries every line the vocabulary gives it", (name) => {
    for (const recursive of [false, true]) {
      const lines = helperLines(name, { budgets, recursive });
      expect(lines.length).toBeGreaterThan(0);
      expect(PROMPT_PROFILES[name].systemPrompt({ budgets, recursive })).toContain(lines);
    }
  });

  it("offers every name Python installs through at least one profile, so each reaches the model", () => {
    for (const e of REPL_VOCABULARY) expect(Object.keys(e.offeredBy).length, e.name).toBeGreaterThan(0);
    const prompt = (name: PromptProfileName) =>
      PROMPT_PROFILES[name].systemPrompt({ budgets, recursive: true }) +
      PROMPT_PROFILES[name].firstUserMessage({
        question: "Q?",
        context: { type: "str", total_chars: 10, items: 1 },
        previous: [{ question: "q", answer: "a" }],
        budgets,
      });
    for (const e of REPL_VOCABULARY) {
      for (const name of Object.keys(e.offeredBy) as PromptProfileName[])
        expect(prompt(name), `${name} offers ${e.name}`).toContain(e.name);
    }
  });

  it("names rlm_query only where it recurses, and never offers a helper a profile does not list in its prompt", () => {
    expect(offeredNames("standard", false)).not.toContain("rlm_query");
    expect(offeredNames("standard", true)).toContain("rlm_query");
    expect(helperLines("guided", { budgets, recursive: true })).not.toMatch(/llm_query_batched|rlm_query|SHOW_VARS/);
    // The guided profile leads with the helpers that do the work for a small model.
    expect(offeredNames("guided", false)).toEqual(["context", "search", "map_query", "llm_query", "FINAL", "FINAL_VAR"]);
  });
});

describe("what the harness derives from it", () => {
  it("counts a call of a helper that reads `context` as reading it", () => {
    expect(usesContext("hits = search('x')")).toBe(true);
    expect(usesContext("print(map_query('q'))")).toBe(true);
    expect(usesContext("print(context[:100])")).toBe(true);
    expect(usesContext("x = llm_query('hi')")).toBe(false);
    expect(usesContext("mycontext = 1")).toBe(false);
  });

  it("sends the sub-model's limits before the first call of a helper that needs them", () => {
    expect(CALLS_LIMITED_HELPER.test("print(search ('x'))")).toBe(true);
    expect(CALLS_LIMITED_HELPER.test("map_query('q')")).toBe(true);
    expect(CALLS_LIMITED_HELPER.test("llm_query('search')")).toBe(false);
  });

  it("asks the harness's map-reduce the question map_query() asks, each field filled once", () => {
    const text = "a {question} and $& in the text";
    const prompt = fallbackMapPrompt("Q {text}?", 2, 5, { doc: "a.md", start: 0, end: 5 }, text);
    expect(prompt).toBe(mapPrompt({ part: 2, parts: 5, where: " (a.md)", text, question: "Q {text}?" }));
    expect(prompt).toContain("Here is part 2 of 5 of a document (a.md).\n<<<\na {question} and $& in the text\n>>>\nQuestion: Q {text}?\n");
    expect(prompt.endsWith(NOT_FOUND)).toBe(true);
    expect(MAP_PROMPT_TEMPLATE.match(/\{\w+\}/g)).toEqual(["{part}", "{parts}", "{where}", "{text}", "{question}"]);
  });
});
