// What crosses a Comlink boundary out of a worker, shared by the model workers (WebLLM, llama.cpp):
// errors as plain Errors whose name says what failed (Comlink drops subclasses), and calls to the
// page's callbacks that never raise when the page has let the callback go.

export function namedError(name: string, message: string): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}

/** Calls a page callback (a Comlink proxy returns a Promise); a released one is not ours to raise. */
export function callQuietly<A extends unknown[]>(fn: ((...args: A) => unknown) | undefined, ...args: A): void {
  if (!fn) return;
  try {
    void Promise.resolve(fn(...args)).catch(() => undefined);
  } catch {
    // the page released the callback
  }
}
