// Lets a browser worker start Pyodide from a WebAssembly.Module the page already compiled.
// Pyodide has no option for it: its Emscripten settings always fetch pyodide.asm.wasm and call
// WebAssembly.instantiateStreaming. So for the duration of one loadPyodide() call, that one fetch
// is answered with an empty body and instantiateStreaming instantiates the given Module instead.

const WASM_FILE = "pyodide.asm.wasm";

type Instantiate = typeof WebAssembly.instantiateStreaming;

export async function withSharedWasm<T>(module: WebAssembly.Module | undefined, load: () => Promise<T>): Promise<T> {
  if (!module || typeof WebAssembly.instantiateStreaming !== "function" || typeof fetch !== "function") return load();
  const originalFetch = globalThis.fetch;
  const originalInstantiate = WebAssembly.instantiateStreaming;
  let wasmUrl: string | null = null;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (wasmUrl === null && new URL(url, "http://x/").pathname.endsWith(`/${WASM_FILE}`)) {
      wasmUrl = url;
      return Promise.resolve(new Response(new ArrayBuffer(0)));
    }
    return originalFetch(input, init);
  }) as typeof fetch;
  const instantiate = (async (_source: Response | PromiseLike<Response>, imports?: WebAssembly.Imports) => {
    try {
      const instance = await WebAssembly.instantiate(module, imports);
      return { instance, module };
    } catch (err) {
      // A Module from another build does not link. Pyodide would only log the failure and wait
      // forever, so fetch and compile the real file instead.
      if (wasmUrl === null) throw err;
      console.warn("The shared WebAssembly module did not fit; compiling pyodide.asm.wasm again.", err);
      return originalInstantiate(originalFetch(wasmUrl), imports);
    }
  }) as Instantiate;
  WebAssembly.instantiateStreaming = instantiate;
  try {
    return await load();
  } finally {
    globalThis.fetch = originalFetch;
    WebAssembly.instantiateStreaming = originalInstantiate;
  }
}
