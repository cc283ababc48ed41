import { describe, expect, it } from "vitest";
import { findCodeBlocks, findTextAnswer } from "../../src/core/parse.ts";

describe("findCodeBlocks", () => {
  it("finds repl and python blocks in order", () => {
    const reply = "a\n```repl\nx = 1\n```\nb\n```python\ny = 2\n```\n```js\nno()\n```";
    expect(findCodeBlocks(reply)).toEqual(["x = 1", "y = 2"]);
  });
  it("does not end a block at a fence with a language inside a string", () => {
    const reply = '```repl\ns = """\n```python\nprint(1)\n"""\nprint(len(s))\n```';
    expect(findCodeBlocks(reply)).toEqual(['s = """\n```python\nprint(1)\n"""\nprint(len(s))']);
  });
  it("handles CRLF, indented fences and shared indentation", () => {
    expect(findCodeBlocks("1. Run:\r\n   ```repl\r\n   a = 1\r\n   print(a)\r\n   ```\r\n")).toEqual(["a = 1\nprint(a)"]);
  });
  it("keeps an unclosed block at the end (the reply ran out of tokens)", () => {
    expect(findCodeBlocks("```repl\nprint('cut')")).toEqual(["print('cut')"]);
  });
  it("ignores code inside <think> blocks and empty blocks", () => {
    expect(findCodeBlocks("<think>```repl\nbad()\n```</think>```repl\n\n```\n```repl\ngood()\n```")).toEqual(["good()"]);
  });
  it("returns nothing for prose", () => {
    expect(findCodeBlocks("Just words. ``` not a fence")).toEqual([]);
  });
});

describe("findTextAnswer", () => {
  it.each([
    ["FINAL(42)", "42"],
    ["Done.\nFINAL(Paris (France))\n", "Paris (France)"],
    ['FINAL("quoted answer")', "quoted answer"],
    ["**FINAL(bold)**", "bold"],
    ["FINAL(multi\nline answer)", "multi\nline answer"],
  ])("%j gives %j", (reply, value) => {
    expect(findTextAnswer(reply)).toEqual({ kind: "final", value });
  });
  it("reads FINAL_VAR with or without quotes", () => {
    expect(findTextAnswer("FINAL_VAR(result)")).toEqual({ kind: "final_var", name: "result" });
    expect(findTextAnswer("  FINAL_VAR('result')")).toEqual({ kind: "final_var", name: "result" });
  });
  it("ignores FINAL inside code and mid-sentence", () => {
    expect(findTextAnswer("```repl\nFINAL(x)\n```")).toBeNull();
    expect(findTextAnswer("I will call FINAL(x) later")).toBeNull();
    expect(findTextAnswer("<think>FINAL(no)</think>")).toBeNull();
  });
});
