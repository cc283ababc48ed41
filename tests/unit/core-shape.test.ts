// The code must stay readable as named steps: no function longer than a screen, no class that
// holds more than one job's worth of methods (issue 37 #1). Measured with the TypeScript parser,
// so the rule holds as the code changes, not just today. What exceeds the limits today is
// listed below by name, to shrink: a new entry there is a step back.
import { readFileSync, readdirSync, statSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url);
const MAX_FUNCTION_LINES = 60;
const MAX_CLASS_LINES = 300;

/** The folders held to the limits: `**` takes subfolders too. */
const AREAS = ["src/core/**", "src/repl", "src/app", "workers/**"];

/**
 * Known exceptions, each the name the check prints; a new entry here is a step back, and the
 * test below says when one has come under the limits. None today.
 */
const KNOWN: string[] = [];

function filesIn(area: string): string[] {
  const deep = area.endsWith("/**");
  const dir = deep ? area.slice(0, -3) : area;
  return readdirSync(new URL(`${dir}/`, ROOT)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(new URL(path, ROOT)).isDirectory()) return deep ? filesIn(`${path}/**`) : [];
    return /\.(ts|mts)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

function oversized(file: string, text = readFileSync(new URL(file, ROOT), "utf8")): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const linesOf = (node: ts.Node) =>
    source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const nameOf = (node: ts.Node & { name?: ts.Node }) =>
    node.name && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name))
      ? node.name.text
      : `<anonymous at line ${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}>`;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body && linesOf(node) > MAX_FUNCTION_LINES)
      found.push(`${file}: function ${nameOf(node)} is ${linesOf(node)} lines`);
    if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && linesOf(node) > MAX_CLASS_LINES)
      found.push(`${file}: class ${nameOf(node)} is ${linesOf(node)} lines`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The found list without line counts, to compare with KNOWN (a count changes with every edit). */
const named = (found: string[]) => found.map((f) => f.replace(/ is \d+ lines$/, ""));

describe(`the code's shape in ${AREAS.join(", ")}`, () => {
  const found = AREAS.flatMap(filesIn).flatMap((f) => oversized(f));

  it(`has no function over ${MAX_FUNCTION_LINES} lines and no class over ${MAX_CLASS_LINES}, beyond the known exceptions`, () => {
    expect(AREAS.flatMap(filesIn).length).toBeGreaterThan(50);
    expect(found.filter((f) => !KNOWN.includes(named([f])[0]!))).toEqual([]);
  });

  it("lists no exception that is already within the limits", () => {
    expect(KNOWN.filter((k) => !named(found).includes(k))).toEqual([]);
  });

  it("the check sees a long function, method, arrow and class (it can fail)", () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES + 5 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = `function long() {\n${body}\n}\nclass C {\n  m() {\n${body}\n  }\n}\nconst f = () => {\n${body}\n};`;
    expect(oversized("x.ts", text)).toHaveLength(3);
    const methods = Array.from({ length: 80 }, (_, i) => `  m${i}() {\n    return ${i};\n  }\n`).join("\n");
    expect(oversized("x.ts", `class Big {\n${methods}}\n`)).toEqual([expect.stringMatching(/^x\.ts: class Big is \d+ lines$/)]);
  });
});
