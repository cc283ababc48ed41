// The benchmark library's public face (browser-safe). Node-only helpers live in ./node.ts.
export type * from "./types.ts";
export { SUITE_NAMES, BENCH_METHODS, METHOD_LABELS } from "./types.ts";
export { estimateRemainingMs, describeRemaining, type PendingRun } from "./remaining.ts";
export { planTasks, DEFAULT_SIZES, DEFAULT_DEPTHS, MissingCodeRepoError, type BenchPlan, type CodeRepoSource } from "./plan.ts";
export {
  runBench,
  loadTaskContext,
  taskDocuments,
  BenchModelMismatchError,
  MissingReplError,
  type BenchRepl,
  type BenchProgress,
  type BenchRunOptions,
  type BenchRunOutcome,
} from "./runner.ts";
export {
  answerDirectly,
  fitDocument,
  flattenContext,
  VANILLA_SYSTEM_PROMPT,
  type VanillaOptions,
  type VanillaOutcome,
  type TruncateMode,
} from "./vanilla.ts";
export {
  MemoryResultStore,
  latestResults,
  resultKey,
  parseResultsJsonl,
  resultLine,
  summarize,
  formatSummaryTable,
  type ResultStore,
  type SummaryRow,
} from "./results.ts";
export {
  scoreAnswer,
  expectedText,
  oolongScore,
  oolongParseAnswer,
  containsScore,
  numberScore,
  pathScore,
  setF1,
  extractPairs,
  extractPaths,
  extractIntegers,
} from "./scoring.ts";
export { accuracyChart, perTaskChart, benchCharts, type NamedChart } from "./plots.ts";
export { lineChart, barChart, type LineChartOptions, type BarChartOptions } from "./svg.ts";
export { formatSize } from "./format.ts";
export { Rng, hashSeed } from "./random.ts";
export { RULER_NOISE, buildFiller, type FillerKind } from "./filler.ts";
export { generateNiahDocument, niahTask, type NiahParams, type NiahDocument } from "./suites/niah.ts";
export { generateDocQaDocument, docQaTask, type DocQaParams, type DocQaDocument } from "./suites/docqa.ts";
export {
  generateOolongDocument,
  oolongTask,
  OOLONG_QUESTION_KINDS,
  OOLONG_INSTRUCTION,
  type OolongParams,
  type OolongDocument,
  type OolongQuestionKind,
  type OolongRecord,
} from "./suites/oolong.ts";
export { OOLONG_LABELS, type OolongLabel } from "./suites/oolong-data.ts";
export {
  codeQuestions,
  codeRepoTask,
  treeChars,
  CODE_QUESTION_KINDS,
  NoCodeQuestionError,
  type CodeQuestion,
  type CodeQuestionKind,
  type CodeTaskParams,
} from "./suites/code-repo.ts";
export type { SourceTree } from "./suites/code-analysis.ts";
export { sourceTreeToZip, sourceTreeFromZip } from "./zip.ts";
