// Node-only helpers for the benchmark: results as a JSONL file, a repository read from disk,
// charts and the summary written next to the results. Kept out of src/bench/index.ts so the
// browser bundle never pulls in node:fs.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { trajectoryJsonl } from "../core/trajectory.ts";
import type { RlmResult, RunMetadataRecord } from "../core/types.ts";
import { benchCharts } from "./plots.ts";
import { formatSummaryTable, parseResultsJsonl, resultLine, summarize, type ResultStore } from "./results.ts";
import type { CodeRepoSource } from "./plan.ts";
import type { SourceTree } from "./suites/code-analysis.ts";
import type { BenchResult, BenchTask } from "./types.ts";

/** Results appended to a JSONL file, one line per task × method, written as each finishes. */
export class JsonlResultStore implements ResultStore {
  constructor(readonly path: string) {}

  async load(): Promise<BenchResult[]> {
    if (!existsSync(this.path)) return [];
    return parseResultsJsonl(readFileSync(this.path, "utf8"));
  }

  async append(result: BenchResult): Promise<void> {
    mkdirSync(dirname(this.path), { recursive: true });
    // A run killed mid-write leaves a line without its newline; start on a fresh line after it.
    let prefix = "";
    if (existsSync(this.path)) {
      const size = statSync(this.path).size;
      if (size > 0 && !readFileSync(this.path, "utf8").endsWith("\n")) prefix = "\n";
    }
    appendFileSync(this.path, prefix + resultLine(result));
  }
}

export interface ReadTreeOptions {
  /** Skip files larger than this (bundled builds, data). Default 200,000 bytes. */
  maxFileBytes?: number;
  /** Folder names never entered. Default: node_modules, .git, dist-like bundles are kept out by size. */
  skipDirs?: string[];
}

/** The text files under `dir` as path -> text (paths relative to `dir`, "/" separators). */
export function readSourceTree(dir: string, options: ReadTreeOptions = {}): SourceTree {
  const maxBytes = options.maxFileBytes ?? 200_000;
  const skip = new Set(options.skipDirs ?? ["node_modules", ".git"]);
  const tree: SourceTree = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) {
        if (!skip.has(entry.name)) walk(full);
        continue;
      }
      if (!entry.isFile() || statSync(full).size > maxBytes) continue;
      const bytes = readFileSync(full);
      if (bytes.subarray(0, 8192).includes(0)) continue; // binary (images, .docx, zips)
      tree[relative(dir, full).split(sep).join("/")] = bytes.toString("utf8");
    }
  };
  walk(dir);
  return tree;
}

/**
 * The default repository for the code suite: mammoth (docx → HTML converter, ~100 text files),
 * read from this project's node_modules. Its version is pinned by package-lock.json.
 */
export function defaultCodeRepo(): CodeRepoSource {
  const dir = fileURLToPath(new URL("../../node_modules/mammoth/", import.meta.url));
  const version = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: string }).version ?? "unknown";
  return { repo: `mammoth-${version}`, tree: readSourceTree(dir) };
}

/** Writes summary.md and the SVG charts into `dir`; returns the paths written. */
export function writeBenchReport(dir: string, results: readonly BenchResult[]): string[] {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  const summaryPath = join(dir, "summary.md");
  writeFileSync(summaryPath, `${formatSummaryTable(summarize(results))}\n`);
  written.push(summaryPath);
  for (const chart of benchCharts(results)) {
    const p = join(dir, chart.name);
    writeFileSync(p, chart.svg);
    written.push(p);
  }
  return written;
}

/** The file name a task's trajectory is saved under ("niah/28K/depth-50/0" -> "niah__28K__depth-50__0.jsonl"). */
export function trajectoryFileName(taskId: string): string {
  return `${taskId.replace(/[^\w.-]+/g, "__")}.jsonl`;
}

/**
 * An `onRlmResult` callback for runBench that saves each RLM run as a trajectory the official
 * rlm visualizer opens. `metadata` comes from runMetadata(root, sub, config) in src/core.
 */
export function trajectoryWriter(dir: string, metadata: RunMetadataRecord): (task: BenchTask, result: RlmResult) => void {
  return (task, result) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, trajectoryFileName(task.id)), trajectoryJsonl({ ...metadata, timestamp: new Date().toISOString() }, [result]));
  };
}
