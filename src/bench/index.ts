// The benchmark library's public face (browser-safe). Node-only helpers live in ./node.ts.
export type * from "./types.ts";
export { SUITE_NAMES, BENCH_METHODS, METHOD_LABELS } from "./types.ts";
export { estimateRemainingMs, describeRemaining, type PendingRun } from "./remaining.ts";
export { planTasks, DEFAULT_SIZES } from "./plan.ts";
export { runBench } from "./runner.ts";
export {
  latestResults,
  resultKey,
  parseResultsJsonl,
  resultLine,
  summarize,
  formatSummaryTable,
  type ResultStore,
  type SummaryRow,
} from "./results.ts";
export { benchCharts, type NamedChart } from "./plots.ts";
export { formatSize } from "./format.ts";
export type { SourceTree } from "./suites/code-analysis.ts";
export { sourceTreeFromZip } from "./zip.ts";
