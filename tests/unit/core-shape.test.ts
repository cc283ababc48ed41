// The loop must stay readable as named steps: no function in src/core longer than a screen.
// Measured with the TypeScript parser, so the rule holds as the code changes, not just today.
import { readdirSync, readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const CORE = new URL("../../src/core/", import.meta.url);
const MAX_LINES = 60;

function longFunctions(file: string, text = readFileSync(new URL(file, CORE), "utf8")): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : `<anonymous at line ${start + 1}>`;
      if (lines > MAX_LINES) found.push(`${file}: ${name} is ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("src/core", () => {
  it(`has no function over ${MAX_LINES} lines`, () => {
    const files = readdirSync(CORE).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(5);
    expect(files.flatMap((f) => longFunctions(f))).toEqual([]);
  });

  it("the check sees a long function, method or arrow (it can fail)", () => {
    const body = Array.from({ length: MAX_LINES + 5 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = `function long() {\n${body}\n}\nclass C {\n  m() {\n${body}\n  }\n}\nconst f = () => {\n${body}\n};`;
    expect(longFunctions("x.ts", text)).toHaveLength(3);
  });
});
