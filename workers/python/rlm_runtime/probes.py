# The host's own questions (syntax, layout, read, rank, configure, place, lines, occurs): a worker call of
# their own, never a cell. Runtime.probe(request_json) answers them: it pays no evidence recorder,
# no locals snapshot and no output cap (a direct answer reads a 600,000-character document in one
# read, whole), enters no trajectory, and leaves the model's namespace alone. The host checks
# every reply's shape (parseProbeReply in src/repl/protocol.ts).

import ast
import json
import re as _re

from . import host
from .cells import rewrite_final_var_assignments
from .documents import documents, pieces
from .evidence import recorder
from .helpers import configure_helpers


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
    return [[doc, len(text)] for doc, text in documents()]


def _probe_read(request):
    doc, start, end = request["doc"], int(request["start"]), int(request["end"])
    for name, text in documents():
        if name == doc:
            return text[start:end]
    raise KeyError("no document {!r} in context".format(doc))


def _probe_rank(request):
    """The pieces the harness should read: all of them if few enough, else those sharing the
    most words with the question (kept in document order), so a bounded map-reduce reads the
    likely places of a huge document instead of its first pages."""
    question, max_chunks = str(request["question"]), int(request["maxChunks"])
    found = [(doc, start, end) for doc, start, end, _t in pieces(int(request["chunkChars"]))]
    if len(found) <= max_chunks:
        return found
    words = {w.lower() for w in _re.findall(r"[A-Za-z0-9][\w-]{2,}", question)}
    words -= {"the", "and", "what", "which", "who", "how", "does", "did", "was", "were", "are", "this", "that",
              "with", "from", "for", "answer", "question", "text", "document", "context", "mentioned", "provided"}
    texts = {doc: text for doc, text in documents()}
    patterns = [_re.compile(_re.escape(w), _re.IGNORECASE) for w in words]
    scored = []
    for i, (doc, start, end) in enumerate(found):
        body = texts[doc][start:end]
        score = sum(1 for rx in patterns if rx.search(body))
        scored.append((-score, i))
    keep = sorted(i for _s, i in sorted(scored)[:max_chunks])
    return [found[i] for i in keep]


def _probe_configure(request):
    """search() and map_query() learn the sub-model's limits."""
    return json.loads(configure_helpers(json.dumps({"chunk_chars": request["chunkChars"], "max_chunks": request["maxChunks"]})))


def _probe_place(request):
    """The harness's own reads (the fallback's pieces) as sources with lines, for citations."""
    return recorder.place(list(request["ranges"]))


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


def _line_near(text, pattern, regex):
    """A line the pattern was probably meant to match: one holding its longest literal word,
    in any case (a pattern "Amount: (\\d+)" that missed lines reading "amount = 12")."""
    literal = _re.sub(r"\\[A-Za-z]", " ", pattern) if regex else pattern
    words = sorted(_re.findall(r"[A-Za-z]{3,}", literal), key=len, reverse=True)
    if not words:
        return None
    i = text.lower().find(words[0].lower())
    if i < 0:
        return None
    start = text.rfind("\n", 0, i) + 1
    end = text.find("\n", i)
    return text[start:(len(text) if end < 0 else end)][:300]


def _probe_lines(request):
    """How many lines `context` has, how many of them a pattern matches, its first lines, and
    a line the pattern should have matched: the evidence for "your pattern matched 0 of 4,102
    lines" (M11, issue 36 §3)."""
    pattern, regex = request.get("pattern"), bool(request.get("regex"))
    total, matched, first, near = 0, (0 if pattern is not None else None), [], None
    for _doc, text in documents():
        total += text.count("\n") + 1
        if matched is not None:
            found = _lines_matching(text, pattern, regex)
            matched = None if found is None else matched + found
        if pattern and near is None and matched == 0:
            near = _line_near(text, pattern, regex)
        for line in text[:20_000].split("\n"):
            if len(first) < 5 and line.strip():
                first.append(line[:300])
    return {"total": total, "matched": matched, "first": first, "near": near}


def _token_around(text, start, end):
    """The whole token a match lies in: letters and digits, and separators between digits."""
    def inside(k, step):
        c = text[k]
        if c.isalnum() or c == "_":
            return True
        nxt = k + step
        return c in ".," and 0 <= nxt < len(text) and text[nxt].isdigit() and text[k - step].isdigit()
    while start > 0 and inside(start - 1, -1):
        start -= 1
    while end < len(text) and inside(end, 1):
        end += 1
    return start, end


_MAX_HITS = 10_000


def _probe_occurs(request):
    """Whether `text` stands in `context` as a token of its own (issue 36 §1-2), and if not, the
    longer token it is a piece of ("1" inside 7319001, "319" inside 7,319,001). The pattern starts
    with the literal text, so the regex engine skips ahead to candidates (no lookbehind at every
    position: that took a second per 10 MB); each candidate's token is checked here, at most
    10,000 of them (a digit in a table of numbers), then it counts as only a piece."""
    needle = str(request["text"]).strip()
    if not needle:
        return {"standalone": False, "longer": None}
    rx = _re.compile(r"\s+".join(_re.escape(part) for part in needle.split()))
    longer, hits = None, 0
    for _doc, text in documents():
        for m in rx.finditer(text):
            start, end = _token_around(text, m.start(), m.end())
            if (start, end) == (m.start(), m.end()):
                return {"standalone": True, "longer": None}
            if longer is None:
                longer = text[start:end][:200]
            hits += 1
            if hits >= _MAX_HITS:
                return {"standalone": False, "longer": longer}
    return {"standalone": False, "longer": longer}


_PROBES = {
    "syntax": _probe_syntax,
    "layout": _probe_layout,
    "read": _probe_read,
    "rank": _probe_rank,
    "configure": _probe_configure,
    "place": _probe_place,
    "lines": _probe_lines,
    "occurs": _probe_occurs,
}


def probe(request_json):
    """One host question: {"kind": ..., ...} -> {"ok": true, "value": ...} or {"ok": false,
    "error": "Type: message"}. Stop reaches it (the interrupt is armed while it runs): ranking a
    500 MB document takes a while."""
    host.interrupts(True)
    try:
        request = json.loads(request_json)
        value = _PROBES[request["kind"]](request)
        return json.dumps({"ok": True, "value": value}, ensure_ascii=False)
    except BaseException as exc:  # noqa: BLE001 - the host turns it into an error it can show
        return json.dumps({"ok": False, "error": "{}: {}".format(type(exc).__name__, exc)}, ensure_ascii=False)
    finally:
        host.interrupts(False)
