// Lets a worker start Pyodide from a WebAssembly.Module compiled earlier: by the page (browser
// workers), or by the Node worker thread itself while it was still loading (repl-worker.node.mjs).
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
    if (taken || wasmUrl !== null || source instanceof WebAssembly.Module)
      return originalInstantiate.call(WebAssembly, source as BufferSource, imports);
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

/** Byte length up to which a module counts as one of the linker's wrappers (they are ~20–40). */
const WRAPPER_MAX_BYTES = 64;

/**
 * Pyodide's dynamic linker puts hundreds of JavaScript functions into the wasm function table at
 * every start, each wrapped in a tiny module of its own: `new WebAssembly.Module(bytes)` where
 * the bytes depend only on the function's signature (Emscripten's convertJsFunctionToWasm). A
 * compiled module is immutable and can be instantiated any number of times, so for the duration
 * of one loadPyodide() call each distinct wrapper is compiled once (about 20 ms of a restore's
 * CPU, on its critical path). Bigger modules are compiled as before.
 */
export async function withWrapperCache<T>(load: () => Promise<T>): Promise<T> {
  const Original = WebAssembly.Module;
  const cache = new Map<string, WebAssembly.Module>();
  WebAssembly.Module = new Proxy(Original, {
    construct(target, args: [BufferSource, ...unknown[]]) {
      const source = args[0];
      if (args.length !== 1 || !(source instanceof Uint8Array) || source.byteLength > WRAPPER_MAX_BYTES) {
        return Reflect.construct(target, args);
      }
      const key = source.join(",");
      let module = cache.get(key);
      if (!module) {
        module = Reflect.construct(target, args) as WebAssembly.Module;
        cache.set(key, module);
      }
      return module;
    },
  });
  try {
    return await load();
  } finally {
    WebAssembly.Module = Original;
  }
}
