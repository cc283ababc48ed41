# Where a submitted answer shows in what the question read: its telling terms, the best span of a
# passage that holds them, and the reads merged per document.

from .regex import RE

_ANSWER_STOPWORDS = frozenset(
    "the a an and or of to in on at for is was are were be been by with from as that this these "
    "those it its his her their there which what who whom when where answer final yes not".split()
)


def answer_terms(answer):
    """What to look for in a passage: the answer itself when short, and its telling words
    (numbers count triple: they rarely appear by chance)."""
    text = " ".join(str(answer).split())[:2000]
    if not text:
        return None, []
    # Short answers ("12", "yes") occur everywhere by chance: they show nothing.
    whole = text if 4 <= len(text) <= 120 and text.lower() not in _ANSWER_STOPWORDS else None
    weights = {}
    for token in RE["findall"](r"\w[\w\-./@:]*\w|\w", text):
        has_digit = any("0" <= c <= "9" for c in token)
        if has_digit and len(token) >= 3:
            weights[token] = 3.0
        elif len(token) >= 4 and token.lower() not in _ANSWER_STOPWORDS:
            weights[token] = 1.0
    terms = sorted(weights.items(), key=lambda kv: (-kv[1], -len(kv[0])))[:12]
    return whole, terms


def _find_term(doc, term, s, e):
    i = doc.find(term, s, e)
    if i < 0 and term.lower() != term:
        i = doc.find(term.lower(), s, e)
    return i


def answer_span(doc, s, e, whole, terms):
    """(start, end, score) of where the answer shows in doc[s:e], or None."""
    if whole is not None:
        i = _find_term(doc, whole, s, e)
        if i >= 0:
            return i, i + len(whole), 1.0
    if not terms:
        return None
    total = sum(w for _, w in terms)
    found = []
    for term, weight in terms:
        i = _find_term(doc, term, s, e)
        if i >= 0:
            found.append((weight, i, i + len(term)))
    if not found:
        return None
    score = sum(w for w, _, _ in found) / total
    if score < 0.5:
        return None
    # The span around the strongest term, with the other terms found close to it.
    _, a, b = max(found, key=lambda f: (f[0], f[2] - f[1]))
    near = [f for f in found if abs(f[1] - a) <= 200]
    return min(f[1] for f in near), max(f[2] for f in near), round(score, 3)


def read_unions(entries):
    """(name, start, end) of the union of the reads of each document, the most recent first."""
    by_doc = {}
    for seq, (name, s, e, _kind) in enumerate(entries):
        by_doc.setdefault(name, []).append((s, e, seq))
    unions = []
    for name, spans in by_doc.items():
        spans.sort()
        cs, ce, last = spans[0]
        for s, e, seq in spans[1:]:
            if s <= ce:
                ce, last = max(ce, e), max(last, seq)
            else:
                unions.append((last, name, cs, ce))
                cs, ce, last = s, e, seq
        unions.append((last, name, cs, ce))
    unions.sort(reverse=True)
    return [(name, s, e) for _, name, s, e in unions]
