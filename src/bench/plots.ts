// The benchmark's charts: accuracy against context length per method, and tokens and time per
// task. Pure functions from results to SVG text; writing files is src/bench/node.ts's job.
import { formatCount, formatMs, formatSize } from "./format.ts";
import { latestResults } from "./results.ts";
import { barChart, lineChart, type LineSeries } from "./svg.ts";
import { BENCH_METHODS, METHOD_LABELS, SUITE_NAMES, type BenchResult, type SuiteName } from "./types.ts";

const METHOD_COLORS: Record<string, string> = { vanilla: "#d62728", rlm: "#1f77b4" };

/** Mean score per context size, one line per method (and per suite when several are mixed). */
export function accuracyChart(results: readonly BenchResult[], suite?: SuiteName): string {
  const rs = latestResults(results).filter((r) => !suite || r.suite === suite);
  const suites = [...new Set(rs.map((r) => r.suite))];
  const series: LineSeries[] = [];
  for (const s of suites) {
    for (const method of BENCH_METHODS) {
      const mine = rs.filter((r) => r.suite === s && r.method === method);
      if (!mine.length) continue;
      const bySize = new Map<number, number[]>();
      for (const r of mine) bySize.set(r.size, [...(bySize.get(r.size) ?? []), r.score]);
      series.push({
        name: suites.length > 1 ? `${s} · ${METHOD_LABELS[method]}` : METHOD_LABELS[method],
        points: [...bySize.entries()].map(([size, scores]) => ({ x: size, y: scores.reduce((a, b) => a + b, 0) / scores.length })),
        ...(suites.length === 1 && METHOD_COLORS[method] ? { color: METHOD_COLORS[method] } : {}),
      });
    }
  }
  return lineChart({
    title: suite ? `Accuracy vs context length: ${suite}` : "Accuracy vs context length",
    xLabel: "context length (characters, log scale)",
    yLabel: "mean score",
    series,
    xLog: true,
    yMin: 0,
    yMax: 1,
    formatX: formatSize,
    formatY: (v) => v.toFixed(1),
  });
}

/** Tokens or wall time per task, one bar per method. */
export function perTaskChart(results: readonly BenchResult[], metric: "tokens" | "timeMs"): string {
  const rs = latestResults(results);
  const ids = [...new Set(rs.map((r) => r.taskId))];
  const methods = BENCH_METHODS.filter((m) => rs.some((r) => r.method === m));
  const value = (r: BenchResult) => (metric === "tokens" ? r.tokens : r.timeMs);
  return barChart({
    title: metric === "tokens" ? "Tokens per task (prompt + completion, sub-calls included)" : "Wall time per task",
    yLabel: metric === "tokens" ? "tokens" : "time",
    categories: ids,
    series: methods.map((m) => ({
      name: METHOD_LABELS[m],
      ...(METHOD_COLORS[m] ? { color: METHOD_COLORS[m] } : {}),
      values: ids.map((id) => {
        const r = rs.find((x) => x.taskId === id && x.method === m);
        return r ? value(r) : null;
      }),
    })),
    formatY: metric === "tokens" ? formatCount : formatMs,
  });
}

export interface NamedChart {
  /** A file name, e.g. "accuracy-niah.svg". */
  name: string;
  svg: string;
}

/** Every chart for a set of results: overall and per-suite accuracy, tokens and time per task. */
export function benchCharts(results: readonly BenchResult[]): NamedChart[] {
  const suites = SUITE_NAMES.filter((s) => results.some((r) => r.suite === s));
  return [
    { name: "accuracy.svg", svg: accuracyChart(results) },
    ...suites.map((s) => ({ name: `accuracy-${s}.svg`, svg: accuracyChart(results, s) })),
    { name: "tokens-per-task.svg", svg: perTaskChart(results, "tokens") },
    { name: "time-per-task.svg", svg: perTaskChart(results, "timeMs") },
  ];
}
