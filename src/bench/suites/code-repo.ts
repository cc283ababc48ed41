// Code-repository QA over a real project's files (path -> text, as an unpacked zip becomes in
// the REPL). Every answer is computed from the files at generation time, so the suite stays
// right whichever project or version is used.
import { Rng } from "../random.ts";
import type { BenchTask, Expected } from "../types.ts";
import { exportedNames, functionDeclarations, importersByFile, isScript, type SourceTree } from "./code-analysis.ts";

export type CodeQuestionKind = "function-file" | "function-count" | "export-count" | "importers" | "dependency-version";

export const CODE_QUESTION_KINDS: readonly CodeQuestionKind[] = [
  "function-file",
  "function-count",
  "export-count",
  "importers",
  "dependency-version",
];

export interface CodeQuestion {
  kind: CodeQuestionKind;
  question: string;
  expected: Expected;
  /** The file or name the question is about. */
  subject: string;
}

const PATH_NOTE =
  "Give paths relative to the repository root, exactly as they appear as keys of the repository (for example src/util/strings.js).";

/** Every question of `kind` the tree supports, in a stable order. */
export function codeQuestions(tree: SourceTree, kind: CodeQuestionKind): CodeQuestion[] {
  const paths = Object.keys(tree).sort();
  const scripts = paths.filter(isScript);
  switch (kind) {
    case "function-file": {
      const owners = new Map<string, Set<string>>();
      const declarations = new Map<string, number>();
      for (const p of scripts) {
        for (const name of functionDeclarations(tree[p]!)) {
          owners.set(name, (owners.get(name) ?? new Set()).add(p));
          declarations.set(name, (declarations.get(name) ?? 0) + 1);
        }
      }
      // Only names declared once in the whole tree have a single right answer.
      return [...owners.entries()]
        .filter(([name, files]) => files.size === 1 && declarations.get(name) === 1 && name.length >= 6)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, files]) => ({
          kind,
          subject: name,
          question: `Which file defines the function \`${name}\` (declared as \`function ${name}(\`)? ${PATH_NOTE}`,
          expected: { scorer: "path", answer: [...files][0]! },
        }));
    }
    case "function-count":
      return scripts
        .map((p) => ({ p, n: functionDeclarations(tree[p]!).length }))
        .filter(({ n }) => n >= 3)
        .map(({ p, n }) => ({
          kind,
          subject: p,
          question: `How many functions are declared with the \`function\` keyword (as \`function name(\`, nested ones included) in the file \`${p}\`? Answer with a number.`,
          expected: { scorer: "number", answer: n },
        }));
    case "export-count":
      return scripts
        .map((p) => ({ p, info: exportedNames(tree[p]!) }))
        .filter(({ info }) => info.enumerable && info.names.length >= 2)
        .map(({ p, info }) => ({
          kind,
          subject: p,
          question:
            `How many distinct names does the file \`${p}\` export (through \`exports.NAME = …\` in CommonJS or \`export\` in an ES module)? ` +
            "Answer with a number.",
          expected: { scorer: "number", answer: info.names.length },
        }));
    case "importers":
      return [...importersByFile(tree).entries()]
        .filter(([, from]) => from.length >= 2 && from.length <= 20)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([target, from]) => ({
          kind,
          subject: target,
          question: `Which files import or require the file \`${target}\` through a relative path? List every such file, one path per line. ${PATH_NOTE}`,
          expected: { scorer: "set-f1", answer: from.slice().sort(), items: "paths" },
        }));
    case "dependency-version": {
      const manifest = tree["package.json"];
      if (!manifest) return [];
      let deps: Record<string, unknown> = {};
      try {
        const parsed = JSON.parse(manifest) as { dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> };
        deps = { ...(parsed.devDependencies ?? {}), ...(parsed.dependencies ?? {}) };
      } catch {
        return [];
      }
      return Object.entries(deps)
        .filter((e): e is [string, string] => typeof e[1] === "string")
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([dep, range]) => ({
          kind,
          subject: dep,
          question: `Which version range of the package \`${dep}\` does the repository's root package.json declare? Answer with the range exactly as written there.`,
          expected: { scorer: "contains", answer: range },
        }));
    }
  }
}

export function treeChars(tree: SourceTree): number {
  let n = 0;
  for (const text of Object.values(tree)) n += text.length;
  return n;
}

export interface CodeTaskParams {
  /** A short name for the repository, used in task ids and questions. */
  repo: string;
  tree: SourceTree;
  kind: CodeQuestionKind;
  /** Which question of the kind (after a seeded shuffle); distinct indices give distinct questions. */
  index: number;
  seed: number;
}

export class NoCodeQuestionError extends Error {
  override name = "NoCodeQuestionError";
  constructor(repo: string, kind: CodeQuestionKind) {
    super(`The repository "${repo}" has no material for "${kind}" questions; drop that kind or use another repository.`);
  }
}

export function codeRepoTask(id: string, params: CodeTaskParams): BenchTask {
  const all = codeQuestions(params.tree, params.kind);
  if (!all.length) throw new NoCodeQuestionError(params.repo, params.kind);
  const order = new Rng(params.seed).shuffle(all.slice());
  const chosen = order[params.index % order.length]!;
  const size = treeChars(params.tree);
  return {
    id,
    suite: "code",
    size,
    variant: params.kind,
    seed: params.seed,
    question: `The context is the source repository "${params.repo}" (${Object.keys(params.tree).length} files). ${chosen.question}`,
    context: { kind: "files", files: params.tree },
    contextChars: size,
    expected: chosen.expected,
    meta: { repo: params.repo, subject: chosen.subject, index: params.index },
  };
}
