# Running one cell: its output captured and capped, a bare last expression echoed, FINAL(name)
# and FINAL_VAR("x") = value understood, errors reported with the line they happened on and
# what does exist, the cell's result (output, answer, variables, sources) as JSON for the host.

import ast
import asyncio
import importlib.util
import json
import re as _re
import sys
import time
import traceback
import types

from . import host, namespace
from .evidence import recorder
from .helpers import install_scaffold
from .namespace import CELL_FILENAME, take_final, to_text, user_names
from .patches import ProcessExitRefused
from .vocabulary import NAME_ERROR_NAMES, RESERVED

_OMITTED_MARK = "\n... [{} characters omitted] ...\n"


class CappedWriter:
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


# --- what a cell's code means -------------------------------------------------------------------

class _BareFinalNames(ast.NodeTransformer):
    """FINAL(name) -> FINAL.by_name("name") where `name` is read from the namespace (the cell's
    top level, not inside a function, class, lambda or comprehension, whose names are local).
    What by_name submits is decided in helpers.py."""

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
            namespace.assigned_names.add(node.id)
    if "FINAL" not in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}:
        return tree
    return ast.fix_missing_locations(_BareFinalNames().visit(tree))


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


def _compile_cell(code):
    """Compile a cell; a bare last expression is echoed like in a notebook, because small
    models often end a cell with `len(context)` and expect to see the number."""
    tree = recorder.rewrite(_bare_finals(ast.parse(code, filename=CELL_FILENAME, mode="exec")))
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, CELL_FILENAME, "exec", flags=flags)
    tail = compile(last, CELL_FILENAME, "eval", flags=flags) if last is not None else None
    return body, tail


# --- errors ---------------------------------------------------------------------------------

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


# Modules worth naming when an import fails; only those Pyodide really has are listed.
_USEFUL_MODULES = (
    "re", "json", "math", "collections", "itertools", "functools", "statistics", "string",
    "textwrap", "difflib", "datetime", "random", "heapq", "bisect", "csv", "html", "unicodedata",
)
_available_modules = None


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
        mine = user_names()
        return "\nNames you can use: {}. Your variables: {}.".format(", ".join(NAME_ERROR_NAMES), ", ".join(mine) if mine else "none yet")
    return ""


# --- the cell's result ------------------------------------------------------------------------

def _summarise_value(value):
    """A short, JSON-safe picture of a variable for the trajectory."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value if len(value) <= 200 else "<str, {} chars: {!r}...>".format(len(value), value[:80])
    if isinstance(value, (list, tuple, dict, set)):
        text = to_text(value) if not isinstance(value, set) else repr(value)
        if len(text) <= 200:
            return json.loads(text) if isinstance(value, (list, dict)) and text[:1] in "[{" else text
        return "<{}, len {}>".format(type(value).__name__, len(value))
    if callable(value):
        return "<function '{}'>".format(getattr(value, "__name__", "?"))
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def _locals_snapshot():
    out = {}
    for name in user_names():
        try:
            out[name] = _summarise_value(namespace.ns[name])
        except Exception:
            out[name] = "<unprintable>"
    return out


def _finish_cell(fields):
    return json.dumps(fields, ensure_ascii=False, default=str)


# --- running it -------------------------------------------------------------------------------

async def _run(code_obj):
    result = eval(code_obj, namespace.ns)
    if isinstance(result, types.CoroutineType):
        result = await result
    return result


# Each cell that awaited something, as a task under the id the worker gave the cell: the worker
# awaits finish_cell(id) for it. One list whose last entry finish_cell took gave each of two
# cells awaiting at once the other's result; by id, finishing one cell never finishes another.
_awaiting = {}


class CellIdError(LookupError):
    """The worker named a cell it cannot: one still awaiting to run_cell, one not awaiting to finish_cell."""


def run_cell(code, output_cap, cell_id):
    """Run one cell, `cell_id` being the worker's name for it (unique in the worker). Returns
    JSON: stdout, stderr, final_answer, locals, execution_time, error (exception type or null),
    interrupted; or None when the cell's code awaited something, and the worker then awaits
    finish_cell(cell_id) for the JSON.

    Why a plain call, not a coroutine: Python's return then reaches the worker's JavaScript on
    the same stack, which sends the result on at once. A coroutine's return reaches it only on a
    later turn of the event loop, after any work the cell left queued there (a message handler or
    a callback that spins), which then wedged the worker before the result could go out; Python
    had to announce the cell's end itself, a signal model code could fake or silence. The cell
    still runs as a task (started eagerly, so at once), as asyncio.timeout and the like need."""
    if cell_id in _awaiting:
        raise CellIdError("cell {} is still awaiting: give each cell an id of its own".format(cell_id))
    task = asyncio.Task(_run_cell_guarded(code, output_cap), loop=asyncio.get_event_loop(), eager_start=True)
    if task.done():
        return task.result()
    _awaiting[cell_id] = task
    return None


async def finish_cell(cell_id):
    """The rest of cell `cell_id`, whose code awaited something (run_cell returned None for it)."""
    task = _awaiting.pop(cell_id, None)
    if task is None:
        raise CellIdError("no cell {} is awaiting: finish_cell takes the id run_cell was given".format(cell_id))
    return await task


async def _run_cell_guarded(code, output_cap):
    saved = sys.stdout, sys.stderr
    try:
        return await _run_cell(code, output_cap, saved)
    except KeyboardInterrupt:
        # The host's interrupt landed just as the cell's code ended, as it was disarmed.
        return _interrupted_cell(saved)


async def _run_cell(code, output_cap, saved):
    take_final()  # a FINAL set outside any cell is not this one's
    out = CappedWriter(int(output_cap))
    err = CappedWriter(int(output_cap))
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
        if isinstance(exc, ProcessExitRefused):
            err.write("SystemExit: os._exit({}) would end the Python process; it does nothing here, "
                      "the REPL keeps running.\n".format(exc.code))
        else:
            err.write("SystemExit: {} (exit() does nothing here; the REPL keeps running)\n".format(exc.code))
    except BaseException as exc:  # noqa: BLE001 - report everything, keep the REPL alive
        error = type(exc).__name__
        err.write(_format_error(exc, code) + error_hint(exc) + "\n")
    finally:
        sys.stdout, sys.stderr = saved
        note = install_scaffold()
        if not namespace.state.final_set:  # a cell that submitted needs no advice on how to submit
            err.write(note)
    elapsed = time.perf_counter() - started
    final = take_final()
    try:
        snapshot = _locals_snapshot()
    except Exception:
        snapshot = {}
    stdout = out.getvalue()
    try:
        sources = recorder.cell_sources(stdout, final)
    except BaseException:  # noqa: BLE001 - the cell's result matters more than its sources
        sources = []
    return _finish_cell({
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
    """The cell's own code, with the host's interrupt armed (see host.interrupts)."""
    host.interrupts(True)
    try:
        recorder.begin_cell(code)
        body, tail = _compile_cell(rewrite_final_var_assignments(code))
        await _run(body)
        if tail is not None:
            value = await _run(tail)
            if value is not None:
                print(repr(value))
    finally:
        host.interrupts(False)


def _interrupted_cell(saved):
    host.interrupts(False)
    sys.stdout, sys.stderr = saved
    install_scaffold()
    take_final()
    return _finish_cell({
        "stdout": "", "stderr": _INTERRUPTED_LINE, "final_answer": None, "locals": {},
        "execution_time": 0, "error": "KeyboardInterrupt", "interrupted": True, "sources": [],
    })
