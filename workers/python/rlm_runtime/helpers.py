# The functions model code calls (the vocabulary's FUNCTIONS, src/core/repl-vocabulary.ts):
# sub-calls (llm_query, rlm_query and their batches), submitting an answer (FINAL, FINAL_VAR),
# SHOW_VARS, cite, and the helpers small models need to act in one call, search() and
# map_query() (issue 13: small-models.md M12, M13). The host passes the sub-model's limits with
# the "configure" probe; until then the vocabulary's defaults fit a 4,096-token sub-model.

import json
import re as _re
import sys

from . import host, namespace
from .documents import documents, pieces
from .evidence import recorder
from .namespace import state, user_names
from .vocabulary import FUNCTIONS, HELPER_LIMITS, MAP_PROMPT, NOT_FOUND, RESERVED


# --- sub-calls ------------------------------------------------------------------------------

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
        sources = recorder.prompt_sources(prompts)
    except Exception:  # recording what a prompt quotes must never cost the call itself
        sources = None
    try:
        return host.request(kind, prompts, model, sources)
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


# --- submitting an answer -------------------------------------------------------------------

def FINAL(value):
    """Submit `value` as the final answer."""
    state.submit(value)


# FINAL(x) with a bare name x, at the top level of a cell (or written as text: the host runs it
# as a cell) is rewritten to FINAL.by_name("x") (cells.py): the variable's value when x is one,
# otherwise the word itself. In the paper and the canonical harness FINAL(x) is the text x, and
# small models answer FINAL(Yes), FINAL(Paris), FINAL(CASE_DONE) often; without this, each was a
# NameError. A name that only looks like a variable (result, answer, …) or that a cell assigned
# is never submitted as a word: the model meant a variable that is not there (M03c/d).
_ANSWER_VARIABLE_WORDS = frozenset((
    "answer", "answers", "ans", "answer_text", "result", "results", "res", "result_text", "output", "out",
    "final", "final_answer", "finalanswer", "final_result", "value", "val", "response", "reply", "var",
    "variable", "best_answer", "my_answer", "count", "total", "summary",
))


def _names_a_variable(name):
    return (name in namespace.assigned_names or name.lower() in _ANSWER_VARIABLE_WORDS
            or (len(name) == 1 and name.islower()))


def _final_by_name(name):
    """FINAL(name) with a bare name: its value, the word itself, or an error that lists the
    variables (never the word "result" for a missing variable `result`)."""
    value = namespace.ns.get(name, _final_by_name)  # the function itself marks "no such name"
    if name == "answer" and isinstance(value, namespace.Answer):
        if value.get("content", "") not in ("", None):
            state.submit(value.get("content"))
            return None
    elif value is not _final_by_name and (name not in RESERVED or name == "answer"):
        # A variable, or `answer` a cell rebound to its own value (answer = m.group(1); FINAL(answer)).
        state.submit(value)
        return None
    elif not _names_a_variable(name):
        state.submit(name)
        return None
    names = user_names()
    print("Error: FINAL({0}): there is no variable named {0!r}, so nothing was submitted. Variables: {1}. "
          "Put the answer in a variable first, or write FINAL(\"the answer itself\").".format(
              name, ", ".join(names) if names else "none yet"), file=sys.stderr)
    return None


FINAL.by_name = _final_by_name


def FINAL_VAR(name):
    """Submit the variable called `name` as the final answer (a value is submitted as is)."""
    if not isinstance(name, str):
        state.submit(name)
        return None
    key = name.strip().strip("'\"")
    if key in namespace.ns and key not in RESERVED:
        state.submit(namespace.ns[key])
        return None
    names = user_names()
    available = ", ".join(names) if names else "none yet"
    message = "Error: FINAL_VAR: no variable named {!r}. Variables: {}".format(key, available)
    print(message, file=sys.stderr)
    return None


def SHOW_VARS():
    """List the variables created so far, with their types and sizes."""
    names = user_names()
    if not names:
        return "No variables yet. Create some in a ```repl block."
    return "Variables: " + ", ".join("{} ({})".format(n, namespace.describe(namespace.ns[n])) for n in names)


def cite(start, end, doc=None):
    """Mark document[start:end] (character offsets) as a source of your answer. `doc` is the
    document's key in `context` (leave it out when there is one document)."""
    return recorder.cite(start, end, doc)


# --- helpers for small models (issue 13) ----------------------------------------------------

helper_config = dict(HELPER_LIMITS)


def configure_helpers(options_json):
    """Set the helpers' limits from the host (sub-model window, sub-call budget). Returns them."""
    options = json.loads(options_json)
    for key in ("chunk_chars", "max_chunks", "search_max_hits", "search_output_chars"):
        if isinstance(options.get(key), int) and options[key] > 0:
            helper_config[key] = options[key]
    return json.dumps(helper_config)


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
        limit = helper_config["search_output_chars"]
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
    limit = int(max_hits or helper_config["search_max_hits"])
    rx = _compile_pattern(pattern, ignore_case)
    hits = _Hits()
    total = 0
    for doc, text in documents():
        for m in rx.finditer(text):
            total += 1
            if len(hits) < limit:
                a, b = max(0, m.start() - window), min(len(text), m.end() + window)
                snippet = text[a:b].replace("\n", " ")
                hits.append({"n": len(hits) + 1, "doc": doc, "start": m.start(), "end": m.end(), "text": snippet})
            if total >= 10000:
                break
    if not hits:
        size = sum(len(t) for _, t in documents())
        hits.note = "No match for {!r} in context ({} characters). Try other words or a shorter pattern.".format(pattern, size)
    elif total > len(hits):
        hits.note = "… {} more matches (pass max_hits=… or a narrower pattern).".format(total - len(hits) if total < 10000 else "many")
    return hits


class _Answers(list):
    """map_query() results: a list of dicts {part, doc, start, end, answer}; printing shows
    the parts that found something."""

    def __str__(self):
        found = [a for a in self if NOT_FOUND not in a["answer"].upper()]
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
    size = int(chunk_chars or helper_config["chunk_chars"])
    if size < 200:
        raise ValueError("map_query: chunk_chars must be at least 200")
    parts = list(pieces(size, text if isinstance(text, str) else None))
    cap = helper_config["max_chunks"]
    if len(parts) > cap:
        raise ValueError(
            "map_query: that is {} parts of {} characters, more than the {} allowed. Narrow it first: "
            "hits = search('word'); then map_query(question, text=context[start:end]).".format(len(parts), size, cap)
        )
    prompts = [
        MAP_PROMPT.format(part=i + 1, parts=len(parts), where="" if doc is None else " ({})".format(doc), text=body, question=question)
        for i, (doc, start, end, body) in enumerate(parts)
    ]
    replies = llm_query_batched(prompts)
    return _Answers(
        {"part": i + 1, "doc": doc, "start": start, "end": end, "answer": reply}
        for i, ((doc, start, end, _body), reply) in enumerate(zip(parts, replies))
    )


# --- the namespace's helpers ------------------------------------------------------------------

_missing = [name for name in FUNCTIONS if not callable(globals().get(name))]
if _missing:
    raise ImportError("the vocabulary names helpers this module does not define: " + ", ".join(_missing))
SCAFFOLD = {name: globals()[name] for name in FUNCTIONS}


def install_scaffold():
    """The helpers, `context`, `history` and `answer` back in the namespace; see namespace.install."""
    return namespace.install(SCAFFOLD)
