// Result lines: where they are kept, how they are read back (tolerating a line cut short by an
// interrupted write), and the per suite × size × method summary.
import { formatCount, formatMs, formatSize } from "./format.ts";
import { BENCH_METHODS, METHOD_LABELS, SUITE_NAMES, type BenchMethod, type BenchResult, type SuiteName } from "./types.ts";

/** Where the runner keeps results. Node: a JSONL file (src/bench/node.ts); browser: memory or IndexedDB. */
export interface ResultStore {
  /** Every result written so far, oldest first. */
  load(): Promise<BenchResult[]>;
  append(result: BenchResult): Promise<void>;
}

export class MemoryResultStore implements ResultStore {
  readonly results: BenchResult[];

  constructor(initial: BenchResult[] = []) {
    this.results = initial.slice();
  }

  async load(): Promise<BenchResult[]> {
    return this.results.slice();
  }

  async append(result: BenchResult): Promise<void> {
    this.results.push(result);
  }
}

export const resultKey = (taskId: string, method: BenchMethod) => `${taskId}\u0000${method}`;

function isResult(value: unknown): value is BenchResult {
  if (!value || typeof value !== "object") return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.taskId === "string" &&
    typeof r.method === "string" &&
    (BENCH_METHODS as readonly string[]).includes(r.method) &&
    typeof r.suite === "string" &&
    typeof r.score === "number" &&
    typeof r.size === "number"
  );
}

/** Results in a JSONL text; blank, malformed or cut-off lines are skipped. */
export function parseResultsJsonl(text: string): BenchResult[] {
  const out: BenchResult[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isResult(value)) out.push(value);
    } catch {
      // A line cut short by an interrupted write: the task will simply run again.
    }
  }
  return out;
}

export function resultLine(result: BenchResult): string {
  return `${JSON.stringify(result)}\n`;
}

/** One result per task × method: the last one written wins (a retried error replaces the error). */
export function latestResults(results: readonly BenchResult[]): BenchResult[] {
  const byKey = new Map<string, BenchResult>();
  for (const r of results) {
    const key = resultKey(r.taskId, r.method);
    byKey.delete(key);
    byKey.set(key, r);
  }
  return [...byKey.values()];
}

export interface SummaryRow {
  suite: SuiteName;
  size: number;
  method: BenchMethod;
  tasks: number;
  meanScore: number;
  meanTimeMs: number;
  meanTokens: number;
  /** Results whose status is "error" (no answer from the harness). */
  errors: number;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export function summarize(results: readonly BenchResult[]): SummaryRow[] {
  const groups = new Map<string, BenchResult[]>();
  for (const r of latestResults(results)) {
    const key = `${r.suite}\u0000${r.size}\u0000${r.method}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const rows: SummaryRow[] = [...groups.values()].map((rs) => ({
    suite: rs[0]!.suite,
    size: rs[0]!.size,
    method: rs[0]!.method,
    tasks: rs.length,
    meanScore: mean(rs.map((r) => r.score)),
    meanTimeMs: mean(rs.map((r) => r.timeMs)),
    meanTokens: mean(rs.map((r) => r.tokens)),
    errors: rs.filter((r) => r.status === "error").length,
  }));
  const suiteOrder = (s: string) => {
    const i = (SUITE_NAMES as readonly string[]).indexOf(s);
    return i < 0 ? SUITE_NAMES.length : i;
  };
  return rows.sort(
    (a, b) =>
      suiteOrder(a.suite) - suiteOrder(b.suite) || a.size - b.size || BENCH_METHODS.indexOf(a.method) - BENCH_METHODS.indexOf(b.method),
  );
}

/** The summary as a Markdown table (readable as plain text in a terminal too). */
export function formatSummaryTable(rows: readonly SummaryRow[]): string {
  const header = ["suite", "size (chars)", "method", "tasks", "mean score", "mean time", "mean tokens", "errors"];
  const body = rows.map((r) => [
    r.suite,
    formatSize(r.size),
    METHOD_LABELS[r.method],
    String(r.tasks),
    r.meanScore.toFixed(3),
    formatMs(r.meanTimeMs),
    formatCount(r.meanTokens),
    String(r.errors),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)].join("\n");
}
