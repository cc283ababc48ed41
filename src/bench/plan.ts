// Which tasks a benchmark run contains. Specs are cheap (id, suite, size, seed); each builds its
// document only when the runner reaches it, so resuming a run skips finished tasks for free.
import type { FillerKind } from "./filler.ts";
import { formatSize } from "./format.ts";
import { hashSeed } from "./random.ts";
import { CODE_QUESTION_KINDS, codeRepoTask, codeQuestions, treeChars, type CodeQuestionKind } from "./suites/code-repo.ts";
import type { SourceTree } from "./suites/code-analysis.ts";
import { docQaTask } from "./suites/docqa.ts";
import { niahTask } from "./suites/niah.ts";
import { oolongTask, type OolongQuestionKind } from "./suites/oolong.ts";
import type { SuiteName, TaskSpec } from "./types.ts";

/** Context sizes in characters: 8K tokens (~28K chars) up to 8M characters. */
export const DEFAULT_SIZES: readonly number[] = [28_000, 112_000, 448_000, 2_000_000, 8_000_000];

export const DEFAULT_DEPTHS: readonly number[] = [0.1, 0.5, 0.9];

export interface CodeRepoSource {
  /** A short name for the repository (used in ids and questions). */
  repo: string;
  tree: SourceTree;
  /** Question kinds to ask; kinds the repository has no material for are skipped. */
  kinds?: CodeQuestionKind[];
}

export interface BenchPlan {
  /** Default: niah, docqa, oolong, oolong-pairs, and code when a repository is given. */
  suites?: SuiteName[];
  sizes?: readonly number[];
  /** Repetitions of each (size, variant) with different seeds; for code, questions per kind. */
  repeats?: number;
  seed?: number;
  niah?: { depths?: readonly number[]; filler?: FillerKind };
  docqa?: { facts?: number };
  /** Question kinds of the "oolong" suite (the pairs variant is its own suite). */
  oolong?: { kinds?: Array<Exclude<OolongQuestionKind, "pairs">> };
  code?: CodeRepoSource;
}

export class MissingCodeRepoError extends Error {
  override name = "MissingCodeRepoError";
  constructor() {
    super("The code suite needs a repository: pass plan.code = { repo, tree } (in Node, readSourceTree(dir) builds the tree).");
  }
}

export function planTasks(plan: BenchPlan = {}): TaskSpec[] {
  const seed = plan.seed ?? 1;
  const sizes = plan.sizes ?? DEFAULT_SIZES;
  const repeats = Math.max(1, plan.repeats ?? 1);
  const suites = plan.suites ?? (["niah", "docqa", "oolong", "oolong-pairs", ...(plan.code ? ["code"] : [])] as SuiteName[]);
  const specs: TaskSpec[] = [];
  const add = (
    suite: SuiteName,
    size: number,
    variant: string,
    rep: number,
    build: (id: string, seed: number) => ReturnType<TaskSpec["build"]>,
  ) => {
    const id = `${suite}/${formatSize(size)}/${variant}/${rep}`;
    const taskSeed = hashSeed(seed, suite, size, variant, rep);
    specs.push({ id, suite, size, variant, seed: taskSeed, build: () => build(id, taskSeed) });
  };

  for (const suite of suites) {
    if (suite === "code") continue;
    for (const size of sizes) {
      for (let rep = 0; rep < repeats; rep++) {
        if (suite === "niah") {
          for (const depth of plan.niah?.depths ?? DEFAULT_DEPTHS) {
            const filler = plan.niah?.filler ?? "noise";
            add(suite, size, `depth-${Math.round(depth * 100)}`, rep, (id, s) => niahTask(id, { size, depth, seed: s, filler }));
          }
        } else if (suite === "docqa") {
          const facts = plan.docqa?.facts ?? 5;
          add(suite, size, "facts", rep, (id, s) => docQaTask(id, { size, seed: s, facts }));
        } else if (suite === "oolong") {
          for (const kind of plan.oolong?.kinds ?? (["count", "compare", "most-common"] as const)) {
            add(suite, size, kind, rep, (id, s) => oolongTask(id, { size, seed: s, kind }));
          }
        } else if (suite === "oolong-pairs") {
          add(suite, size, "pairs", rep, (id, s) => oolongTask(id, { size, seed: s, kind: "pairs" }));
        }
      }
    }
  }

  if (suites.includes("code")) {
    const code = plan.code;
    if (!code) throw new MissingCodeRepoError();
    const size = treeChars(code.tree);
    for (const kind of code.kinds ?? CODE_QUESTION_KINDS) {
      const available = codeQuestions(code.tree, kind).length;
      const shuffleSeed = hashSeed(seed, "code", code.repo, kind);
      for (let rep = 0; rep < Math.min(repeats, available); rep++) {
        const id = `code/${code.repo}/${kind}/${rep}`;
        specs.push({
          id,
          suite: "code",
          size,
          variant: kind,
          seed: shuffleSeed,
          build: () => codeRepoTask(id, { repo: code.repo, tree: code.tree, kind, index: rep, seed: shuffleSeed }),
        });
      }
    }
  }
  return specs;
}
