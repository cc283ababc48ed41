// The Python runtime's one object (`rlm_runtime.runtime`, workers/python/rlm_runtime/runtime.py),
// as the worker calls it. Its methods are looked up once, when Python has started, and held for
// the worker's life (each lookup makes a proxy, borrowed from the object's, which would otherwise
// pile up); nothing else in Python is called by name.
import type { PyodideInterface } from "pyodide";
import { RUNTIME_PACKAGE } from "./runtime-package.ts";

type PyCallable = ((...args: unknown[]) => unknown) & {
  callPromising(...args: unknown[]): Promise<unknown>;
};

type PyProxy = Record<string, unknown>;

export interface PythonRuntime {
  /** `context` from exactly these documents (names, sources and kinds already converted for Python). */
  loadDocuments(names: unknown, sources: unknown, shape: string, kinds: unknown): string;
  addDocument(name: string, source: unknown, kind: string): string;
  removeDocument(name: string): string;
  /** `context` becomes this text; returns its description as JSON. */
  setContext(text: string): string;
  /**
   * `(code, outputCap, cellId)`: a plain function returning the cell's result JSON, or None when
   * the cell's code awaited something (then `finishCell(cellId)`, a coroutine function, gives
   * that cell's and no other's). The caller chooses a promising call (JSPI) or a plain one.
   */
  runCell: PyCallable;
  finishCell: PyCallable;
  beginQuestion(historyJson: string): void;
  resetNamespace(): void;
  sourcePassages(rangesJson: string): string;
  probe(requestJson: string): string;
  recordSources(on: boolean): void;
  pythonVersion: string;
}

/** The runtime object of an interpreter that has imported the package (snapshot-boot.ts). */
export function bindRuntime(py: PyodideInterface): PythonRuntime {
  const module = py.pyimport(RUNTIME_PACKAGE) as unknown as PyProxy;
  const runtime = module.runtime as PyProxy;
  const method = (name: string) => runtime[name] as PyCallable;
  const loadDocuments = method("load_documents");
  const addDocument = method("add_document");
  const removeDocument = method("remove_document");
  const setContext = method("set_context");
  const beginQuestion = method("begin_question");
  const resetNamespace = method("reset_namespace");
  const sourcePassages = method("source_passages");
  const probe = method("probe");
  const recordSources = method("record_sources");
  const runCell = method("run_cell");
  const finishCell = method("finish_cell");
  const pythonVersion = String(runtime.python_version);
  return {
    loadDocuments: (names, sources, shape, kinds) => String(loadDocuments(names, sources, shape, kinds)),
    addDocument: (name, source, kind) => String(addDocument(name, source, kind)),
    removeDocument: (name) => String(removeDocument(name)),
    setContext: (value) => String(setContext(value)),
    runCell,
    finishCell,
    beginQuestion: (historyJson) => void beginQuestion(historyJson),
    resetNamespace: () => void resetNamespace(),
    sourcePassages: (rangesJson) => String(sourcePassages(rangesJson)),
    probe: (requestJson) => String(probe(requestJson)),
    recordSources: (on) => void recordSources(on),
    pythonVersion,
  };
}
