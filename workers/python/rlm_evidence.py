# The evidence half of the REPL runtime: which passages of the documents a question read, so
# every answer can point at them. Loaded right after rlm_runtime.py, in the same namespace; it
# replaces that file's `_evidence` stand-in. It records source ranges (document name, character
# offsets into the document's str, end exclusive) from four places:
#   print   text a cell printed that is a verbatim piece of a document
#   prompt  text given to llm_query / llm_query_batched / rlm_query (sent with the request, so
#           the host files it under the sub-call it belongs to)
#   match   spans of re.search / match / fullmatch / finditer / findall on a document
#   cite    cite(start, end, doc) called by the model
# and, in the cell that submits the answer, the places in those passages where the answer
# appears ("answer"). Each range comes with its line (PDF: page; DOCX: paragraph).
#
# Every cost is bounded, because `context` may be a 500 MB str:
# - a document is never copied or wrapped (a str subclass would copy it): regex calls recognise
#   one by identity, through a table of id(text) -> name;
# - a printed or prompted fragment is found by looking up a 48-character probe with str.find,
#   first next to positions already known (where the last fragment ended, recent regex matches),
#   and only then in whole documents, which a cell may do a rationed number of times;
# - line numbers come from sparse checkpoints built lazily, only as far into a document as a
#   range needs, so a range costs at most one checkpoint block of counting.

import ast
import builtins
import sys

_EV_BLOCK = 16_384              # characters between line-count checkpoints
_EV_PROBE = 48                  # characters of a fragment looked up at once
_EV_MIN_FRAGMENT = 32           # shorter pieces of output (numbers, labels) are not looked up
_EV_WINDOW = 32_768             # how far from where the last fragment ended a probe is looked for first
_EV_ANCHOR_WINDOW = 8_192       # ... and how far around a recent regex match or citation
_EV_TRIES_PER_SEGMENT = 4       # failed probes before a line of output is given up
_EV_PROBES_PER_CELL = 256
_EV_FULL_SCAN_CHARS = 64_000_000  # characters whole-document searches may scan per cell (after the first)
_EV_MATCHES_PER_CALL = 32       # regex matches recorded per call (the call itself is not limited)
_EV_RAW_PER_CELL = 1024
_EV_RANGES_PER_CELL = 256
_EV_RANGES_PER_PROMPT = 64
_EV_ANCHORS = 32                # recent match/cite spans used to align output with a document
_EV_NEAR = 8                    # recent match/citation positions searched around first
_EV_SLICES = 4096               # slices of context[...] waiting to be printed or prompted, in order
_EV_SLICE_TRIES = 4             # queued slices looked for in a text before it is given up on
_EV_MIN_ANCHOR = 12             # shorter matches are too common to align anything with
_EV_QUESTION_RANGES = 2048
_EV_MISSES_KEPT = 512
_EV_ANSWER_SCAN_CHARS = 8_000_000
_EV_ANSWER_HITS = 8
_EV_LITERALS = 64               # string literals of a question's code kept (see _hits_in_named_documents)
_EV_NAMED_SCAN_CHARS = 4_000_000
_PAGE_MARK = "--- page "        # src/ingest/pdf.ts starts every page with "--- page N ---"
_ANSWER_STOPWORDS = frozenset(
    "the a an and or of to in on at for is was are were be been by with from as that this these "
    "those it its his her their there which what who whom when where answer final yes not".split()
)


def _doc_kind(name, text):
    lowered = name.lower()
    if lowered.endswith(".pdf") and text.startswith(_PAGE_MARK + "1 ---"):
        return "pdf"
    if lowered.endswith(".docx"):
        return "docx"
    return "text"


def _last_page(text, a, b):
    """The number in the last page marker that starts a line at an offset in [a, b), or None."""
    end = min(len(text), b + len(_PAGE_MARK) - 1)
    while True:
        i = text.rfind(_PAGE_MARK, a, end)
        if i < 0:
            return None
        if i == 0 or text[i - 1] == "\n":
            j = k = i + len(_PAGE_MARK)
            while k < len(text) and k - j < 7 and "0" <= text[k] <= "9":
                k += 1
            if k > j and text.startswith(" ---", k):
                return int(text[j:k])
        end = i + len(_PAGE_MARK) - 1


class _DocIndex:
    """Line numbers (and PDF pages, DOCX paragraphs) of one document from checkpoints every
    _EV_BLOCK characters, built only as far as a lookup needs."""

    __slots__ = ("kind", "lines", "pages", "paras")

    def __init__(self, kind):
        self.kind = kind
        self.lines = [0]   # newlines before checkpoint k
        self.pages = [1]   # page at checkpoint k (PDF)
        self.paras = [0]   # blank-line paragraph breaks before checkpoint k (DOCX)

    def _extend(self, text, k):
        n = len(self.lines) - 1
        while n < k:
            a = n * _EV_BLOCK
            b = a + _EV_BLOCK
            self.lines.append(self.lines[n] + text.count("\n", a, b))
            if self.kind == "pdf":
                page = _last_page(text, a, b)
                self.pages.append(self.pages[n] if page is None else page)
            elif self.kind == "docx":
                # A break belongs to the block it starts in; a run of 3+ newlines across a
                # checkpoint may be counted one off (mammoth writes exactly two).
                self.paras.append(self.paras[n] + text.count("\n\n", a, b + 1))
            n += 1

    def position(self, text, offset):
        """(line, page or None, paragraph or None) at `offset`, all 1-based."""
        offset = max(0, min(offset, len(text)))
        k = offset // _EV_BLOCK
        self._extend(text, k)
        a = k * _EV_BLOCK
        line = self.lines[k] + text.count("\n", a, offset) + 1
        page = para = None
        if self.kind == "pdf":
            found = _last_page(text, a, offset + 1)
            page = self.pages[k] if found is None else found
        elif self.kind == "docx":
            para = self.paras[k] + text.count("\n\n", a, offset + 1) + 1
        return line, page, para


def _common_forward(text, t, doc, d):
    """How many characters text[t:] and doc[d:] share at their start (compared in growing
    blocks, then narrowed, so a 20,000-character match costs a few comparisons)."""
    limit = min(len(text) - t, len(doc) - d)
    n = 0
    step = 64
    narrowing = False
    while n < limit:
        k = min(step, limit - n)
        if doc.startswith(text[t + n:t + n + k], d + n):
            n += k
            if not narrowing:
                step = min(step * 2, 65_536)
        elif k == 1:
            break
        else:
            narrowing = True
            step = k // 2
    return n


def _common_backward(text, t, doc, d, lo):
    """How many characters end both text[:t] (not before `lo`) and doc[:d]."""
    limit = min(t - lo, d)
    n = 0
    step = 64
    narrowing = False
    while n < limit:
        k = min(step, limit - n)
        if doc.startswith(text[t - n - k:t - n], d - n - k):
            n += k
            if not narrowing:
                step = min(step * 2, 65_536)
        elif k == 1:
            break
        else:
            narrowing = True
            step = k // 2
    return n


def _segments(text):
    """(start, end) of each line of `text`; a printed repr's escaped newlines split lines too."""
    out = []
    start = 0
    n = len(text)
    while start < n:
        nl = text.find("\n", start)
        stop = n if nl < 0 else nl
        piece_start = start
        while True:
            esc = text.find("\\n", piece_start, stop)
            if esc < 0:
                out.append((piece_start, stop))
                break
            out.append((piece_start, esc))
            piece_start = esc + 2
        start = stop + 1
    return out


def _covering_end(found, pos):
    for f in found:
        if f[0] <= pos < f[1]:
            return f[1]
    return None


def _answer_terms(answer):
    """What to look for in a passage: the answer itself when short, and its telling words
    (numbers count triple: they rarely appear by chance)."""
    text = " ".join(str(answer).split())[:2000]
    if not text:
        return None, []
    # Short answers ("12", "yes") occur everywhere by chance: they show nothing.
    whole = text if 4 <= len(text) <= 120 and text.lower() not in _ANSWER_STOPWORDS else None
    weights = {}
    for token in _re_findall_raw(r"\w[\w\-./@:]*\w|\w", text):
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


def _answer_span(doc, s, e, whole, terms):
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


class _Evidence:
    def __init__(self):
        self.enabled = True
        self._ids = {}
        self._ids_stale = True
        self._indexes = {}
        self.begin_question()
        self.begin_cell()

    # --- documents -------------------------------------------------------------------------

    def documents_changed(self):
        """`context` was rebuilt: find documents by identity again, forget their indexes. The
        table is rebuilt when next needed, not here: a zip adds thousands of documents one by one."""
        self._ids_stale = True
        self._indexes = {}
        self.begin_question()

    @property
    def _by_id(self):
        if self._ids_stale:
            self._ids = {id(text): name for name, text in _loaded_documents.items() if isinstance(text, str)}
            self._ids_stale = False
        return self._ids

    def doc_name(self, value):
        """The name of the document `value` is (the very object, never an equal copy), or None."""
        name = self._by_id.get(id(value))
        if name is not None and _loaded_documents.get(name) is value:
            return name
        return None

    def _index(self, name, doc):
        index = self._indexes.get(name)
        if index is None:
            index = self._indexes[name] = _DocIndex(_doc_kind(name, doc))
        return index

    # --- what a question and a cell have recorded --------------------------------------------

    def begin_question(self):
        self.anchors = []          # recent match/cite spans: (name, start, end)
        self.near = []             # recent match/cite positions of any length: (name, start, end)
        self.slices = []           # context[a:b] taken, in order, not yet seen in output: (name, start, end)
        self.slice_head = 0
        self.cursor = None         # (name, offset) where the last located fragment ended
        self.misses = set()        # probes no document contains
        self.question_ranges = []  # everything recorded, for finding the answer afterwards
        self.literals = []         # string literals in the question's code, longest first

    def begin_cell(self, code=""):
        self._keep_literals(code)
        self.cell = []
        self.probes_left = _EV_PROBES_PER_CELL
        self.scan_left = _EV_FULL_SCAN_CHARS
        self.first_full_search = True

    def record(self, name, start, end, kind, in_cell=True):
        if not self.enabled or end <= start:
            return
        entry = (name, start, end, kind)
        if in_cell and len(self.cell) < _EV_RAW_PER_CELL:
            self.cell.append(entry)
        if len(self.question_ranges) < _EV_QUESTION_RANGES:
            self.question_ranges.append(entry)
        if kind in ("match", "cite"):
            self._remember_place(name, start, end, end - start >= _EV_MIN_ANCHOR)

    def _remember_place(self, name, start, end, anchor):
        self.near.append((name, start, end))
        if len(self.near) > _EV_NEAR:
            del self.near[0]
        if anchor:
            self.anchors.append((name, start, end))
            if len(self.anchors) > _EV_ANCHORS:
                del self.anchors[0]

    def on_slice(self, value, lower, upper):
        """context[a:b] was taken: not a read by itself, but the next text printed or prompted
        is most likely it. Slices queue up in the order they were taken, because a loop makes
        its chunks first and sends them after, in the same order (in repetitive text only that
        order tells identical-looking chunks apart)."""
        if not self.enabled or not self._by_id:
            return
        name = self.doc_name(value)
        if name is None:
            return
        start, end, _ = slice(lower, upper).indices(len(value))
        if end - start >= _EV_MIN_FRAGMENT:
            self.slices.append((name, start, end))
            if len(self.slices) > _EV_SLICES:
                drop = len(self.slices) // 2
                del self.slices[:drop]
                self.slice_head = max(0, self.slice_head - drop)

    def rewrite(self, tree):
        """The cell's syntax tree with context[a:b] and context[key][a:b] noted (see _SliceHints)."""
        if not self.enabled:
            return tree
        return ast.fix_missing_locations(_SliceHints().visit(tree))

    def on_match(self, string, match):
        if self.enabled and self._by_id:
            name = self.doc_name(string)
            if name is not None:
                self.record(name, match.start(), match.end(), "match")

    def cite(self, start, end, doc=None):
        if not self.enabled:
            return None
        if doc is None:
            if len(_loaded_documents) != 1:
                print("Error: cite: there are several documents; name one: cite(start, end, doc=\"path\").", file=sys.stderr)
                return None
            doc = next(iter(_loaded_documents))
        text = _loaded_documents.get(doc)
        if not isinstance(text, str):
            print("Error: cite: no document named {!r}.".format(doc), file=sys.stderr)
            return None
        try:
            start, end = int(start), int(end)
        except (TypeError, ValueError):
            print("Error: cite: start and end must be character offsets (int).", file=sys.stderr)
            return None
        start, end = max(0, start), min(len(text), end)
        if end <= start:
            print("Error: cite: the range is empty (end must be after start).", file=sys.stderr)
            return None
        self.record(doc, start, end, "cite")
        return None

    # --- locating verbatim fragments -----------------------------------------------------------

    def locate(self, text):
        """(name, start, end) of each piece of `text` that is a verbatim piece of a document."""
        if not self._by_id or len(text) < _EV_MIN_FRAGMENT:
            return []
        found = []  # [text start, text end, name, doc start]
        self._align_on_slices(text, found)
        self._align_on_anchors(text, found)
        self._probe(text, found)
        found.sort()
        return [(name, d, d + (te - ts)) for ts, te, name, d in found]

    def _align(self, text, t, name, d, found):
        """Grow the agreement of text[t:] and the document at d both ways; keep it if long
        enough. Each character of `text` belongs to one alignment: one that explains text an
        earlier one claimed wholly replaces it (in repetitive text the first place a probe
        matched may not be where the piece came from); a partial overlap is trimmed off."""
        doc = _loaded_documents[name]
        back = _common_backward(text, t, doc, d, 0)
        ahead = _common_forward(text, t, doc, d)
        ts, te = t - back, t + ahead
        found[:] = [f for f in found if not (ts <= f[0] and f[1] <= te)]
        for f in found:
            if f[0] <= ts < f[1]:
                ts = f[1]
            elif ts < f[0] < te:
                te = f[0]
        if te - ts < _EV_MIN_FRAGMENT:
            return t + max(1, ahead)
        found.append([ts, te, name, d - (t - ts)])
        self.cursor = (name, d + ahead)
        return te

    def _align_on_slices(self, text, found):
        """The queued slices, oldest first, that `text` holds; each one found is used up, with
        any taken before it that never showed up."""
        tries = 0
        i = self.slice_head
        while i < len(self.slices) and tries < _EV_SLICE_TRIES:
            name, s, e = self.slices[i]
            doc = _loaded_documents.get(name)
            o = text.find(doc[s:s + _EV_PROBE]) if doc is not None else -1
            if o >= 0 and _covering_end(found, o) is None:
                self._align(text, o, name, s, found)
                if _covering_end(found, o) is not None:
                    self.slice_head = i + 1
                    tries = 0
                    i += 1
                    continue
            tries += 1
            i += 1

    def _align_on_anchors(self, text, found):
        """Align `text` on document text known to be near: where the last fragment ended (the
        next chunk of a loop over the document usually starts there, whatever prompt text comes
        before it), then recent regex matches and citations."""
        if self.cursor is not None:
            name, c = self.cursor
            doc = _loaded_documents.get(name)
            o = text.find(doc[c:c + _EV_PROBE]) if doc is not None and c + _EV_MIN_FRAGMENT <= len(doc) else -1
            if o >= 0 and _covering_end(found, o) is None:
                self._align(text, o, name, c, found)
        for name, s, e in reversed(self.anchors):
            doc = _loaded_documents.get(name)
            if doc is None:
                continue
            o = text.find(doc[s:min(e, s + 200)])
            if o >= 0 and _covering_end(found, o) is None:
                self._align(text, o, name, s, found)

    def _probe(self, text, found):
        for seg_start, seg_end in _segments(text):
            pos = seg_start
            failures = 0
            while seg_end - pos >= _EV_MIN_FRAGMENT and failures < _EV_TRIES_PER_SEGMENT and self.probes_left > 0:
                covered = _covering_end(found, pos)
                if covered is not None:
                    pos = covered
                    continue
                self.probes_left -= 1
                where = self._find(text[pos:min(seg_end, pos + _EV_PROBE)])
                if where is None:
                    failures += 1
                    pos += _EV_PROBE
                else:
                    pos = max(pos + 1, self._align(text, pos, where[0], where[1], found))

    def _find(self, probe):
        if probe in self.misses:
            return None
        near = self._find_near(probe)
        return near if near is not None else self._find_anywhere(probe)

    def _find_near(self, probe):
        """Where the last fragment ended (chunks in order, the next lines of a printout), then
        around recent regex matches and citations."""
        if self.cursor is not None:
            name, c = self.cursor
            doc = _loaded_documents.get(name)
            if doc is not None:
                if doc.startswith(probe, c):
                    return name, c
                i = doc.find(probe, c, c + _EV_WINDOW)
                if i < 0:
                    i = doc.find(probe, max(0, c - _EV_WINDOW), c + len(probe))
                if i >= 0:
                    return name, i
        for name, s, e in reversed(self.near):
            doc = _loaded_documents.get(name)
            if doc is not None:
                i = doc.find(probe, max(0, s - _EV_ANCHOR_WINDOW), e + _EV_ANCHOR_WINDOW)
                if i >= 0:
                    return name, i
        return None

    def _find_anywhere(self, probe):
        """Whole documents, rationed: a cell's first such search is always made, later ones
        while the cell's scan budget lasts."""
        if not self.first_full_search and self.scan_left <= 0:
            return None
        self.first_full_search = False
        for name, doc in _loaded_documents.items():
            if not isinstance(doc, str):
                continue
            i = doc.find(probe)
            if i >= 0:
                self.scan_left -= i + len(probe)
                return name, i
            self.scan_left -= len(doc)
        if len(self.misses) < _EV_MISSES_KEPT:
            self.misses.add(probe)
        return None

    # --- results ---------------------------------------------------------------------------

    def describe(self, entry):
        name, start, end, kind = entry[:4]
        doc = _loaded_documents[name]
        index = self._index(name, doc)
        line, page, para = index.position(doc, start)
        end_line, end_page, _ = index.position(doc, max(start, end - 1))
        out = {"doc": name, "start": start, "end": end, "line": line, "end_line": end_line, "kind": kind}
        if page is not None:
            out["page"] = page
            out["end_page"] = end_page
        if para is not None:
            out["paragraph"] = para
        if kind == "answer":
            out["score"] = entry[4]
        return out

    def prompt_sources(self, prompts):
        """For each prompt, the document ranges it quotes (None when nothing is recorded)."""
        if not self.enabled or not self._by_id:
            return None
        out = []
        for prompt in prompts:
            ranges = []
            for name, s, e in self.locate(prompt)[:_EV_RANGES_PER_PROMPT]:
                self.record(name, s, e, "prompt", in_cell=False)
                ranges.append(self.describe((name, s, e, "prompt")))
            out.append(ranges)
        return out

    def place(self, ranges):
        """Pieces of `context` the harness read itself (its fallback map-reduce) as prompt
        sources with their lines: [{doc, start, end}] -> [range]; doc None names the one document."""
        if not self.enabled:
            return []
        out = []
        for r in ranges[:_EV_RANGES_PER_PROMPT]:
            name = r.get("doc") if isinstance(r, dict) else None
            if name is None and len(_loaded_documents) == 1:
                name = next(iter(_loaded_documents))
            doc = _loaded_documents.get(name)
            s, e = (r.get("start"), r.get("end")) if isinstance(r, dict) else (None, None)
            if isinstance(doc, str) and isinstance(s, int) and isinstance(e, int) and 0 <= s < e <= len(doc):
                self.record(name, s, e, "prompt", in_cell=False)
                out.append(self.describe((name, s, e, "prompt")))
        return out

    def cell_sources(self, stdout, final):
        """What the cell read, merged per document and kind; with a submitted answer, also where
        the answer appears in what this question read."""
        if not self.enabled or not self._by_id:
            return []
        for name, s, e in self.locate(stdout):
            self.record(name, s, e, "print")
        out = [self.describe(r) for r in _merge_ranges(self.cell)[:_EV_RANGES_PER_CELL]]
        if final is not None:
            out.extend(self.describe(h) for h in self.answer_hits(final))
        return out

    def _keep_literals(self, code):
        if not code or not self.enabled:
            return
        found = set(self.literals)
        for m in _RE["finditer"](r"'([^'\\\n]{4,200})'|\"([^\"\\\n]{4,200})\"", code):
            found.add(m.group(1) or m.group(2))
        self.literals = sorted(found, key=lambda s: (-len(s), s))[:_EV_LITERALS]

    def answer_hits(self, answer):
        whole, terms = _answer_terms(answer)
        if whole is None and not terms:
            return []
        hits = self._hits_in_ranges(whole, terms)
        return hits if hits else self._hits_in_named_documents(str(answer), whole, terms)

    def _hits_in_named_documents(self, answer, whole, terms):
        """When nothing read shows the answer (code like `json.loads(context['package.json'])` or
        `"function f(" in text` leaves no trace): the documents the question's code or the answer
        name. There the answer's own words are looked for, or else, in a document the answer
        names ("which file defines f?"), the strings the code looked for."""
        hits = []
        scanned = 0
        for name, doc in _loaded_documents.items():
            named_by_answer = name in answer
            if not isinstance(doc, str) or not (named_by_answer or name in self.literals):
                continue
            stop = min(len(doc), _EV_NAMED_SCAN_CHARS - scanned)
            if stop <= 0:
                break
            scanned += stop
            span = _answer_span(doc, 0, stop, whole, terms)
            if span is None and named_by_answer:
                span = self._first_literal(doc, stop, name)
            if span is not None:
                hits.append((name, span[0], span[1], "answer", span[2]))
            if len(hits) >= _EV_ANSWER_HITS:
                break
        return hits

    def _first_literal(self, doc, stop, name):
        for literal in self.literals:
            if literal != name:
                i = doc.find(literal, 0, stop)
                if i >= 0:
                    return i, i + len(literal), 0.5
        return None

    def _hits_in_ranges(self, whole, terms):
        """Where the answer shows in what the question read: the reads merged per document, so
        no text is searched twice (a map over chunks reads the whole document once), the most
        recently read first, at most _EV_ANSWER_SCAN_CHARS characters."""
        hits = []
        scanned = 0
        for name, s, e in _read_unions(self.question_ranges):
            doc = _loaded_documents.get(name)
            if doc is None:
                continue
            stop = min(e, s + _EV_ANSWER_SCAN_CHARS - scanned)
            if stop <= s:
                break
            scanned += stop - s
            span = _answer_span(doc, s, stop, whole, terms)
            if span is not None:
                hits.append((name, span[0], span[1], "answer", span[2]))
            if len(hits) >= _EV_ANSWER_HITS:
                break
        hits.sort(key=lambda h: -h[4])
        return hits


def _read_unions(entries):
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


def _names_context(node):
    """`context` or `context[key]` (a document of a dict context) as an expression."""
    if isinstance(node, ast.Name):
        return node.id == "context"
    return isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice) and _names_context(node.value)


class _SliceHints(ast.NodeTransformer):
    """Rewrites context[a:b] (and context[key][a:b]) into _rlm_slice(context, a, b, None), which
    returns the very same slice and notes where it was taken: a printed or prompted slice is
    then found next to that place instead of being searched for in the whole document (the
    model may have found the offset with str.find, which no one can see). Only loads are
    rewritten; assignments and deletions keep their syntax."""

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if not (isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Slice) and _names_context(node.value)):
            return node
        s = node.slice
        bounds = [part if part is not None else ast.Constant(value=None) for part in (s.lower, s.upper, s.step)]
        call = ast.Call(func=ast.Name(id="_rlm_slice", ctx=ast.Load()), args=[node.value, *bounds], keywords=[])
        return ast.copy_location(call, node)


def _rlm_slice(value, lower, upper, step):
    part = value[lower:upper:step]
    if step is None:
        _evidence.on_slice(value, lower, upper)
    return part


# Cells resolve it through builtins, so no variable of theirs can hide it.
builtins._rlm_slice = _rlm_slice


def _merge_ranges(entries):
    """Overlapping or touching ranges of one document and kind become one; order of first record."""
    groups = {}
    order = []
    for name, s, e, kind in entries:
        key = (name, kind)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append((s, e, len(order)))
    merged = []
    for key in order:
        spans = sorted(groups[key])
        cs, ce, first = spans[0][0], spans[0][1], spans[0][2]
        for s, e, seq in spans[1:]:
            if s <= ce:
                ce = max(ce, e)
                first = min(first, seq)
            else:
                merged.append((first, key, cs, ce))
                cs, ce, first = s, e, seq
        merged.append((first, key, cs, ce))
    merged.sort(key=lambda m: (m[0], m[2]))
    return [(key[0], s, e, key[1]) for _, key, s, e in merged]


def source_passages(ranges_json):
    """The text of each range, with the rest of its line(s) around it, for quoting an answer's
    sources: [{"before", "text", "after"} | null]. At most 400 characters of a long range."""
    out = []
    for r in json.loads(ranges_json)[:64]:
        doc = _loaded_documents.get(r.get("doc")) if isinstance(r, dict) else None
        s, e = (r.get("start"), r.get("end")) if isinstance(r, dict) else (None, None)
        if not isinstance(doc, str) or not isinstance(s, int) or not isinstance(e, int) or not 0 <= s < e <= len(doc):
            out.append(None)
            continue
        cut = e > s + 400
        stop = s + 400 if cut else e
        a = max(0, s - 160)
        nl = doc.rfind("\n", a, s)
        a = nl + 1 if nl >= 0 else a
        after = ""
        if not cut:
            b = min(len(doc), e + 160)
            nl = doc.find("\n", e, b)
            after = doc[e:nl if nl >= 0 else b]
        out.append({"before": doc[a:s], "text": doc[s:stop] + ("…" if cut else ""), "after": after})
    return json.dumps(out, ensure_ascii=False)


# --- regular expressions on documents ---------------------------------------------------------
# The re module's search functions are replaced by ones that note match spans when the string
# searched is a document. Patterns compiled by model code come back as _TrackedPattern (re.Pattern
# cannot be subclassed); the module functions accept it like a compiled pattern. Patterns compiled
# by library code are left alone.

import re as _re

_RE = {name: getattr(_re, name) for name in ("compile", "search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")}
_re_findall_raw = _RE["findall"]


def _plain(pattern):
    return pattern._p if isinstance(pattern, _TrackedPattern) else pattern


def _findall_item(m, groups):
    if groups == 0:
        return m.group(0)
    if groups == 1:
        g = m.group(1)
        return "" if g is None else g
    return tuple("" if g is None else g for g in m.groups())


def _tracked_findall(compiled, string, name, pos, endpos):
    """findall whose first matches are recorded; the rest is left to the C implementation."""
    it = compiled.finditer(string, pos, endpos)
    out = []
    last = None
    for m in it:
        out.append(_findall_item(m, compiled.groups))
        _evidence.record(name, m.start(), m.end(), "match")
        last = m
        if len(out) >= _EV_MATCHES_PER_CALL:
            break
    else:
        return out
    if last.end() == last.start():
        out.extend(_findall_item(m, compiled.groups) for m in it)
        return out
    # Same result as continuing: the string is not sliced, so anchors and lookbehinds still see
    # what precedes `pos`, and a match may start where the last one ended, as in findall.
    out.extend(compiled.findall(string, last.end(), endpos))
    return out


def _tracked_matches(it, name):
    n = 0
    for m in it:
        _evidence.record(name, m.start(), m.end(), "match")
        n += 1
        yield m
        if n >= _EV_MATCHES_PER_CALL:
            break
    yield from it


def _document_searched(string):
    return _evidence.doc_name(string) if _evidence.enabled and _evidence._by_id else None


class _TrackedPattern:
    """A pattern compiled by model code; its search methods record spans on documents."""

    __slots__ = ("_p",)

    def __init__(self, compiled):
        self._p = compiled

    def __getattr__(self, name):
        return getattr(self._p, name)

    def __repr__(self):
        return repr(self._p)

    def __eq__(self, other):
        return self._p == _plain(other)

    def __hash__(self):
        return hash(self._p)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_RE["compile"], (self._p.pattern, self._p.flags))

    def search(self, string, *args):
        m = self._p.search(string, *args)
        if m is not None:
            _evidence.on_match(string, m)
        return m

    def match(self, string, *args):
        m = self._p.match(string, *args)
        if m is not None:
            _evidence.on_match(string, m)
        return m

    def fullmatch(self, string, *args):
        m = self._p.fullmatch(string, *args)
        if m is not None:
            _evidence.on_match(string, m)
        return m

    def finditer(self, string, pos=0, endpos=sys.maxsize):
        it = self._p.finditer(string, pos, endpos)
        name = _document_searched(string)
        return _tracked_matches(it, name) if name else it

    def findall(self, string, pos=0, endpos=sys.maxsize):
        name = _document_searched(string)
        if not name:
            return self._p.findall(string, pos, endpos)
        return _tracked_findall(self._p, string, name, pos, endpos)


def _re_compile(pattern, flags=0):
    compiled = _RE["compile"](_plain(pattern), flags)
    try:
        from_cell = sys._getframe(1).f_code.co_filename == CELL_FILENAME
    except ValueError:
        from_cell = False
    return _TrackedPattern(compiled) if from_cell else compiled


def _re_search(pattern, string, flags=0):
    m = _RE["search"](_plain(pattern), string, flags)
    if m is not None:
        _evidence.on_match(string, m)
    return m


def _re_match(pattern, string, flags=0):
    m = _RE["match"](_plain(pattern), string, flags)
    if m is not None:
        _evidence.on_match(string, m)
    return m


def _re_fullmatch(pattern, string, flags=0):
    m = _RE["fullmatch"](_plain(pattern), string, flags)
    if m is not None:
        _evidence.on_match(string, m)
    return m


def _re_finditer(pattern, string, flags=0):
    it = _RE["finditer"](_plain(pattern), string, flags)
    name = _document_searched(string)
    return _tracked_matches(it, name) if name else it


def _re_findall(pattern, string, flags=0):
    name = _document_searched(string)
    if not name:
        return _RE["findall"](_plain(pattern), string, flags)
    return _tracked_findall(_RE["compile"](_plain(pattern), flags), string, name, 0, sys.maxsize)


def _re_sub(pattern, repl, string, count=0, flags=0):
    return _RE["sub"](_plain(pattern), repl, string, count=count, flags=flags)


def _re_subn(pattern, repl, string, count=0, flags=0):
    return _RE["subn"](_plain(pattern), repl, string, count=count, flags=flags)


def _re_split(pattern, string, maxsplit=0, flags=0):
    return _RE["split"](_plain(pattern), string, maxsplit=maxsplit, flags=flags)


for _name, _fn in (
    ("compile", _re_compile), ("search", _re_search), ("match", _re_match), ("fullmatch", _re_fullmatch),
    ("finditer", _re_finditer), ("findall", _re_findall), ("sub", _re_sub), ("subn", _re_subn), ("split", _re_split),
):
    _fn.__name__ = _name
    _fn.__doc__ = _RE[_name].__doc__
    setattr(_re, _name, _fn)
del _name, _fn

_evidence = _Evidence()
_evidence.documents_changed()
