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


# FINAL(x) with a bare name x, at the top level of a cell (or written as text: the host runs it
# as a cell) is rewritten to FINAL.by_name("x"): the variable's value when x is one, otherwise
# the word itself. In the paper and the canonical harness FINAL(x) is the text x, and small
# models answer FINAL(Yes), FINAL(Paris), FINAL(CASE_DONE) often; without this, each was a
# NameError. A name that only looks like a variable (result, answer, …) or that a cell assigned
# is never submitted as a word: the model meant a variable that is not there (M03c/d).
_ANSWER_VARIABLE_WORDS = frozenset((
    "answer", "answers", "ans", "answer_text", "result", "results", "res", "result_text", "output", "out",
    "final", "final_answer", "finalanswer", "final_result", "value", "val", "response", "reply", "var",
    "variable", "best_answer", "my_answer", "count", "total", "summary",
))
_assigned_names = set()  # every name a cell of this namespace assigned


def _names_a_variable(name):
    return (name in _assigned_names or name.lower() in _ANSWER_VARIABLE_WORDS
            or (len(name) == 1 and name.islower()))


def _final_by_name(name):
    """FINAL(name) with a bare name: its value, the word itself, or an error that lists the
    variables (never the word "result" for a missing variable `result`)."""
    value = _ns.get(name, _final_by_name)  # the function itself marks "no such name"
    if name == "answer" and isinstance(value, _Answer):
        if value.get("content", "") not in ("", None):
            _state.submit(value.get("content"))
            return None
    elif value is not _final_by_name and (name not in RESERVED or name == "answer"):
        # A variable, or `answer` a cell rebound to its own value (answer = m.group(1); FINAL(answer)).
        _state.submit(value)
        return None
    elif not _names_a_variable(name):
        _state.submit(name)
        return None
    names = _user_names()
    print("Error: FINAL({0}): there is no variable named {0!r}, so nothing was submitted. Variables: {1}. "
          "Put the answer in a variable first, or write FINAL(\"the answer itself\").".format(
              name, ", ".join(names) if names else "none yet"), file=sys.stderr)
    return None


FINAL.by_name = _final_by_name


class _BareFinalNames(ast.NodeTransformer):
    """FINAL(name) -> FINAL.by_name("name") where `name` is read from the namespace (the cell's
    top level, not inside a function, class, lambda or comprehension, whose names are local)."""

    def _keep(self, node):
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _keep
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _keep

    def visit_Call(self, node):
        self.generic_visit(node)
        func, args = node.func, node.args
        if (isinstance(func, ast.Name) and func.id == "FINAL" and len(args) == 1 and not node.keywords
                and isinstance(args[0], ast.Name) and not args[0].id.startswith("_")
                and (args[0].id not in RESERVED or args[0].id == "answer")):
            by_name = ast.Attribute(value=ast.Name(id="FINAL", ctx=ast.Load()), attr="by_name", ctx=ast.Load())
            return ast.copy_location(ast.Call(func=by_name, args=[ast.Constant(value=args[0].id)], keywords=[]), node)
        return node


def _bare_finals(tree):
    """Notes the names the cell assigns, then rewrites its bare-name FINAL calls."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            _assigned_names.add(node.id)
    if "FINAL" not in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}:
        return tree
    return ast.fix_missing_locations(_BareFinalNames().visit(tree))


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

    def place(self, ranges):
        return []


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
    _ns.update(_HELPERS)  # search, map_query (section "helpers for small models")
    note = ""
    if not isinstance(_ns.get("answer"), _Answer):
        previous = _ns.get("answer")
        fresh = _fresh_answer()
        if isinstance(previous, dict):
            # A cell wrote `answer = {...}`: keep its items and honour ready=True.
            dict.update(fresh, previous)
            if previous.get("ready"):
                _state.submit(previous.get("content", ""))
        elif previous is not None and "answer" in _ns:
            # `answer = "Paris"`: the model meant its answer. Keep it where the dict protocol
            # reads it, and say how to submit it (issue 25).
            dict.__setitem__(fresh, "content", _to_text(previous))
            note = ('Note: `answer` is a dict here, not a variable for your answer: your value was kept as '
                    'answer["content"]. To submit it, run answer["ready"] = True (or FINAL(answer["content"])).\n')
        _ns["answer"] = fresh
    return note


def reset_namespace():
    """Forget every variable; `context` stays loaded."""
    global _history_value
    _ns.clear()
    _assigned_names.clear()
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
_loaded_documents = {}
_encodings = {}


def set_context(value):
    """Replace `context` with a value (a child RLM's task text, tests); forgets the documents."""
    _loaded_documents.clear()
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
    texts = list(_loaded_documents.values())
    if shape == "auto":
        shape = "str" if len(texts) <= 1 else "dict"
    if shape == "str":
        value = texts[0] if len(texts) == 1 else "\n\n".join(texts)
    elif shape == "list":
        value = texts
    else:
        value = dict(_loaded_documents)
    _set_context_value(value)


def _documents_json():
    return json.dumps(describe_context([_encodings[n] for n in _loaded_documents]))


def add_document(name, src):
    """Decode one document and add it to `context` (a document of the same name is replaced)."""
    text, enc = _read_source(src)
    name = str(name)
    _loaded_documents.pop(name, None)
    _loaded_documents[name] = text
    _encodings[name] = enc
    _rebuild_context()
    return _documents_json()


def remove_document(name):
    """Drop one document from `context`; its text is freed once no variable holds it."""
    name = str(name)
    _loaded_documents.pop(name, None)
    _encodings.pop(name, None)
    _rebuild_context()
    return _documents_json()


def load_documents(names, sources, shape):
    """Build `context` from these documents only. `sources[i]` is bytes or a path to read.

    shape: "auto" (one document -> str, several -> dict path -> text), "str", "list", "dict".
    Returns a JSON description of what was loaded."""
    _loaded_documents.clear()
    _encodings.clear()
    for name, src in zip(list(names), sources):
        text, enc = _read_source(src)
        _loaded_documents[str(name)] = text
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
    tree = _evidence.rewrite(_bare_finals(ast.parse(code, filename=CELL_FILENAME, mode="exec")))
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


async def run_cell(code, output_cap, cell_id=0):
    """Run one cell. Returns JSON: stdout, stderr, final_answer, locals, execution_time,
    error (exception type or null), interrupted."""
    saved = sys.stdout, sys.stderr
    try:
        return await _run_cell(code, output_cap, cell_id, saved)
    except KeyboardInterrupt:
        # The host's interrupt landed just as the cell's code ended, as it was disarmed.
        return _interrupted_cell(cell_id, saved)


async def _run_cell(code, output_cap, cell_id, saved):
    _announce_cell(cell_id)
    _take_final()  # a FINAL set outside any cell is not this one's
    out = _CappedWriter(int(output_cap))
    err = _CappedWriter(int(output_cap))
    started = time.perf_counter()
    error = None
    interrupted = False
    try:
        sys.stdout, sys.stderr = out, err
        await _run_armed(code)
    except KeyboardInterrupt:
        interrupted = True
        error = "KeyboardInterrupt"
        err.drop_trailing_line("KeyboardInterrupt")  # Pyodide echoes the bare name when JS raises it
        # Python cannot tell who raised it; the host knows (Stop, the time limit, or the code
        # itself) and puts its own explanation in place of this line.
        err.write(_INTERRUPTED_LINE)
    except SystemExit as exc:
        error = "SystemExit"
        if isinstance(exc, _ProcessExitRefused):
            err.write("SystemExit: os._exit({}) would end the Python process; it does nothing here, "
                      "the REPL keeps running.\n".format(exc.code))
        else:
            err.write("SystemExit: {} (exit() does nothing here; the REPL keeps running)\n".format(exc.code))
    except BaseException as exc:  # noqa: BLE001 - report everything, keep the REPL alive
        error = type(exc).__name__
        err.write(_format_error(exc, code) + error_hint(exc) + "\n")
    finally:
        sys.stdout, sys.stderr = saved
        note = _install_scaffold()
        if not _state.final_set:  # a cell that submitted needs no advice on how to submit
            err.write(note)
    elapsed = time.perf_counter() - started
    final = _take_final()
    try:
        snapshot = _locals_snapshot()
    except Exception:
        snapshot = {}
    stdout = out.getvalue()
    try:
        sources = _evidence.cell_sources(stdout, final)
    except BaseException:  # noqa: BLE001 - the cell's result matters more than its sources
        sources = []
    return _finish_cell(cell_id, {
        "stdout": stdout,
        "stderr": err.getvalue(),
        "final_answer": final,
        "locals": snapshot,
        "execution_time": elapsed,
        "error": error,
        "interrupted": interrupted,
        "sources": sources,
    })


_INTERRUPTED_LINE = "KeyboardInterrupt: the cell was interrupted. Variables from earlier cells are kept.\n"


async def _run_armed(code):
    """The cell's own code, with the host's interrupt armed (see _interrupts)."""
    _interrupts(True)
    try:
        _evidence.begin_cell(code)
        body, tail = _compile_cell(rewrite_final_var_assignments(code))
        await _run(body)
        if tail is not None:
            value = await _run(tail)
            if value is not None:
                print(repr(value))
    finally:
        _interrupts(False)


def _interrupts(on):
    """Lets the host's interrupt (Stop, the time limit) reach Python while a cell's own code
    runs, and only then. Armed all the time, an interrupt sent just before a cell began landed
    in asyncio's machinery around it, and broke the runtime (the host rebuilt the worker) or was
    swallowed there (the cell then ran on past its limit). One sent outside a cell waits in the
    buffer, and the host clears it before its next call."""
    _rlm_host.interrupts(bool(on))


def _announce_cell(cell_id):
    try:
        _rlm_host.cell_started(cell_id)
    except Exception:
        pass


def _take_final():
    """The FINAL answer set since the last call, if any; the slot is emptied."""
    final = _state.final if _state.final_set else None
    _state.final, _state.final_set = None, False
    return final


def _interrupted_cell(cell_id, saved):
    _interrupts(False)
    sys.stdout, sys.stderr = saved
    _install_scaffold()
    _take_final()
    return _finish_cell(cell_id, {
        "stdout": "", "stderr": _INTERRUPTED_LINE, "final_answer": None, "locals": {},
        "execution_time": 0, "error": "KeyboardInterrupt", "interrupted": True, "sources": [],
    })


def _finish_cell(cell_id, fields):
    result = json.dumps(fields, ensure_ascii=False, default=str)
    try:
        _rlm_host.cell_finished(cell_id, result)
    except Exception:
        pass
    return result


def variable_names():
    return json.dumps(_user_names())


# --- helpers for small models (issue 13) -----------------------------------------------
# What a 0.5B-8B root needs to act in one call (small-models.md M12, M13): search() and
# map_query(), error messages that list what exists, FINAL_VAR("x") = value understood, and
# probes the host uses without disturbing the model's namespace (a syntax check, reading
# `context` piece by piece for the harness's own map-reduce). The host passes the sub-model's
# limits with the "configure" probe; until then the defaults fit a 4,096-token sub-model.

import importlib.util
import re as _re

_helper_config = {
    "chunk_chars": 8000,        # characters of `context` per map_query prompt
    "max_chunks": 40,           # map_query refuses more parts than this (each is a sub-call)
    "search_max_hits": 20,
    "search_output_chars": 4000,
}

# Modules worth naming when an import fails; only those Pyodide really has are listed.
_USEFUL_MODULES = (
    "re", "json", "math", "collections", "itertools", "functools", "statistics", "string",
    "textwrap", "difflib", "datetime", "random", "heapq", "bisect", "csv", "html", "unicodedata",
)
_available_modules = None

_NOT_FOUND = "NOT FOUND"
_MAP_PROMPT = (
    "Here is part {part} of {parts} of a document{where}.\n<<<\n{text}\n>>>\n"
    "Question: {question}\n"
    "Answer from this part only, briefly. If this part does not contain the answer, reply exactly: " + _NOT_FOUND
)


def configure_helpers(options_json):
    """Set the helpers' limits from the host (sub-model window, sub-call budget). Returns them."""
    options = json.loads(options_json)
    for key in ("chunk_chars", "max_chunks", "search_max_hits", "search_output_chars"):
        if isinstance(options.get(key), int) and options[key] > 0:
            _helper_config[key] = options[key]
    return json.dumps(_helper_config)


def _documents():
    """(name, text) pairs of `context`: one unnamed str, or every document of a dict or list."""
    value = _ns.get("context", _context_value)
    if isinstance(value, str):
        return [(None, value)]
    if isinstance(value, dict):
        return [(str(k), v if isinstance(v, str) else _to_text(v)) for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [(str(i), v if isinstance(v, str) else _to_text(v)) for i, v in enumerate(value)]
    return [(None, _to_text(value))]


class _Hits(list):
    """search() results: a list of dicts {n, doc, start, end, text} that prints as numbered
    snippets, so `print(search("x"))` is useful as it is."""

    note = ""

    def __str__(self):
        lines = []
        for h in self:
            where = "offset {}".format(h["start"]) if h["doc"] is None else "{}, offset {}".format(h["doc"], h["start"])
            lines.append("{}. [{}] {}".format(h["n"], where, h["text"]))
        text = "\n".join(lines)
        limit = _helper_config["search_output_chars"]
        if len(text) > limit:
            text = text[:limit] + " …"
        return (text + ("\n" + self.note if self.note else "")).strip()

    __repr__ = __str__


def _compile_pattern(pattern, ignore_case):
    flags = _re.IGNORECASE if ignore_case else 0
    try:
        return _re.compile(pattern, flags)
    except _re.error:
        return _re.compile(_re.escape(pattern), flags)  # "price ($)" meant literally


def search(pattern, window=200, max_hits=None, ignore_case=True):
    """Find `pattern` (a regex, or plain text) in `context`. Returns numbered snippets with
    `window` characters on each side and their offsets (and document names for a dict)."""
    if not isinstance(pattern, str) or not pattern:
        raise ValueError("search(pattern): pattern must be a non-empty string, e.g. search('deadline')")
    window = max(0, min(int(window), 2000))
    limit = int(max_hits or _helper_config["search_max_hits"])
    rx = _compile_pattern(pattern, ignore_case)
    hits = _Hits()
    total = 0
    for doc, text in _documents():
        for m in rx.finditer(text):
            total += 1
            if len(hits) < limit:
                a, b = max(0, m.start() - window), min(len(text), m.end() + window)
                snippet = text[a:b].replace("\n", " ")
                hits.append({"n": len(hits) + 1, "doc": doc, "start": m.start(), "end": m.end(), "text": snippet})
            if total >= 10000:
                break
    if not hits:
        size = sum(len(t) for _, t in _documents())
        hits.note = "No match for {!r} in context ({} characters). Try other words or a shorter pattern.".format(pattern, size)
    elif total > len(hits):
        hits.note = "… {} more matches (pass max_hits=… or a narrower pattern).".format(total - len(hits) if total < 10000 else "many")
    return hits


def _piece_end(body, start, chunk_chars):
    """Where the piece from `start` ends: at most chunk_chars on, after the last line break in
    its last fifth (else the last space in its last tenth). A hard cut split records, sentences
    and needles between two pieces, and neither piece's answer then had them whole."""
    end = start + chunk_chars
    if end >= len(body):
        return len(body)
    newline = body.rfind("\n", start + chunk_chars * 4 // 5, end)
    if newline >= 0:
        return newline + 1
    space = body.rfind(" ", start + chunk_chars * 9 // 10, end)
    return space + 1 if space >= 0 else end


def _pieces(chunk_chars, text=None):
    """(doc, start, end, text) pieces of `context` (or of `text`) of at most chunk_chars each,
    cut at a line break or a space near the limit when there is one."""
    docs = [(None, text)] if text is not None else _documents()
    for doc, body in docs:
        start = 0
        while True:
            end = _piece_end(body, start, chunk_chars)
            yield doc, start, end, body[start:end]
            if end >= len(body):
                break
            start = end


class _Answers(list):
    """map_query() results: a list of dicts {part, doc, start, end, answer}; printing shows
    the parts that found something."""

    def __str__(self):
        found = [a for a in self if _NOT_FOUND not in a["answer"].upper()]
        lines = []
        for a in found:
            where = "" if a["doc"] is None else a["doc"] + ", "
            lines.append("part {} ({}chars {}-{}): {}".format(a["part"], where, a["start"], a["end"], a["answer"].strip()))
        lines.append("{} of {} parts found something.".format(len(found), len(self)))
        return "\n".join(lines)

    __repr__ = __str__


def map_query(question, chunk_chars=None, text=None):
    """Ask a helper model `question` about every part of `context` (or of `text`), in one
    batch. Returns one answer per part; parts without the answer say NOT FOUND."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError("map_query(question): question must be a non-empty string")
    size = int(chunk_chars or _helper_config["chunk_chars"])
    if size < 200:
        raise ValueError("map_query: chunk_chars must be at least 200")
    pieces = list(_pieces(size, text if isinstance(text, str) else None))
    cap = _helper_config["max_chunks"]
    if len(pieces) > cap:
        raise ValueError(
            "map_query: that is {} parts of {} characters, more than the {} allowed. Narrow it first: "
            "hits = search('word'); then map_query(question, text=context[start:end]).".format(len(pieces), size, cap)
        )
    prompts = [
        _MAP_PROMPT.format(part=i + 1, parts=len(pieces), where="" if doc is None else " ({})".format(doc), text=body, question=question)
        for i, (doc, start, end, body) in enumerate(pieces)
    ]
    replies = llm_query_batched(prompts)
    return _Answers(
        {"part": i + 1, "doc": doc, "start": start, "end": end, "answer": reply}
        for i, ((doc, start, end, _body), reply) in enumerate(zip(pieces, replies))
    )


_HELPERS = {"search": search, "map_query": map_query}
RESERVED = RESERVED + tuple(_HELPERS)


# FINAL_VAR("x") = value is a SyntaxError in Python; small models write it again and again
# (M03e). It is rewritten on the same line, so error line numbers still match the model's code.
_FINAL_VAR_ASSIGN = _re.compile(r"""^(\s*)FINAL_VAR\(\s*["']?([A-Za-z_]\w*)["']?\s*\)\s*=(?!=)\s*(.+?)\s*$""")


def rewrite_final_var_assignments(code):
    """`FINAL_VAR("x") = expr` -> `x = expr; FINAL_VAR("x")` (FINAL(expr) for reserved names)."""
    if "FINAL_VAR" not in code:
        return code
    out = []
    for line in code.split("\n"):
        m = _FINAL_VAR_ASSIGN.match(line)
        if not m:
            out.append(line)
        elif m.group(2) in RESERVED:
            out.append("{}FINAL({})".format(m.group(1), m.group(3)))
        else:
            out.append('{0}{1} = {2}; FINAL_VAR("{1}")'.format(m.group(1), m.group(2), m.group(3)))
    return "\n".join(out)


def _modules_here():
    global _available_modules
    if _available_modules is None:
        _available_modules = [m for m in _USEFUL_MODULES if importlib.util.find_spec(m) is not None]
    return _available_modules


def error_hint(exc):
    """A line to add to a NameError or ImportError: what does exist (M12)."""
    if isinstance(exc, ImportError):
        missing = getattr(exc, "name", None) or "that module"
        return ("\nModule {!r} is not available here and nothing can be installed. "
                "You can import: {}.".format(missing, ", ".join(_modules_here())))
    if isinstance(exc, NameError):
        name = getattr(exc, "name", None)
        if name in _modules_here():
            return "\n`{0}` is a module: add `import {0}` at the top of the block.".format(name)
        helpers = ["context", "llm_query", "llm_query_batched", "rlm_query", "search", "map_query",
                   "SHOW_VARS", "FINAL", "FINAL_VAR", "answer"]
        mine = _user_names()
        return "\nNames you can use: {}. Your variables: {}.".format(", ".join(helpers), ", ".join(mine) if mine else "none yet")
    return ""


# --- probes: the host's own questions, a worker call of their own (never a cell) ---------------
# ReplWorkerApi.probe(request_json) calls probe() below. It is not a cell: it pays no evidence
# recorder, no locals snapshot and no output cap (a direct answer reads a 600,000-character
# document in one read, whole), enters no trajectory, and leaves the model's namespace alone.
# The host checks every reply's shape (parseProbeReply in src/repl/protocol.ts).

def _probe_syntax(request):
    """Does `code` parse as Python? If not, would it without its last line (a cut-off reply)?"""
    code = rewrite_final_var_assignments(str(request["code"]))
    try:
        ast.parse(code)
        return {"ok": True}
    except SyntaxError as exc:
        result = {"ok": False, "error": "SyntaxError: {}".format(exc.msg), "line": exc.lineno,
                  "trimmed": None, "dropped": None}
    lines = code.rstrip().split("\n")
    if len(lines) > 1:
        shorter = "\n".join(lines[:-1])
        try:
            ast.parse(shorter)
            result["trimmed"], result["dropped"] = shorter, lines[-1]
        except SyntaxError:
            pass
    return result


def _probe_layout(_request):
    """[[doc, length], ...] of `context`, for the harness's map-reduce and direct answers."""
    return [[doc, len(text)] for doc, text in _documents()]


def _probe_read(request):
    doc, start, end = request["doc"], int(request["start"]), int(request["end"])
    for name, text in _documents():
        if name == doc:
            return text[start:end]
    raise KeyError("no document {!r} in context".format(doc))


def _probe_rank(request):
    """The pieces the harness should read: all of them if few enough, else those sharing the
    most words with the question (kept in document order), so a bounded map-reduce reads the
    likely places of a huge document instead of its first pages."""
    question, max_chunks = str(request["question"]), int(request["maxChunks"])
    pieces = [(doc, start, end) for doc, start, end, _t in _pieces(int(request["chunkChars"]))]
    if len(pieces) <= max_chunks:
        return pieces
    words = {w.lower() for w in _re.findall(r"[A-Za-z0-9][\w-]{2,}", question)}
    words -= {"the", "and", "what", "which", "who", "how", "does", "did", "was", "were", "are", "this", "that",
              "with", "from", "for", "answer", "question", "text", "document", "context", "mentioned", "provided"}
    texts = {doc: text for doc, text in _documents()}
    patterns = [_re.compile(_re.escape(w), _re.IGNORECASE) for w in words]
    scored = []
    for i, (doc, start, end) in enumerate(pieces):
        body = texts[doc][start:end]
        score = sum(1 for rx in patterns if rx.search(body))
        scored.append((-score, i))
    keep = sorted(i for _s, i in sorted(scored)[:max_chunks])
    return [pieces[i] for i in keep]


def _probe_configure(request):
    """search() and map_query() learn the sub-model's limits."""
    return json.loads(configure_helpers(json.dumps({"chunk_chars": request["chunkChars"], "max_chunks": request["maxChunks"]})))


def _probe_place(request):
    """The harness's own reads (the fallback's pieces) as sources with lines, for citations."""
    return _evidence.place(list(request["ranges"]))


def _lines_matching(text, pattern, regex):
    """Lines of `text` with a match of `pattern` (each line counted once), without splitting it."""
    count, pos = 0, 0
    if regex:
        try:
            rx = _re.compile(pattern)
        except _re.error:
            return None
        for m in rx.finditer(text):
            if m.start() < pos:
                continue
            count += 1
            end = text.find("\n", m.end())
            pos = len(text) if end < 0 else end + 1
        return count
    if not pattern:
        return None
    while True:
        i = text.find(pattern, pos)
        if i < 0:
            return count
        count += 1
        end = text.find("\n", i + len(pattern))
        if end < 0:
            return count
        pos = end + 1


def _probe_lines(request):
    """How many lines `context` has, how many of them a pattern matches, and its first lines:
    the evidence for "your pattern matched 0 of 4,102 lines" (M11)."""
    pattern, regex = request.get("pattern"), bool(request.get("regex"))
    total, matched, first = 0, (0 if pattern is not None else None), []
    for _doc, text in _documents():
        total += text.count("\n") + 1
        if matched is not None:
            found = _lines_matching(text, pattern, regex)
            matched = None if found is None else matched + found
        for line in text[:20_000].split("\n"):
            if len(first) < 5 and line.strip():
                first.append(line[:300])
    return {"total": total, "matched": matched, "first": first}


_PROBES = {
    "syntax": _probe_syntax,
    "layout": _probe_layout,
    "read": _probe_read,
    "rank": _probe_rank,
    "configure": _probe_configure,
    "place": _probe_place,
    "lines": _probe_lines,
}


def probe(request_json):
    """One host question: {"kind": ..., ...} -> {"ok": true, "value": ...} or {"ok": false,
    "error": "Type: message"}. Stop reaches it (the interrupt is armed while it runs): ranking a
    500 MB document takes a while."""
    _interrupts(True)
    try:
        request = json.loads(request_json)
        value = _PROBES[request["kind"]](request)
        return json.dumps({"ok": True, "value": value}, ensure_ascii=False)
    except BaseException as exc:  # noqa: BLE001 - the host turns it into an error it can show
        return json.dumps({"ok": False, "error": "{}: {}".format(type(exc).__name__, exc)}, ensure_ascii=False)
    finally:
        _interrupts(False)


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

# Deep recursion past the browser's native stack kills the whole interpreter, which looks like
# a hang; within this limit it is an ordinary RecursionError the model can read and fix.
MAX_RECURSION_LIMIT = 3000
_set_recursion_limit = sys.setrecursionlimit


def _bounded_setrecursionlimit(limit):
    _set_recursion_limit(min(int(limit), MAX_RECURSION_LIMIT))
    if int(limit) > MAX_RECURSION_LIMIT:
        print("Note: the recursion limit stays at {} here; deeper recursion would crash the browser's "
              "Python. Rewrite the recursion as a loop.".format(MAX_RECURSION_LIMIT), file=sys.stderr)


sys.setrecursionlimit = _bounded_setrecursionlimit


# os._exit() and os.abort() would end the interpreter the session lives in, and the host would
# only notice at the cell's time limit. Here they raise SystemExit, which run_cell reports.
class _ProcessExitRefused(SystemExit):
    pass


def _no_process_exit(code=0):
    raise _ProcessExitRefused(code)


def _patch_process_exits():
    import os
    import posix
    for module in (os, posix):
        for name in ("_exit", "abort"):
            if hasattr(module, name):
                setattr(module, name, _no_process_exit)


_patch_process_exits()
reset_namespace()
