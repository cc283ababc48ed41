// The second wall of every REPL worker, browser or Node: what model-written Python could use to
// reach beyond the worker is taken away after Pyodide has started and before the first cell.
// The first wall is what the runtime enforces (the worker's Content-Security-Policy and the
// sandboxed frame in the browser, the permission model of the sandbox process in Node); this one
// holds where that one has a gap (Node before 25 has no network permission) or is missing (a
// host that does not send the CSP header). Each runtime lists its own globals
// (repl-browser-api.ts, lockdown.node.ts); what is done to them is the same, here.

/** Shadows each name on the object and removes it from every prototype that defines it, so a
 * getter cannot be fetched from the prototype and applied to the object. */
export function removeGlobals(target: object, names: readonly string[]): void {
  const holders: object[] = [];
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) holders.push(o);
  for (const name of names) {
    for (const holder of holders) {
      if (holder !== target && !Object.prototype.hasOwnProperty.call(holder, name)) continue;
      try {
        Object.defineProperty(holder, name, { value: undefined, configurable: false, writable: false });
      } catch {
        // Some properties cannot be redefined; the first wall still blocks what they would do.
      }
    }
  }
}

/** A stand-in for eval and the Function constructors: same name, throws instead of compiling. */
function refusal(name: string): (...args: unknown[]) => never {
  const refuse = function () {
    throw new EvalError(`${name}: compiling code from strings is disabled in the Python worker.`);
  };
  Object.defineProperty(refuse, "name", { value: name });
  return refuse;
}

/**
 * Without a CSP (or Node's --disallow-code-generation-from-strings), `import()` inside code
 * compiled from a string is a request no global can stop, and any JS function proxied into
 * Python offers `.constructor` (Function, or AsyncFunction for an async one). Pyodide does not
 * compile strings after boot (it runs under a CSP without 'unsafe-eval'), so taking these away
 * costs nothing.
 */
export function removeStringCompilation(): void {
  const scope = globalThis as unknown as Record<string, unknown>;
  const prototypes = [
    Function.prototype,
    Object.getPrototypeOf(async function () {}),
    Object.getPrototypeOf(function* () {}),
    Object.getPrototypeOf(async function* () {}),
  ] as object[];
  const names = ["Function", "AsyncFunction", "GeneratorFunction", "AsyncGeneratorFunction"];
  prototypes.forEach((proto, i) => {
    const stand = refusal(names[i]!);
    // `instanceof Function` keeps working: the stand-in shares the real prototype.
    Object.defineProperty(stand, "prototype", { value: proto });
    try {
      Object.defineProperty(proto, "constructor", { value: stand, configurable: false, writable: false });
    } catch {
      // as above
    }
    if (i === 0) scope.Function = stand;
  });
  scope.eval = refusal("eval");
}

/**
 * V8 hands the function set as `Error.prepareStackTrace` its call sites, whose getThis() and
 * getFunction() give each frame's receiver and function: the real global of a sloppy-mode frame,
 * and for a WebAssembly frame Pyodide's wasm instance (all its exports) and functions. `js.Error`
 * is the real Error, so a Python hook there would see them. V8 looks the hook up on Error like any
 * property (Error's own, then what it inherits), so an own property that cannot be changed shuts
 * every way of planting one: assignment, defineProperty, Function.prototype or Object.prototype.
 * Error.captureStackTrace is held the same way, so that no host code that calls it calls Python.
 * Each keeps its current value (none in the worker, unless a host tool set one before Python).
 */
export function lockStackTraceHooks(): void {
  const error = Error as unknown as Record<string, unknown>;
  for (const name of ["prepareStackTrace", "captureStackTrace"]) {
    const value = Object.prototype.hasOwnProperty.call(error, name) ? error[name] : undefined;
    try {
      Object.defineProperty(error, name, { value, writable: false, configurable: false, enumerable: false });
    } catch {
      // as above
    }
  }
}

type TimerStart = (handler: unknown, ms?: number, ...args: unknown[]) => unknown;

/**
 * Timers stay (asyncio needs them during a cell) but only take functions: a string would be
 * compiled like eval. Every timer a cell starts is remembered, and whatever is still pending when
 * the cell ends is cancelled (`cancel`): work scheduled "for later" (a timer that spins, or sends
 * something after the cell returned) never runs. `names` pairs each starter with its canceller.
 */
export function guardTimers(names: ReadonlyArray<readonly [start: string, clear: string]>): { cancel(): void } {
  const scope = globalThis as unknown as Record<string, unknown>;
  const pending = new Set<{ id: unknown; clear: (id: unknown) => void }>();
  for (const [startName, clearName] of names) {
    const start = scope[startName] as TimerStart | undefined;
    const clear = scope[clearName] as ((id: unknown) => void) | undefined;
    if (typeof start !== "function" || typeof clear !== "function") continue;
    const original = start.bind(globalThis);
    const cancelOne = clear.bind(globalThis);
    const once = startName !== "setInterval";
    const guarded = (handler: unknown, ms?: number, ...args: unknown[]) => {
      if (typeof handler !== "function") throw new EvalError(`${startName} with a string is disabled in the Python worker.`);
      const entry = { id: undefined as unknown, clear: cancelOne };
      // setImmediate takes no delay: its arguments start where the delay would be.
      const rest = startName === "setImmediate" ? (ms === undefined ? args : [ms, ...args]) : [ms, ...args];
      entry.id = (original as (...a: unknown[]) => unknown)(
        once
          ? (...a: unknown[]) => {
              pending.delete(entry);
              (handler as (...x: unknown[]) => void)(...a);
            }
          : handler,
        ...rest,
      );
      pending.add(entry);
      return entry.id;
    };
    Object.defineProperty(globalThis, startName, { value: guarded, configurable: false, writable: false });
  }
  return {
    cancel() {
      for (const { id, clear } of pending) clear(id);
      pending.clear();
    },
  };
}
