// The baseline for "page load to Python ready": nothing but loadPyodide in a module worker,
// with the same options the REPL worker uses. Posts how long loadPyodide took inside the worker.
import { loadPyodide } from "pyodide";

self.onmessage = async (event: MessageEvent<{ indexURL: string }>) => {
  const started = performance.now();
  const py = await loadPyodide({ indexURL: event.data.indexURL, fullStdLib: false });
  const version = String(py.runPython("import sys; sys.version.split()[0]"));
  self.postMessage({ workerMs: performance.now() - started, version });
};
