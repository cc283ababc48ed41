// The REPL's helpers for small models, with real Pyodide: search(), map_query(), errors that
// say what exists (M12), FINAL_VAR("x") = value (M03e), and the harness's probes (syntax check,
// cut-off last lines, reading `context` in pieces) that leave the model's namespace alone.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { analyseReply } from "../../src/core/reply.ts";
import { configureHelpers, contextLayout, prepareBlock, rankChunks, readContext, replSyntaxChecker } from "../../src/core/repl-probes.ts";
import { PROMPT_PROFILES } from "../../src/core/profiles/index.ts";
import { deriveBudgets } from "../../src/core/budgets.ts";
import type { ReplClient } from "../../src/repl/client.ts";
import { startRepl, text } from "./helpers.ts";

let repl: ReplClient;
const prompts: string[][] = [];

beforeAll(async () => {
  repl = await startRepl("auto");
});
afterAll(() => repl?.close());
beforeEach(async () => {
  prompts.length = 0;
  await repl.resetNamespace();
  await repl.setContextText(
    "alpha beta\nThe vault code is 7319-ALPHA.\ngamma delta " + "filler ".repeat(2000) + "\nThe deadline is 3 March.",
  );
  repl.setSubcallHandler(async (req) => {
    prompts.push(req.prompts);
    return req.prompts.map((p) => /vault code is ([\w-]+)/.exec(p)?.[1] ?? "NOT FOUND");
  });
  await configureHelpers(repl, { chunkChars: 8000, maxChunks: 40 });
});

describe("search()", () => {
  it("returns numbered snippets with offsets that print well", async () => {
    const r = await repl.runCell("hits = search('vault code', window=20)\nprint(hits)\nprint(hits[0]['start'], len(hits))");
    expect(r.error).toBeNull();
    const [first, second] = r.stdout.trim().split("\n");
    expect(first).toMatch(/^1\. \[offset 15\] .*The vault code is 7319-ALPHA/);
    expect(second).toBe("15 1");
  });

  it("is case-insensitive, takes regexes, and treats a broken regex as plain text", async () => {
    const r = await repl.runCell("print(len(search('DEADLINE')), len(search(r'code is \\d+')), len(search('code is (')))");
    expect(r.stdout.trim()).toBe("1 1 0");
    expect(r.error).toBeNull();
  });

  it("says so when nothing matches", async () => {
    const r = await repl.runCell("print(search('unicorn'))");
    expect(r.stdout).toMatch(/No match for 'unicorn' in context \([\d]+ characters\)/);
  });

  it("names the document for a dict context", async () => {
    await repl.loadDocuments([
      { name: "a.md", data: text("nothing here") },
      { name: "b.md", data: text("the vault code is 42") },
    ]);
    const r = await repl.runCell("print(search('vault'))");
    expect(r.stdout).toMatch(/^1\. \[b\.md, offset 4\]/);
  });

  it("caps the hits and says how many more there are", async () => {
    const r = await repl.runCell("print(search('filler', max_hits=3))");
    expect(
      r.stdout
        .trim()
        .split("\n")
        .filter((l) => /^\d+\./.test(l)),
    ).toHaveLength(3);
    expect(r.stdout).toMatch(/more matches/);
  });
});

describe("map_query()", () => {
  it("asks one batch over every part, chunked by the configured size, and prints what was found", async () => {
    await configureHelpers(repl, { chunkChars: 5000, maxChunks: 40 });
    const r = await repl.runCell(
      "answers = map_query('What is the vault code?')\nprint(answers)\nprint(len(answers), answers[0]['answer'])",
    );
    expect(r.error).toBeNull();
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.length).toBe(Math.ceil((2000 * 7 + 80) / 5000));
    expect(prompts[0]![0]).toContain("Question: What is the vault code?");
    expect(prompts[0]![0]).toContain("NOT FOUND");
    // Part 1 ends after the last space before 5,000 characters: no word is cut in two.
    expect(r.stdout).toMatch(/part 1 \(chars 0-4995\): 7319-ALPHA/);
    expect(r.stdout).toMatch(/1 of \d parts found something/);
  });

  it("refuses too many parts with a way out, instead of spending the sub-call budget", async () => {
    await configureHelpers(repl, { chunkChars: 1000, maxChunks: 3 });
    const r = await repl.runCell("map_query('What is the vault code?')");
    expect(r.error).toBe("ValueError");
    expect(r.stderr).toMatch(/more than the 3 allowed.*search\(/s);
    expect(prompts).toHaveLength(0);
    const narrowed = await repl.runCell("print(map_query('What is the vault code?', text=context[:900]))");
    expect(narrowed.stdout).toMatch(/7319-ALPHA/);
  });

  it("are reserved: SHOW_VARS does not list them and a model cannot lose them", async () => {
    await repl.runCell("search = 5");
    const r = await repl.runCell("print(callable(search), SHOW_VARS())");
    expect(r.stdout.trim()).toBe("True No variables yet. Create some in a ```repl block.");
  });
});

describe("errors that say what exists (M12)", () => {
  it("a NameError lists the helpers and the model's variables", async () => {
    await repl.runCell("hits = 1");
    const r = await repl.runCell("print(grep('x'))");
    expect(r.error).toBe("NameError");
    expect(r.stderr).toMatch(/Names you can use: context, llm_query, .*search, map_query.*Your variables: hits\./);
  });

  it("a module used without import says to import it", async () => {
    const r = await repl.runCell("print(re.findall('a', context)[:1])");
    expect(r.stderr).toMatch(/`re` is a module: add `import re`/);
  });

  it("an unavailable import lists the modules that exist", async () => {
    const r = await repl.runCell("import numpy as np");
    expect(r.error).toBe("ModuleNotFoundError");
    expect(r.stderr).toMatch(/'numpy' is not available here and nothing can be installed\. You can import: re, json, math, collections/);
  });
});

describe('FINAL_VAR("x") = value (M03e)', () => {
  it('is run as x = value; FINAL_VAR("x") instead of a SyntaxError', async () => {
    const r = await repl.runCell('n = 41\nFINAL_VAR("total") = n + 1');
    expect(r.error).toBeNull();
    expect(r.final_answer).toBe("42");
    const again = await repl.runCell("print(total)");
    expect(again.stdout.trim()).toBe("42");
  });

  it("works indented and with a reserved name (submitted directly)", async () => {
    const r = await repl.runCell("if True:\n    FINAL_VAR('answer') = 'seven'");
    expect(r.final_answer).toBe("seven");
  });

  it("keeps the model's line numbers when the expression fails", async () => {
    const r = await repl.runCell("a = 1\nFINAL_VAR('x') = missing_name");
    expect(r.error).toBe("NameError");
    // The model is shown the line it wrote, at its own line number.
    expect(r.stderr).toMatch(/at line 2: FINAL_VAR\('x'\) = missing_name/);
  });
});

describe("FINAL(name): the variable, else the word (issue 25)", () => {
  it("is the variable's value when the name is a variable, whatever it looks like", async () => {
    expect((await repl.runCell("result = 'seven'\nFINAL(result)")).final_answer).toBe("seven");
    expect((await repl.runCell("Paris = 'the city'\nFINAL(Paris)")).final_answer).toBe("the city");
  });

  it.each([["CASE_DONE"], ["Paris"], ["Yes"], ["count2"], ["myAnswer"], ["B"]])("is the word %j itself otherwise", async (word) => {
    const r = await repl.runCell(`FINAL(${word})`);
    expect(r.error).toBeNull();
    expect(r.final_answer).toBe(word);
  });

  it.each([["result"], ["answer"], ["final_answer"], ["res"], ["output"], ["x"]])(
    "never submits the word %j, which names a missing variable: it says which exist",
    async (name) => {
      const r = await repl.runCell(`lines = 3\nFINAL(${name})`);
      expect(r.final_answer).toBeNull();
      expect(r.error).toBeNull();
      expect(r.stderr).toContain(`no variable named '${name}'`);
      expect(r.stderr).toContain("Variables: lines");
    },
  );

  it("a name a cell assigned (and lost) is a missing variable, not a word", async () => {
    await repl.runCell("town = missing_thing.split()[3]");
    const r = await repl.runCell("FINAL(town)");
    expect(r.final_answer).toBeNull();
    expect(r.stderr).toContain("no variable named 'town'");
  });

  it("FINAL(answer) submits the answer dict's content; names inside functions stay Python's", async () => {
    expect((await repl.runCell("answer['content'] = 'nine'\nFINAL(answer)")).final_answer).toBe("nine");
    expect((await repl.runCell("answer = 'eleven'\nFINAL(answer)")).final_answer).toBe("eleven");
    // Rebound in one cell, the text is kept as the dict's content; FINAL(answer) as text later submits it.
    await repl.runCell("answer = 'twelve'");
    expect((await repl.runCell("FINAL(answer)")).final_answer).toBe("twelve");
    const r = await repl.runCell("def f(v):\n    FINAL(v)\nf('ten')");
    expect(r.final_answer).toBe("ten");
    // Error lines still point at the model's code after the rewrite.
    const broken = await repl.runCell("x1 = 1\nFINAL(undefined_thing.upper())");
    expect(broken.stderr).toMatch(/at line 2: FINAL\(undefined_thing\.upper\(\)\)/);
  });
});

describe("probes", () => {
  it("check syntax without running anything or binding names", async () => {
    const check = replSyntaxChecker(repl);
    expect(await check("x = 1\nprint(x)")).toEqual({ ok: true });
    const bad = await check("The answer is in the second paragraph.");
    expect(bad).toMatchObject({ ok: false, error: expect.stringMatching(/^SyntaxError/) });
    const r = await repl.runCell("print(SHOW_VARS())");
    expect(r.stdout).toContain("No variables yet");
  });

  it("find a cut-off last line and offer the code without it", async () => {
    const check = replSyntaxChecker(repl);
    expect(await check("lines = context.split('\\n')\nprint(len(lines))\nprint(lines[")).toMatchObject({
      ok: false,
      trimmed: "lines = context.split('\\n')\nprint(len(lines))",
      dropped: "print(lines[",
    });
  });

  it("prepare blocks from real replies: unclosed fences, markdown that is or is not Python", async () => {
    const check = replSyntaxChecker(repl);
    const cut = analyseReply("```repl\nn = len(context)\nprint(n)\nprint(context[:").runnable[0]!;
    expect(await prepareBlock(cut, check)).toMatchObject({
      action: "run",
      code: "n = len(context)\nprint(n)",
      note: "dropped-last-line",
      dropped: "print(context[:",
    });
    const md = analyseReply("```markdown\nprint(len(context))\n```").runnable[0]!;
    expect(await prepareBlock(md, check)).toMatchObject({ action: "run", code: "print(len(context))" });
    const prose = analyseReply("```markdown\n# Plan\n- look at the context\n- find the code\n```").runnable[0]!;
    expect(await prepareBlock(prose, check)).toMatchObject({ action: "skip", syntaxError: expect.stringMatching(/SyntaxError/) });
  });

  it("read the layout and pieces of `context`, and rank pieces of a big one by the question's words", async () => {
    const b = `${"y".repeat(20_000)} the harbour master keeps the ledger ${"y".repeat(5000)}`;
    await repl.loadDocuments([
      { name: "a.txt", data: text("x".repeat(30_000)) },
      { name: "b.txt", data: text(b) },
    ]);
    expect(await contextLayout(repl)).toEqual([
      { doc: "a.txt", length: 30_000 },
      { doc: "b.txt", length: b.length },
    ]);
    expect(await readContext(repl, { doc: "b.txt", start: 20_001, end: 20_019 })).toBe("the harbour master");
    const all = await rankChunks(repl, "Who keeps the ledger?", 10_000, 100);
    expect(all).toHaveLength(6);
    const top = await rankChunks(repl, "Who keeps the ledger?", 10_000, 1);
    expect(top).toEqual([{ doc: "b.txt", start: 20_000, end: b.length }]);
  });

  it("are a worker call, not a cell: no output cap, nothing recorded as read, nothing bound (issue 25)", async () => {
    const big = Array.from({ length: 30_000 }, (_, i) => `row ${i}: ünïcode 😀 value ${i * 7}`).join("\n");
    await repl.loadDocuments([{ name: "big.txt", data: text(big) }]);
    const total = (await contextLayout(repl))[0]!.length;
    expect(total).toBeGreaterThan(200_000); // the cell output cap
    // Python's offsets are code points: the emoji counts once, as in len(context).
    expect(await readContext(repl, { doc: null, start: 0, end: total })).toBe(big);
    await expect(readContext(repl, { doc: "nope.txt", start: 0, end: 1 })).rejects.toThrow(/could not read part of `context`.*KeyError/);
    // A cell that submits an answer cites what cells read; the probe's read is not among them.
    const r = await repl.runCell("FINAL('value 21')");
    expect(r.sources ?? []).toEqual([]);
    expect((await repl.runCell("print(SHOW_VARS())")).stdout).toContain("No variables yet");
  });

  it("a long probe stops when asked (the interrupt is armed while it runs)", async () => {
    await repl.loadDocuments([{ name: "huge.txt", data: text("lorem ipsum dolor sit amet ".repeat(4_000_000)) }]);
    const ranking = rankChunks(repl, "lorem ipsum dolor amet consectetur adipiscing elit sed eiusmod tempor", 200, 10);
    setTimeout(() => repl.interrupt(), 300);
    await expect(ranking).rejects.toThrow(/could not choose parts of `context`.*KeyboardInterrupt/);
    expect((await repl.runCell("print(1 + 1)")).stdout).toBe("2\n");
  });
});

describe("the prompts' code", () => {
  it("every code example in every profile parses as Python", async () => {
    const check = replSyntaxChecker(repl);
    const budgets = deriveBudgets({ rootWindow: 4096, subWindow: 4096 });
    for (const [name, profile] of Object.entries(PROMPT_PROFILES)) {
      const sys = profile.systemPrompt({ budgets, recursive: true });
      const snippets = [...sys.matchAll(/```repl\n([\s\S]*?)```/g)].map((m) => m[1]!);
      snippets.push(...[...sys.matchAll(/`(for i in range[^`]*)`/g)].map((m) => `${m[1]}:\n    pass`));
      for (const code of snippets) expect(await check(code), `${name}: ${code}`).toEqual({ ok: true });
    }
  });
});
