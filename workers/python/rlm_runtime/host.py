# The bridge to the JavaScript half. workers/repl-runtime.ts registers a module `_rlm_host` before
# this package is imported. It offers:
#   _rlm_host.mode            "jspi" or "sab"
#   _rlm_host.call(json)      -> Promise[str]    (jspi: awaited with run_sync)
#   _rlm_host.call_blocking(json) -> str         (sab: blocks on Atomics, checks interrupts)
#   _rlm_host.interrupts(on)  arms (or disarms) the host's interrupt buffer
#   _rlm_host.sleep_slice(ms) a short sleep that Stop can end
# A cell's start, end and result are said by the worker's JavaScript, never from here (see
# cells.run_cell): model code could fake or silence anything Python says.
# Every request is JSON {"kind": "llm"|"rlm", "prompts": [...], "model": str|None}; every reply is
# JSON {"results": [str, ...]} or {"interrupted": true}.

import json

import _rlm_host


class Interrupted(KeyboardInterrupt):
    pass


def request(kind, prompts, model, sources=None):
    message = {"kind": kind, "prompts": prompts, "model": model}
    if sources is not None:
        message["sources"] = sources
    text = json.dumps(message)
    if _rlm_host.mode == "jspi":
        from pyodide.ffi import run_sync
        reply = run_sync(_rlm_host.call(text))
    else:
        reply = _rlm_host.call_blocking(text)
    data = json.loads(str(reply))
    if data.get("interrupted"):
        raise Interrupted("the run was stopped while a sub-call was running")
    results = data.get("results")
    if not isinstance(results, list) or len(results) != len(prompts):
        return ["Error: the host returned a malformed reply"] * len(prompts)
    return [str(r) for r in results]


def interrupts(on):
    """Lets the host's interrupt (Stop, the time limit) reach Python while a cell's own code
    runs, and only then. Armed all the time, an interrupt sent just before a cell began landed
    in asyncio's machinery around it, and broke the runtime (the host rebuilt the worker) or was
    swallowed there (the cell then ran on past its limit). One sent outside a cell waits in the
    buffer, and the host clears it before its next call."""
    _rlm_host.interrupts(bool(on))


def sleep_slice(ms):
    _rlm_host.sleep_slice(ms)
