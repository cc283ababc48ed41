# The Python half of the REPL: the namespace model code runs in, the helpers it calls
# (llm_query, FINAL, answer, ...), output capture and error formatting.
#
# The JavaScript half (workers/repl-runtime.ts) registers a module `_rlm_host` before this file
# runs. It offers:
#   _rlm_host.mode            "jspi" or "sab"
#   _rlm_host.call(json)      -> Promise[str]    (jspi: awaited with run_sync)
#   _rlm_host.call_blocking(json) -> str         (sab: blocks on Atomics, checks interrupts)
# Every request is JSON {"kind": "llm"|"rlm", "prompts": [...], "model": str|None}; every reply is
# JSON {"results": [str, ...]} or {"interrupted": true}.

import ast
import codecs
import json
import sys
import time
import traceback
import types

import _rlm_host

RESERVED = (
    "context", "llm_query", "llm_query_batched", "rlm_query", "rlm_query_batched",
    "SHOW_VARS", "FINAL", "FINAL_VAR", "answer", "history", "cite",
)
CELL_FILENAME = "<cell>"
_OMITTED_MARK = "\n... [{} characters omitted] ...\n"


class _CappedWriter:
    """A text sink that keeps the first and last `cap // 2` characters.

    Why: a cell that prints a 50 MB context must not copy 50 MB into the wasm heap, the
    trajectory and the next prompt. The total is still counted so the model is told how much
    it missed.
    """

    def __init__(self, cap):
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head = []
        self.head_len = 0
        self.tail = []
        self.tail_len = 0
        self.total = 0

    def write(self, s):
        if not isinstance(s, str):
            s = str(s)
        n = len(s)
        self.total += n
        room = self.head_cap - self.head_len
        if room > 0:
            piece = s[:room]
            self.head.append(piece)
            self.head_len += len(piece)
            s = s[room:]
        if s:
            self.tail.append(s)
            self.tail_len += len(s)
            if self.tail_len > 2 * self.tail_cap:
                joined = "".join(self.tail)[-self.tail_cap:]
                self.tail = [joined]
                self.tail_len = len(joined)
        return n

    def flush(self):
        pass

    def drop_trailing_line(self, line):
        """Remove `line` if it is the last thing written (only while nothing was cut)."""
        if self.total != self.head_len + self.tail_len:
            return
        text = "".join(self.head) + "".join(self.tail)
        if text.endswith(line + "\n"):
            text = text[: -len(line) - 1]
            self.head, self.head_len, self.tail, self.tail_len = [text], len(text), [], 0
            self.total = len(text)

    def isatty(self):
        return False

    def getvalue(self):
        head = "".join(self.head)
        tail = "".join(self.tail)
        if len(tail) > self.tail_cap:
            tail = tail[-self.tail_cap:]
        omitted = self.total - len(head) - len(tail)
        if omitted > 0:
            return head + _OMITTED_MARK.format(omitted) + tail
        return head + tail


class _Answer(dict):
    """The `answer` dict protocol: setting answer["ready"] to a truthy value submits
    answer["content"] as the final answer."""

    def __setitem__(self, key, value):
        dict.__setitem__(self, key, value)
        if key == "ready" and value:
            _state.submit(self.get("content", ""))


class _State:
    def __init__(self):
        self.final = None
        self.final_set = False
        self.output_cap = 200_000
        self.interrupted = False

    def submit(self, value):
        self.final = value if isinstance(value, str) else _to_text(value)
        self.final_set = True


_state = _State()


def _to_text(value):
    if isinstance(value, str):
        return value
    try:
        if isinstance(value, (dict, list, tuple)):
            return json.dumps(value, ensure_ascii=False, default=str)
    except Exception:
        pass
    return str(value)


class Interrupted(KeyboardInterrupt):
    pass


def _host_request(kind, prompts, model, sources=None):
    message = {"kind": kind, "prompts": prompts, "model": model}
    if sources is not None:
        message["sources"] = sources
    request = json.dumps(message)
    if _rlm_host.mode == "jspi":
        from pyodide.ffi import run_sync
        reply = run_sync(_rlm_host.call(request))
    else:
        reply = _rlm_host.call_blocking(request)
    data = json.loads(str(reply))
    if data.get("interrupted"):
        raise Interrupted("the run was stopped while a sub-call was running")
    results = data.get("results")
    if not isinstance(results, list) or len(results) != len(prompts):
        return ["Error: the host returned a malformed reply"] * len(prompts)
    return [str(r) for r in results]


def _prompt_text(prompt):
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, (list, dict)):
        return json.dumps(prompt, ensure_ascii=False, default=str)
    return str(prompt)


def _safe_request(kind, prompts, model):
    if model is not None and not isinstance(model, str):
        model = str(model)
    try:
        sources = _evidence.prompt_sources(prompts)
    except Exception:  # recording what a prompt quotes must never cost the call itself
        sources = None
    try:
        return _host_request(kind, prompts, model, sources)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # transport failures become answers, never exceptions
        return ["Error: sub-call failed - {}: {}".format(type(exc).__name__, exc)] * len(prompts)


def llm_query(prompt, model=None):
    """Ask a sub-model one question. Returns its reply, or a string starting with 'Error:'."""
    return _safe_request("llm", [_prompt_text(prompt)], model)[0]


def llm_query_batched(prompts, model=None):
    """Ask a sub-model several independent questions; replies come back in the same order."""
    if isinstance(prompts, (str, bytes)):
        prompts = [prompts]
    prompts = [_prompt_text(p) for p in prompts]
    if not prompts:
        return []
    return _safe_request("llm", prompts, model)


def rlm_query(prompt, model=None):
    """Hand a sub-task to a child RLM with its own REPL (plain llm_query at the depth limit)."""
    return _safe_request("rlm", [_prompt_text(prompt)], model)[0]


def rlm_query_batched(prompts, model=None):
    if isinstance(prompts, (str, bytes)):
        prompts = [prompts]
    prompts = [_prompt_text(p) for p in prompts]
    if not prompts:
        return []
    return _safe_request("rlm", prompts, model)


def FINAL(value):
    """Submit `value` as the final answer."""
    _state.submit(value)


def FINAL_VAR(name):
    """Submit the variable called `name` as the final answer (a value is submitted as is)."""
    if not isinstance(name, str):
        _state.submit(name)
        return None
    key = name.strip().strip("'\"")
    if key in _ns and key not in RESERVED:
        _state.submit(_ns[key])
        return None
    names = _user_names()
    available = ", ".join(names) if names else "none yet"
    message = "Error: FINAL_VAR: no variable named {!r}. Variables: {}".format(key, available)
    print(message, file=sys.stderr)
    return None


def cite(start, end, doc=None):
    """Mark document[start:end] (character offsets) as a source of your answer. `doc` is the
    document's key in `context` (leave it out when there is one document)."""
    return _evidence.cite(start, end, doc)


class _NoEvidence:
    """What the runtime asks of the evidence recorder; rlm_evidence.py, loaded right after this
    file, replaces it with the real one."""

    enabled = False

    def begin_question(self):
        pass

    def begin_cell(self, code=""):
        pass

    def documents_changed(self):
        pass

    def rewrite(self, tree):
        return tree

    def prompt_sources(self, prompts):
        return None

    def cell_sources(self, stdout, final):
        return []

    def cite(self, start, end, doc=None):
        return None


_evidence = _NoEvidence()


def SHOW_VARS():
    """List the variables created so far, with their types and sizes."""
    names = _user_names()
    if not names:
        return "No variables yet. Create some in a ```repl block."
    return "Variables: " + ", ".join("{} ({})".format(n, _describe(_ns[n])) for n in names)


def _describe(value):
    kind = type(value).__name__
    try:
        if isinstance(value, (str, bytes, list, tuple, dict, set)):
            return "{}, len {}".format(kind, len(value))
    except Exception:
        pass
    return kind


def _user_names():
    return sorted(
        n for n, v in _ns.items()
        if not n.startswith("_") and n not in RESERVED and n not in _builtin_names
        and not isinstance(v, types.ModuleType)
    )


# --- the namespace -----------------------------------------------------------------------

_ns = {}
_builtin_names = set()
_context_value = ""
_history_value = []


def _fresh_answer():
    return _Answer(content="", ready=False)


def _install_scaffold():
    _ns["__name__"] = "__main__"
    _ns["context"] = _context_value
    _ns["history"] = _history_value
    _ns["llm_query"] = llm_query
    _ns["llm_query_batched"] = llm_query_batched
    _ns["rlm_query"] = rlm_query
    _ns["rlm_query_batched"] = rlm_query_batched
    _ns["SHOW_VARS"] = SHOW_VARS
    _ns["FINAL"] = FINAL
    _ns["FINAL_VAR"] = FINAL_VAR
    _ns["cite"] = cite
    if not isinstance(_ns.get("answer"), _Answer):
        previous = _ns.get("answer")
        fresh = _fresh_answer()
        if isinstance(previous, dict):
            # A cell wrote `answer = {...}`: keep its items and honour ready=True.
            dict.update(fresh, previous)
            if previous.get("ready"):
                _state.submit(previous.get("content", ""))
        _ns["answer"] = fresh


def reset_namespace():
    """Forget every variable; `context` stays loaded."""
    global _history_value
    _ns.clear()
    _history_value = []
    _evidence.begin_question()
    _install_scaffold()
    _builtin_names.update(("__name__", "__builtins__"))


def begin_question():
    """Start a new question: forget a previous submission, keep every variable."""
    _ns["answer"] = _fresh_answer()
    _state.final = None
    _state.final_set = False
    _evidence.begin_question()


def set_history(entries_json):
    global _history_value
    _history_value = json.loads(entries_json)
    _ns["history"] = _history_value


# --- loading the document ----------------------------------------------------------------

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_bytes(data):
    """Bytes to text the way an editor would: BOM first, then UTF-8, then Latin-1.

    Returns (text, encoding_name)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return data.decode(name, errors="replace"), name
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


# The session's documents, in the order they were added: name -> decoded text. `context` is
# built from them (one document: its str; several: a dict path -> text). Adding or removing one
# document decodes only that one; rebuilding `context` copies no text, only references.
_documents = {}
_encodings = {}


def set_context(value):
    """Replace `context` with a value (a child RLM's task text, tests); forgets the documents."""
    _documents.clear()
    _encodings.clear()
    _set_context_value(value)


def _set_context_value(value):
    global _context_value
    _context_value = value
    _ns["context"] = value
    _evidence.documents_changed()


def _read_source(src):
    """Bytes of a mounted file path, a JS Uint8Array or a bytes-like, decoded to text."""
    if isinstance(src, str):
        with open(src, "rb") as fh:
            raw = fh.read()
    elif hasattr(src, "to_bytes"):  # a JS Uint8Array
        raw = src.to_bytes()
    else:
        raw = bytes(src)
    return decode_bytes(raw)


def _rebuild_context(shape="auto"):
    texts = list(_documents.values())
    if shape == "auto":
        shape = "str" if len(texts) <= 1 else "dict"
    if shape == "str":
        value = texts[0] if len(texts) == 1 else "\n\n".join(texts)
    elif shape == "list":
        value = texts
    else:
        value = dict(_documents)
    _set_context_value(value)


def _documents_json():
    return json.dumps(describe_context([_encodings[n] for n in _documents]))


def add_document(name, src):
    """Decode one document and add it to `context` (a document of the same name is replaced)."""
    text, enc = _read_source(src)
    name = str(name)
    _documents.pop(name, None)
    _documents[name] = text
    _encodings[name] = enc
    _rebuild_context()
    return _documents_json()


def remove_document(name):
    """Drop one document from `context`; its text is freed once no variable holds it."""
    name = str(name)
    _documents.pop(name, None)
    _encodings.pop(name, None)
    _rebuild_context()
    return _documents_json()


def load_documents(names, sources, shape):
    """Build `context` from these documents only. `sources[i]` is bytes or a path to read.

    shape: "auto" (one document -> str, several -> dict path -> text), "str", "list", "dict".
    Returns a JSON description of what was loaded."""
    _documents.clear()
    _encodings.clear()
    for name, src in zip(list(names), sources):
        text, enc = _read_source(src)
        _documents[str(name)] = text
        _encodings[str(name)] = enc
        del text
    _rebuild_context(shape)
    return _documents_json()


def context_json():
    return json.dumps(describe_context())


def describe_context(encodings=None):
    value = _context_value
    if isinstance(value, str):
        info = {"type": "str", "total_chars": len(value), "items": 1}
    elif isinstance(value, dict):
        lengths = [len(v) if isinstance(v, str) else len(_to_text(v)) for v in value.values()]
        info = {"type": "dict", "total_chars": sum(lengths), "items": len(lengths),
                "keys_preview": [str(k) for k in list(value.keys())[:20]]}
    elif isinstance(value, list):
        lengths = [len(v) if isinstance(v, str) else len(_to_text(v)) for v in value]
        info = {"type": "list", "total_chars": sum(lengths), "items": len(lengths)}
    else:
        info = {"type": type(value).__name__, "total_chars": len(_to_text(value)), "items": 1}
    if encodings is not None:
        info["encodings"] = encodings
    return info


# --- running a cell ----------------------------------------------------------------------

def _format_error(exc, code):
    name = type(exc).__name__
    message = str(exc)
    head = "{}: {}".format(name, message) if message else name
    lineno = None
    if isinstance(exc, SyntaxError) and exc.filename == CELL_FILENAME:
        lineno = exc.lineno
        head = "SyntaxError: {}".format(exc.msg)
    else:
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename == CELL_FILENAME:
                lineno = frame.lineno
    if lineno:
        lines = code.splitlines()
        if 0 < lineno <= len(lines):
            return "{}\n  at line {}: {}".format(head, lineno, lines[lineno - 1].strip())
    return head


def _summarise_value(value):
    """A short, JSON-safe picture of a variable for the trajectory."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value if len(value) <= 200 else "<str, {} chars: {!r}...>".format(len(value), value[:80])
    if isinstance(value, (list, tuple, dict, set)):
        text = _to_text(value) if not isinstance(value, set) else repr(value)
        if len(text) <= 200:
            return json.loads(text) if isinstance(value, (list, dict)) and text[:1] in "[{" else text
        return "<{}, len {}>".format(type(value).__name__, len(value))
    if callable(value):
        return "<function '{}'>".format(getattr(value, "__name__", "?"))
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def _locals_snapshot():
    out = {}
    for name in _user_names():
        try:
            out[name] = _summarise_value(_ns[name])
        except Exception:
            out[name] = "<unprintable>"
    return out


def _compile_cell(code):
    """Compile a cell; a bare last expression is echoed like in a notebook, because small
    models often end a cell with `len(context)` and expect to see the number."""
    tree = _evidence.rewrite(ast.parse(code, filename=CELL_FILENAME, mode="exec"))
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, CELL_FILENAME, "exec", flags=flags)
    tail = compile(last, CELL_FILENAME, "eval", flags=flags) if last is not None else None
    return body, tail


async def _run(code_obj):
    result = eval(code_obj, _ns)
    if isinstance(result, types.CoroutineType):
        result = await result
    return result


async def run_cell(code, output_cap):
    """Run one cell. Returns JSON: stdout, stderr, final_answer, locals, execution_time,
    error (exception type or null), interrupted."""
    _state.final = None
    _state.final_set = False
    out = _CappedWriter(int(output_cap))
    err = _CappedWriter(int(output_cap))
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    started = time.perf_counter()
    error = None
    interrupted = False
    _evidence.begin_cell(code)
    try:
        body, tail = _compile_cell(code)
        await _run(body)
        if tail is not None:
            value = await _run(tail)
            if value is not None:
                print(repr(value))
    except KeyboardInterrupt:
        interrupted = True
        error = "KeyboardInterrupt"
        err.drop_trailing_line("KeyboardInterrupt")  # Pyodide echoes the bare name when JS raises it
        err.write("KeyboardInterrupt: the cell was stopped (Stop button or time limit). "
                  "Variables from earlier cells are kept.\n")
    except SystemExit as exc:
        error = "SystemExit"
        err.write("SystemExit: {} (exit() does nothing here; the REPL keeps running)\n".format(exc.code))
    except BaseException as exc:  # noqa: BLE001 - report everything, keep the REPL alive
        error = type(exc).__name__
        err.write(_format_error(exc, code) + "\n")
    finally:
        sys.stdout, sys.stderr = saved
        _install_scaffold()
    elapsed = time.perf_counter() - started
    final = _state.final if _state.final_set else None
    _state.final = None
    _state.final_set = False
    try:
        snapshot = _locals_snapshot()
    except Exception:
        snapshot = {}
    stdout = out.getvalue()
    try:
        sources = _evidence.cell_sources(stdout, final)
    except BaseException:  # noqa: BLE001 - the cell's result matters more than its sources
        sources = []
    return json.dumps({
        "stdout": stdout,
        "stderr": err.getvalue(),
        "final_answer": final,
        "locals": snapshot,
        "execution_time": elapsed,
        "error": error,
        "interrupted": interrupted,
        "sources": sources,
    }, ensure_ascii=False, default=str)


def variable_names():
    return json.dumps(_user_names())


def _interruptible_sleep(seconds):
    """time.sleep in short slices, checking for Stop between them.

    Why: Pyodide's own sleep either suspends the stack (JSPI) or blocks in one piece, and in
    both cases a KeyboardInterrupt waits until the whole sleep is over."""
    seconds = float(seconds)
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        _rlm_host.sleep_slice(min(left, 0.05) * 1000.0)


time.sleep = _interruptible_sleep
reset_namespace()
