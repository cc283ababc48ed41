// Lets a worker start Pyodide from a WebAssembly.Module compiled earlier: by the page (browser
// workers), or by the Node worker thread itself while it was still loading (repl.node-worker.mjs).
// Pyodide has no option for it: its Emscripten settings always load pyodide.asm.wasm themselves,
// a browser through fetch and WebAssembly.instantiateStreaming, Node by reading the file and
// calling WebAssembly.instantiate on its bytes. So for the duration of one loadPyodide() call,
// that one load instantiates the given Module instead (the browser's fetch is answered with an
// empty body; Node's bytes are read anyway, but not compiled again).

const WASM_FILE = "pyodide.asm.wasm";

type Instantiate = typeof WebAssembly.instantiateStreaming;
type InstantiateBytes = (bytes: BufferSource, imports?: WebAssembly.Imports) => Promise<WebAssembly.WebAssemblyInstantiatedSource>;

/** A Module, or one still compiling (null: it could not be compiled; Pyodide compiles its own). */
export type SharedWasm = WebAssembly.Module | Promise<WebAssembly.Module | null>;

export async function withSharedWasm<T>(shared: SharedWasm | undefined, load: () => Promise<T>): Promise<T> {
  if (!shared) return load();
  const originalFetch = globalThis.fetch;
  const originalStreaming = WebAssembly.instantiateStreaming;
  const originalInstantiate = WebAssembly.instantiate;
  // Only the first load is Pyodide's own module; anything after it goes through untouched.
  let taken = false;
  let wasmUrl: string | null = null;
  const take = async (imports: WebAssembly.Imports | undefined, fallback: () => Promise<WebAssembly.WebAssemblyInstantiatedSource>) => {
    const module = await shared;
    if (!module) return fallback();
    try {
      const instance = await originalInstantiate.call(WebAssembly, module, imports);
      return { instance, module };
    } catch (err) {
      // A Module from another build does not link. Pyodide would only log the failure and wait
      // forever, so compile the real file instead.
      console.warn("The shared WebAssembly module did not fit; compiling pyodide.asm.wasm again.", err);
      return fallback();
    }
  };
  // Node: Pyodide reads the file and instantiates its bytes (a browser has fetched it by then).
  WebAssembly.instantiate = ((source: BufferSource | WebAssembly.Module, imports?: WebAssembly.Imports) => {
    if (taken || wasmUrl !== null || source instanceof WebAssembly.Module) return originalInstantiate.call(WebAssembly, source as BufferSource, imports);
    taken = true;
    return take(imports, () => (originalInstantiate as InstantiateBytes).call(WebAssembly, source, imports));
  }) as typeof WebAssembly.instantiate;
  // Browsers: Pyodide fetches the file and instantiates the response as it streams in.
  const streaming = typeof originalStreaming === "function" && typeof originalFetch === "function";
  if (streaming) {
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      if (wasmUrl === null && new URL(url, "http://x/").pathname.endsWith(`/${WASM_FILE}`)) {
        wasmUrl = url;
        return Promise.resolve(new Response(new ArrayBuffer(0)));
      }
      return originalFetch(input, init);
    }) as typeof fetch;
    WebAssembly.instantiateStreaming = (async (source: Response | PromiseLike<Response>, imports?: WebAssembly.Imports) => {
      if (taken || wasmUrl === null) return originalStreaming.call(WebAssembly, source, imports);
      taken = true;
      const url = wasmUrl;
      return take(imports, () => originalStreaming.call(WebAssembly, originalFetch(url), imports));
    }) as Instantiate;
  }
  try {
    return await load();
  } finally {
    WebAssembly.instantiate = originalInstantiate;
    if (streaming) {
      globalThis.fetch = originalFetch;
      WebAssembly.instantiateStreaming = originalStreaming;
    }
  }
}
