// The Python runtime as files: the package workers/python/rlm_runtime/, which each entry reads its
// own way (runtime-package.browser.ts through the bundler, runtime-package.node.ts from disk) and
// snapshot-boot.ts installs. Pure code: the browser worker, the Node worker and the tests share it.

/** The package the worker imports, and whose `runtime` object it holds (python-runtime.ts). */
export const RUNTIME_PACKAGE = "rlm_runtime";

/** One file of the package: its path under workers/python/ ("rlm_runtime/cells.py") and its text. */
export interface RuntimeFile {
  path: string;
  source: string;
}

/** The package's Python files in one fixed order (by path), whoever listed them. */
export function packageFiles(files: Iterable<RuntimeFile>): RuntimeFile[] {
  const sorted = [...files].filter((f) => f.path.endsWith(".py") && !f.path.includes("__pycache__"));
  return sorted.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
