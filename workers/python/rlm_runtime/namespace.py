# The namespace model code runs in: its dict, the final-answer slot, the `answer` dict protocol,
# `context` and `history`, and which names are the model's own variables. The runtime's helpers
# are put in it by helpers.install_scaffold().

import json
import types

from .vocabulary import RESERVED

CELL_FILENAME = "<cell>"  # what cells compile under: errors and the evidence recorder know a cell's frames by it


def to_text(value):
    if isinstance(value, str):
        return value
    try:
        if isinstance(value, (dict, list, tuple)):
            return json.dumps(value, ensure_ascii=False, default=str)
    except Exception:
        pass
    return str(value)


class Answer(dict):
    """The `answer` dict protocol: setting answer["ready"] to a truthy value submits
    answer["content"] as the final answer."""

    def __setitem__(self, key, value):
        dict.__setitem__(self, key, value)
        if key == "ready" and value:
            state.submit(self.get("content", ""))


class _State:
    def __init__(self):
        self.final = None
        self.final_set = False
        self.output_cap = 200_000
        self.interrupted = False

    def submit(self, value):
        self.final = value if isinstance(value, str) else to_text(value)
        self.final_set = True


state = _State()

ns = {}
builtin_names = set()
assigned_names = set()  # every name a cell of this namespace assigned
context_value = ""
history_value = []


def fresh_answer():
    return Answer(content="", ready=False)


def take_final():
    """The FINAL answer set since the last call, if any; the slot is emptied."""
    final = state.final if state.final_set else None
    state.final, state.final_set = None, False
    return final


def user_names():
    return sorted(
        n for n, v in ns.items()
        if not n.startswith("_") and n not in RESERVED and n not in builtin_names
        and not isinstance(v, types.ModuleType)
    )


def describe(value):
    kind = type(value).__name__
    try:
        if isinstance(value, (str, bytes, list, tuple, dict, set)):
            return "{}, len {}".format(kind, len(value))
    except Exception:
        pass
    return kind


def install(functions):
    """Put the runtime's names back (a cell may have rebound them): `context`, `history`, the
    helpers in `functions`, and `answer` as the dict protocol. Returns a note for the cell's
    stderr when a value the cell put in `answer` was kept as answer["content"]."""
    ns["__name__"] = "__main__"
    ns["context"] = context_value
    ns["history"] = history_value
    ns.update(functions)
    note = ""
    if not isinstance(ns.get("answer"), Answer):
        previous = ns.get("answer")
        fresh = fresh_answer()
        if isinstance(previous, dict):
            # A cell wrote `answer = {...}`: keep its items and honour ready=True.
            dict.update(fresh, previous)
            if previous.get("ready"):
                state.submit(previous.get("content", ""))
        elif previous is not None and "answer" in ns:
            # `answer = "Paris"`: the model meant its answer. Keep it where the dict protocol
            # reads it, and say how to submit it (issue 25).
            dict.__setitem__(fresh, "content", to_text(previous))
            note = ('Note: `answer` is a dict here, not a variable for your answer: your value was kept as '
                    'answer["content"]. To submit it, run answer["ready"] = True (or FINAL(answer["content"])).\n')
        ns["answer"] = fresh
    return note


def clear():
    """Forget every variable and what cells assigned; `context` stays loaded."""
    global history_value
    ns.clear()
    assigned_names.clear()
    history_value = []


def begin_question():
    """Start a new question: forget a previous submission, keep every variable."""
    ns["answer"] = fresh_answer()
    state.final = None
    state.final_set = False


def set_history(entries_json):
    global history_value
    history_value = json.loads(entries_json)
    ns["history"] = history_value


def set_context_value(value):
    global context_value
    context_value = value
    ns["context"] = value
