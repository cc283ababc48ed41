// Probes of the inner wall through V8's stack-trace API (issue 32 §3). `js.Error` is the worker's
// real Error: a Python function set as Error.prepareStackTrace is handed V8's call sites, whose
// getThis() and getFunction() give the receiver and the function of every sloppy-mode frame on
// the stack. Pyodide's loader ran as a sloppy script, so the receiver of its frames was the real
// `globalThis`, which `import js` promises not to show. Each probe prints LEAK-ATTEMPT-OK when it
// got a receiver or a function back (or replaced a hook the host's own code would call), BLOCKED
// otherwise; the prelude and verdict lines are the attack catalogue's (tests/e2e/sandbox/attacks.ts).
import type { Attack } from "../../e2e/sandbox/attacks.ts";

/**
 * Defines `hook` (a Python prepareStackTrace that keeps what the call sites give), `trigger()`
 * (formats a stack while the hook is in place) and `verdict()`. The hook and anything the probe
 * planted are taken away again in `undo`, so one probe cannot help the next.
 */
function callSiteProbe(name: string, plant: string, undo: string): Attack {
  return {
    name,
    outcome: "blocked",
    body: `
seen = []
def prepare(err, sites):
    for site in sites:
        seen.append(site.getThis())
        seen.append(site.getFunction())
    return "formatted by Python"
hook = create_proxy(prepare)
try:
${indent(plant)}
    stack = js.Error.new("probe").stack
finally:
${indent(undo)}
got = [v for v in seen if v is not None]
if not got:
    raise Blocked(f"{len(seen) // 2} call sites, no receiver or function (stack: {str(stack)[:60]!r})")
is_global = [v for v in got if getattr(v, "globalThis", None) is not None]
leaked(ATTACK, f"{len(got)} receivers or functions, the real global among them: {bool(is_global)}")`,
  };
}

function indent(code: string): string {
  return code
    .trim()
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}

const FORGET_HOOK = `js.Reflect.deleteProperty(js.Error, "prepareStackTrace")`;

export const STACK_TRACE_PROBES: Attack[] = [
  callSiteProbe("call sites through Error.prepareStackTrace", "js.Error.prepareStackTrace = hook", FORGET_HOOK),
  callSiteProbe(
    "call sites through Object.defineProperty on Error",
    `js.Object.defineProperty(js.Error, "prepareStackTrace", obj(value=hook, writable=True, configurable=True))`,
    FORGET_HOOK,
  ),
  callSiteProbe(
    "call sites through Reflect.defineProperty on Error",
    `
if not js.Reflect.defineProperty(js.Error, "prepareStackTrace", obj(get=create_proxy(lambda: hook), configurable=True)):
    raise Blocked("Reflect.defineProperty refused")`,
    FORGET_HOOK,
  ),
  // V8 reads the hook with an ordinary property lookup on Error, so what Error inherits counts.
  callSiteProbe(
    "call sites through what Error inherits (Function.prototype)",
    "js.Function.prototype.prepareStackTrace = hook",
    `js.Reflect.deleteProperty(js.Function.prototype, "prepareStackTrace")`,
  ),
  callSiteProbe(
    "call sites through a subclass of Error (RangeError)",
    "js.RangeError.prepareStackTrace = hook\njs.RangeError.new('sub').stack",
    `js.Reflect.deleteProperty(js.RangeError, "prepareStackTrace")`,
  ),
  {
    name: "a global compiled through js.Error.constructor",
    outcome: "blocked",
    body: `
found = js.Error.constructor("return globalThis")()
leaked(ATTACK, f"the global: {getattr(found, 'globalThis', None) is not None}")`,
  },
  {
    // The host's code calling Error.captureStackTrace would call Python instead, with its own arguments.
    name: "Error.captureStackTrace replaced by Python",
    outcome: "blocked",
    body: `
original = js.Error.captureStackTrace
calls = []
def capture(*args):
    calls.append(args)
planted = create_proxy(capture)
try:
    js.Error.captureStackTrace = planted
    replaced = js.Error.captureStackTrace == planted
finally:
    js.Reflect.set(js.Error, "captureStackTrace", original)
if not replaced:
    raise Blocked("the hook stayed the host's")
leaked(ATTACK, "Error.captureStackTrace is Python's")`,
  },
];
