// Prints the ten slowest test files at the end of `vitest run`, so every CI log says where the
// suite's time went (issue 38: the suite must stay under 20 minutes, and a file that grows slow
// should be seen in the log of the change that made it slow, not found later by hand).
import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import type { Reporter, TestModule, Vitest } from "vitest/node";

/** One file's time: what the reporter needs of vitest's TestModule, so the table is testable. */
export interface FileTime {
  /** The file, relative to the repository. */
  file: string;
  /** The vitest project (unit, node, e2e). */
  project: string;
  /** Import, environment and setup, in ms: a slow import is time too. */
  loadMs: number;
  /** Tests and hooks (beforeAll starting browsers, servers, Python), in ms. */
  runMs: number;
  /** Tests in the file. */
  tests: number;
}

/**
 * The environment variable naming a file where the reporter also writes its files' times as JSON,
 * so scripts/test-all.ts can print one table for the two vitest processes it runs.
 */
export const SLOWEST_FILES_JSON = "RLM_SLOWEST_FILES_JSON";

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The table the reporter prints: the `count` slowest files, slowest first, one line each. */
export function slowestFilesTable(files: readonly FileTime[], count = 10): string {
  const slowest = [...files].sort((a, b) => b.loadMs + b.runMs - (a.loadMs + a.runMs)).slice(0, count);
  if (slowest.length === 0) return "";
  const total = files.reduce((sum, f) => sum + f.loadMs + f.runMs, 0);
  const lines = slowest.map((f) => {
    const name = `${f.project.padEnd(5)} ${f.file}`;
    const detail = `(${f.tests} test${f.tests === 1 ? "" : "s"}, load ${seconds(f.loadMs)})`;
    return `  ${seconds(f.loadMs + f.runMs).padStart(9)}  ${name}  ${detail}`;
  });
  return [`Slowest ${slowest.length} of ${files.length} test files (files together: ${seconds(total)}):`, ...lines].join("\n");
}

export function fileTime(module: TestModule, root: string): FileTime {
  const d = module.diagnostic();
  return {
    file: relative(root, module.moduleId),
    project: module.project.name,
    loadMs: d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration,
    runMs: d.duration,
    tests: [...module.children.allTests()].length,
  };
}

export default class SlowestFilesReporter implements Reporter {
  private root = process.cwd();

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files = testModules.map((m) => fileTime(m, this.root));
    const json = process.env[SLOWEST_FILES_JSON];
    if (json) writeFileSync(json, JSON.stringify(files));
    const table = slowestFilesTable(files);
    if (table) process.stdout.write(`\n${table}\n`);
  }
}
