// The suite generators: deterministic for a seed, and every answer re-derived here by a second,
// independent code path (regexes on the generated text, label counting on the labelled copy,
// the TypeScript parser on the real repository).
import { readFileSync } from "node:fs";
import { posix } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { RULER_NOISE } from "../../src/bench/filler.ts";
import { planTasks } from "../../src/bench/plan.ts";
import { scoreAnswer } from "../../src/bench/scoring.ts";
import { exportedNames, functionDeclarations, importersByFile, isScript, type SourceTree } from "../../src/bench/suites/code-analysis.ts";
import { CODE_QUESTION_KINDS, codeQuestions, codeRepoTask } from "../../src/bench/suites/code-repo.ts";
import { docQaTask, generateDocQaDocument } from "../../src/bench/suites/docqa.ts";
import { generateNiahDocument, niahTask } from "../../src/bench/suites/niah.ts";
import { OOLONG_LABELS } from "../../src/bench/suites/oolong-data.ts";
import { generateOolongDocument, OOLONG_QUESTION_KINDS, oolongTask } from "../../src/bench/suites/oolong.ts";
import { defaultCodeRepo } from "../../src/bench/node.ts";
import { sourceTreeFromZip, sourceTreeToZip } from "../../src/bench/zip.ts";
import { unzipSync, strFromU8 } from "fflate";
import type { BenchTask } from "../../src/bench/types.ts";

const textOf = (t: BenchTask) => (t.context.kind === "text" ? t.context.text : "");

describe("S-NIAH", () => {
  it("is deterministic for a seed and different across seeds", () => {
    const a = niahTask("x", { size: 30_000, depth: 0.5, seed: 7 });
    const b = niahTask("x", { size: 30_000, depth: 0.5, seed: 7 });
    const c = niahTask("x", { size: 30_000, depth: 0.5, seed: 8 });
    expect(textOf(a)).toBe(textOf(b));
    expect(a.expected).toEqual(b.expected);
    expect(a.question).toBe(b.question);
    expect(textOf(c)).not.toBe(textOf(a));
    expect(c.expected).not.toEqual(a.expected);
  });

  it.each([0.1, 0.5, 0.9])("hides exactly one needle at depth %s, found again by a regex", (depth) => {
    const task = niahTask("x", { size: 28_000, depth, seed: 3 });
    const text = textOf(task);
    expect(text.length).toBe(28_000);
    const hits = [...text.matchAll(/One of the special magic numbers for ([a-z]+-[a-z]+) is: (\d{7})\./g)];
    expect(hits).toHaveLength(1);
    const [hit] = hits;
    const key = /for ([a-z]+-[a-z]+) mentioned/.exec(task.question)?.[1];
    expect(hit![1]).toBe(key);
    expect(task.expected).toEqual({ scorer: "contains", answer: hit![2] });
    // Near the asked depth, at a sentence start, with RULER's noise around it.
    expect(Math.abs(hit!.index! / text.length - depth)).toBeLessThan(0.01);
    expect(text.slice(hit!.index! - 2, hit!.index!)).toBe(". ");
    expect(text.slice(0, RULER_NOISE.length)).toBe(RULER_NOISE);
    expect(scoreAnswer(task.expected, `The number is ${hit![2]}.`)).toBe(1);
  });

  it("builds an 8M-character document quickly", () => {
    const started = performance.now();
    const doc = generateNiahDocument({ size: 8_000_000, depth: 0.9, seed: 1, filler: "varied" });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(doc.text.length).toBe(8_000_000);
    expect(doc.text.indexOf(doc.needle)).toBe(doc.offset);
    expect(doc.text.indexOf(doc.needle, doc.offset + 1)).toBe(-1);
    expect(/\d/.test(doc.text.slice(0, doc.offset))).toBe(false);
  });
});

describe("LongDocQA", () => {
  // For each fact kind: how to read the subject from the question, and the fact sentence from the text.
  const readers: Array<{ question: RegExp; fact: (subject: string) => RegExp }> = [
    { question: /^In which town was (.+) born\?/, fact: (s) => new RegExp(`${s} was born in the town of ([^.]+)\\.`, "g") },
    { question: /^What is the name of (.+)'s (?:.+)\?/, fact: (s) => new RegExp(`${s} keeps a [a-z ]+ named ([A-Z][a-z]+)\\.`, "g") },
    { question: /^What was (.+)'s profession\?/, fact: (s) => new RegExp(`${s} earned a living as a ([a-z]+)\\.`, "g") },
    { question: /^In which year was the (.+) founded\?/, fact: (s) => new RegExp(`The ${s} was founded in the year (\\d{4})\\.`, "g") },
    { question: /^What did the ship (.+) carry on its last voyage\?/, fact: (s) => new RegExp(`the ship ${s} carried ([^.]+)\\.`, "g") },
    {
      question: /^Which code opens the lock on the door of the (.+)\?/,
      fact: (s) => new RegExp(`the door of the ${s} opens with the code (\\d{4})\\.`, "g"),
    },
  ];

  it("is deterministic for a seed and different across seeds", () => {
    const a = generateDocQaDocument({ size: 40_000, seed: 11 });
    expect(generateDocQaDocument({ size: 40_000, seed: 11 })).toEqual(a);
    const b = generateDocQaDocument({ size: 40_000, seed: 12 });
    expect(b.text).not.toBe(a.text);
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8])("seed %i: the answer is re-read from the text through the question", (seed) => {
    const task = docQaTask("x", { size: 50_000, seed, facts: 5 });
    const text = textOf(task);
    expect(Math.abs(text.length - 50_000)).toBeLessThan(10);
    const reader = readers.find((r) => r.question.test(task.question));
    expect(reader, task.question).toBeDefined();
    const subject = reader!.question.exec(task.question)![1]!;
    const hits = [...text.matchAll(reader!.fact(subject))];
    expect(hits).toHaveLength(1);
    expect(task.expected).toEqual({ scorer: "contains", answer: hits[0]![1] });
    // Five facts in all, each sentence once, and the filler has no digits to confuse a reader.
    const facts = task.meta!.facts as string[];
    expect(facts).toHaveLength(5);
    for (const f of facts) expect(text.split(f).length - 1).toBe(1);
    let rest = text;
    for (const f of facts) rest = rest.replace(f, "");
    expect(/\d/.test(rest)).toBe(false);
  });
});

describe("OOLONG-style aggregation", () => {
  const LINE = /^Date: ([A-Z][a-z]{2} \d{2}, \d{4}) \|\| User: (\d{5}) \|\| Instance: (.+) \|\| Label: (.+)$/;

  /** A second implementation: parse the labelled copy and count. */
  function countLabels(labelled: string): { counts: Map<string, number>; usersByLabel: Map<string, Set<number>> } {
    const counts = new Map<string, number>();
    const usersByLabel = new Map<string, Set<number>>();
    for (const line of labelled.split("\n")) {
      const m = LINE.exec(line);
      if (!m) throw new Error(`unexpected line: ${line}`);
      const label = m[4]!;
      counts.set(label, (counts.get(label) ?? 0) + 1);
      usersByLabel.set(label, (usersByLabel.get(label) ?? new Set()).add(Number(m[2])));
    }
    return { counts, usersByLabel };
  }

  it.each(OOLONG_QUESTION_KINDS)("%s: deterministic for a seed, different across seeds", (kind) => {
    const a = generateOolongDocument({ size: 20_000, seed: 5, kind });
    const b = generateOolongDocument({ size: 20_000, seed: 5, kind });
    const c = generateOolongDocument({ size: 20_000, seed: 6, kind });
    expect(b.text).toBe(a.text);
    expect(b.expected).toEqual(a.expected);
    expect(c.text).not.toBe(a.text);
  });

  it("hides the labels: the model's text is the labelled text minus the label column", () => {
    const doc = generateOolongDocument({ size: 30_000, seed: 2, kind: "count" });
    expect(doc.text).not.toMatch(/Label:/);
    expect(doc.labelledText.replace(/ \|\| Label: [^\n]+/g, "")).toBe(doc.text);
    expect(Math.abs(doc.text.length - 30_000) / 30_000).toBeLessThan(0.1);
  });

  it.each([1, 2, 3, 4, 5, 6])("seed %i: count, compare and most-common answers agree with an independent count", (seed) => {
    for (const kind of ["count", "compare", "most-common"] as const) {
      const doc = generateOolongDocument({ size: 25_000, seed, kind });
      const { counts } = countLabels(doc.labelledText);
      const n = (l: string) => counts.get(l) ?? 0;
      if (kind === "count") {
        const label = /classified as label '([^']+)'/.exec(doc.question)![1]!;
        expect(doc.expected).toMatchObject({ scorer: "oolong", answer: n(label), answerType: "numeric" });
        expect(scoreAnswer(doc.expected, `Answer: ${n(label)}`)).toBe(1);
      } else if (kind === "compare") {
        const [, x, y] = /Is label '([^']+)' more common, less common, or the same frequency as label '([^']+)'/.exec(doc.question)!;
        const truth = n(x!) > n(y!) ? "more common than" : n(x!) < n(y!) ? "less common than" : "same frequency as";
        expect(doc.expected).toMatchObject({ scorer: "oolong", answer: truth });
        expect(scoreAnswer(doc.expected, `Answer: ${x} is ${truth} ${y}`)).toBe(1);
      } else {
        const sorted = [...counts.entries()].sort((p, q) => q[1] - p[1]);
        expect(sorted[0]![1]).toBeGreaterThan(sorted[1]![1]); // a unique most common label
        expect(doc.expected).toMatchObject({ scorer: "oolong", answer: sorted[0]![0] });
      }
      expect([...counts.keys()].every((l) => (OOLONG_LABELS as readonly string[]).includes(l))).toBe(true);
    }
  });

  it("covers all three comparison outcomes over a few seeds", () => {
    const outcomes = new Set<string>();
    for (let seed = 0; seed < 30; seed++)
      outcomes.add(String(generateOolongDocument({ size: 10_000, seed, kind: "compare" }).expected.answer));
    expect([...outcomes].sort()).toEqual(["less common than", "more common than", "same frequency as"]);
  });

  it.each([1, 2, 3])("seed %i: the pairs answer equals all pairs of users with the label, found independently", (seed) => {
    const task = oolongTask("x", { size: 30_000, seed, kind: "pairs" });
    expect(task.suite).toBe("oolong-pairs");
    const doc = generateOolongDocument({ size: 30_000, seed, kind: "pairs" });
    const label = /instance labelled '([^']+)'/.exec(doc.question)![1]!;
    const users = [...(countLabels(doc.labelledText).usersByLabel.get(label) ?? [])].sort((a, b) => a - b);
    expect(users.length).toBeGreaterThanOrEqual(4);
    const pairs: string[] = [];
    users.forEach((u, i) => users.slice(i + 1).forEach((v) => pairs.push(`${u},${v}`)));
    expect(task.expected).toEqual({ scorer: "set-f1", answer: pairs, items: "pairs" });
    expect(scoreAnswer(task.expected, pairs.map((p) => `(${p.replace(",", ", ")})`).join("\n"))).toBe(1);
  });

  it("reaches thousands of records, and 8M characters in well under the test timeout", () => {
    const small = generateOolongDocument({ size: 448_000, seed: 1, kind: "count" });
    expect(small.records.length).toBeGreaterThan(4_000);
    const started = performance.now();
    const big = generateOolongDocument({ size: 8_000_000, seed: 1, kind: "most-common" });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(big.text.length).toBeGreaterThan(7_000_000);
  });
});

describe("code-repository QA on a real project", () => {
  const { repo, tree } = defaultCodeRepo();
  const scripts = Object.keys(tree).filter(isScript);

  function parse(path: string): ts.SourceFile {
    return ts.createSourceFile(path, tree[path]!, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  }
  function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
    visit(node);
    node.forEachChild((c) => walk(c, visit));
  }

  it("reads mammoth from node_modules as a multi-file repository of text", () => {
    expect(repo).toMatch(/^mammoth-\d/);
    expect(scripts.length).toBeGreaterThan(50);
    expect(tree["package.json"]).toBeDefined();
    expect(Object.keys(tree).some((p) => p.endsWith(".docx"))).toBe(false);
  });

  it("function declarations match the TypeScript parser in every file", () => {
    for (const path of scripts) {
      const names: string[] = [];
      walk(parse(path), (n) => {
        if (ts.isFunctionDeclaration(n) && n.name) names.push(n.name.text);
      });
      expect(functionDeclarations(tree[path]!), path).toEqual(names);
    }
  });

  it("export counts match the parser for every file the suite asks about", () => {
    const asked = codeQuestions(tree, "export-count");
    expect(asked.length).toBeGreaterThan(5);
    for (const q of asked) {
      const names = new Set<string>();
      walk(parse(q.subject), (n) => {
        if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left)) {
          const target = n.left.expression.getText();
          if (target === "exports" || target === "module.exports") names.add(n.left.name.text);
        }
        if (ts.isExportAssignment(n)) names.add("default");
        if (ts.isFunctionDeclaration(n) && n.name && n.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword))
          names.add(n.name.text);
      });
      expect(q.expected, q.subject).toEqual({ scorer: "number", answer: names.size });
      expect(exportedNames(tree[q.subject]!).enumerable).toBe(true);
    }
  });

  it("importers match require()/import specifiers resolved with node:path", () => {
    const expected = new Map<string, string[]>();
    for (const from of scripts.slice().sort()) {
      const targets = new Set<string>();
      walk(parse(from), (n) => {
        let spec: string | undefined;
        if (ts.isCallExpression(n) && n.expression.getText() === "require" && n.arguments[0] && ts.isStringLiteral(n.arguments[0])) {
          spec = n.arguments[0].text;
        }
        if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) spec = n.moduleSpecifier.text;
        if (!spec?.startsWith(".")) return;
        const base = posix.normalize(posix.join(posix.dirname(from), spec)).replace(/\/$/, "");
        const hit = [base, `${base}.js`, `${base}.json`, `${base}/index.js`].find((p) => p in tree);
        if (hit && hit !== from) targets.add(hit);
      });
      for (const t of targets) expected.set(t, [...(expected.get(t) ?? []), from]);
    }
    const actual = importersByFile(tree);
    expect(new Map([...actual].map(([k, v]) => [k, v.slice().sort()]))).toEqual(
      new Map([...expected].map(([k, v]) => [k, v.slice().sort()])),
    );
    expect(codeQuestions(tree, "importers").length).toBeGreaterThan(5);
  });

  it("function-file answers name the only file that declares the function", () => {
    for (const q of codeQuestions(tree, "function-file").slice(0, 40)) {
      const owners = scripts.filter((p) => new RegExp(`function\\s+${q.subject}\\s*\\(`).test(tree[p]!));
      expect(owners, q.subject).toEqual([q.expected.answer]);
    }
  });

  it("dependency-version answers come from the package.json on disk", () => {
    const onDisk = JSON.parse(readFileSync(new URL("../../node_modules/mammoth/package.json", import.meta.url), "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    for (const q of codeQuestions(tree, "dependency-version")) {
      expect(q.expected.answer).toBe(onDisk.dependencies[q.subject] ?? onDisk.devDependencies[q.subject]);
    }
  });

  it("tasks are deterministic, distinct per index, and carry the repository as path -> text", () => {
    for (const kind of CODE_QUESTION_KINDS) {
      const a = codeRepoTask("a", { repo, tree, kind, index: 0, seed: 9 });
      const again = codeRepoTask("a", { repo, tree, kind, index: 0, seed: 9 });
      const b = codeRepoTask("b", { repo, tree, kind, index: 1, seed: 9 });
      expect(again.question).toBe(a.question);
      expect(again.expected).toEqual(a.expected);
      expect(b.question).not.toBe(a.question);
      expect(a.context).toEqual({ kind: "files", files: tree });
    }
  });

  it("round-trips through zip bytes (deterministic), with the top folder stripped on the way back", () => {
    const small: SourceTree = Object.fromEntries(Object.entries(tree).slice(0, 20));
    const zipped = sourceTreeToZip(small, "mammoth-main");
    expect(sourceTreeToZip(small, "mammoth-main")).toEqual(zipped);
    const raw = unzipSync(zipped);
    const first = Object.keys(small)[0]!;
    expect(strFromU8(raw[`mammoth-main/${first}`]!)).toBe(small[first]);
    expect(sourceTreeFromZip(zipped)).toEqual(small);
    expect(sourceTreeFromZip(sourceTreeToZip(small))).toEqual(small);
  });
});

describe("the plan", () => {
  it("gives stable ids and seeds, and builds lazily", () => {
    const a = planTasks({ sizes: [28_000, 112_000], seed: 4 });
    const b = planTasks({ sizes: [28_000, 112_000], seed: 4 });
    expect(a.map((s) => [s.id, s.seed])).toEqual(b.map((s) => [s.id, s.seed]));
    expect(new Set(a.map((s) => s.id)).size).toBe(a.length);
    // 3 depths + 1 docqa + 3 oolong kinds + 1 pairs, per size.
    expect(a).toHaveLength(16);
    expect(a.map((s) => s.id)).toContain("niah/28K/depth-50/0");
    const other = planTasks({ sizes: [28_000, 112_000], seed: 5 });
    expect(other.map((s) => s.seed)).not.toEqual(a.map((s) => s.seed));
    const spec = a.find((s) => s.id === "oolong/112K/count/0")!;
    const task = spec.build();
    expect(task.id).toBe(spec.id);
    expect(task.size).toBe(112_000);
    expect(textOf(task)).toBe(textOf(spec.build()));
  });

  it("needs a repository for the code suite", () => {
    expect(() => planTasks({ suites: ["code"] })).toThrow(/needs a repository/);
    const code = defaultCodeRepo();
    const specs = planTasks({ suites: ["code"], code, repeats: 2 });
    expect(specs).toHaveLength(CODE_QUESTION_KINDS.length * 2);
  });
});

it("keeps the OOLONG line layout", () => {
  const doc = generateOolongDocument({ size: 5_000, seed: 1, kind: "count" });
  for (const line of doc.text.split("\n")) expect(line).toMatch(/^Date: [A-Z][a-z]{2} \d{2}, \d{4} \|\| User: \d{5} \|\| Instance: .+$/);
});
