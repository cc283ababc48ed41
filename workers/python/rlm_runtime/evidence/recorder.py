# The recorder: what a question and each of its cells read, located in the documents, with lines.

import ast
import sys

from ..documents import loaded_documents
from .align import common_backward, common_forward, covering_end, segments
from .answers import answer_span, answer_terms, read_unions
from .limits import (
    EV_ANCHOR_WINDOW, EV_ANCHORS, EV_ANSWER_HITS, EV_ANSWER_SCAN_CHARS, EV_FULL_SCAN_CHARS, EV_LITERALS,
    EV_MIN_ANCHOR, EV_MIN_FRAGMENT, EV_MISSES_KEPT, EV_NAMED_SCAN_CHARS, EV_NEAR, EV_PROBE, EV_PROBES_PER_CELL,
    EV_QUESTION_RANGES, EV_RANGES_PER_CELL, EV_RANGES_PER_PROMPT, EV_RAW_PER_CELL, EV_SLICE_TRIES, EV_SLICES,
    EV_TRIES_PER_SEGMENT, EV_WINDOW,
)
from .positions import DocIndex, doc_kind
from .regex import RE
from .slices import SliceHints


class Evidence:
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
            self._ids = {id(text): name for name, text in loaded_documents.items() if isinstance(text, str)}
            self._ids_stale = False
        return self._ids

    def doc_name(self, value):
        """The name of the document `value` is (the very object, never an equal copy), or None."""
        name = self._by_id.get(id(value))
        if name is not None and loaded_documents.get(name) is value:
            return name
        return None

    def _index(self, name, doc):
        index = self._indexes.get(name)
        if index is None:
            index = self._indexes[name] = DocIndex(doc_kind(name, doc))
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
        self.probes_left = EV_PROBES_PER_CELL
        self.scan_left = EV_FULL_SCAN_CHARS
        self.first_full_search = True

    def record(self, name, start, end, kind, in_cell=True):
        if not self.enabled or end <= start:
            return
        entry = (name, start, end, kind)
        if in_cell and len(self.cell) < EV_RAW_PER_CELL:
            self.cell.append(entry)
        if len(self.question_ranges) < EV_QUESTION_RANGES:
            self.question_ranges.append(entry)
        if kind in ("match", "cite"):
            self._remember_place(name, start, end, end - start >= EV_MIN_ANCHOR)

    def _remember_place(self, name, start, end, anchor):
        self.near.append((name, start, end))
        if len(self.near) > EV_NEAR:
            del self.near[0]
        if anchor:
            self.anchors.append((name, start, end))
            if len(self.anchors) > EV_ANCHORS:
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
        if end - start >= EV_MIN_FRAGMENT:
            self.slices.append((name, start, end))
            if len(self.slices) > EV_SLICES:
                drop = len(self.slices) // 2
                del self.slices[:drop]
                self.slice_head = max(0, self.slice_head - drop)

    def rewrite(self, tree):
        """The cell's syntax tree with context[a:b] and context[key][a:b] noted (see SliceHints)."""
        if not self.enabled:
            return tree
        return ast.fix_missing_locations(SliceHints().visit(tree))

    def on_match(self, string, match):
        if self.enabled and self._by_id:
            name = self.doc_name(string)
            if name is not None:
                self.record(name, match.start(), match.end(), "match")

    def cite(self, start, end, doc=None):
        if not self.enabled:
            return None
        if doc is None:
            if len(loaded_documents) != 1:
                print("Error: cite: there are several documents; name one: cite(start, end, doc=\"path\").", file=sys.stderr)
                return None
            doc = next(iter(loaded_documents))
        text = loaded_documents.get(doc)
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
        if not self._by_id or len(text) < EV_MIN_FRAGMENT:
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
        doc = loaded_documents[name]
        back = common_backward(text, t, doc, d, 0)
        ahead = common_forward(text, t, doc, d)
        ts, te = t - back, t + ahead
        found[:] = [f for f in found if not (ts <= f[0] and f[1] <= te)]
        for f in found:
            if f[0] <= ts < f[1]:
                ts = f[1]
            elif ts < f[0] < te:
                te = f[0]
        if te - ts < EV_MIN_FRAGMENT:
            return t + max(1, ahead)
        found.append([ts, te, name, d - (t - ts)])
        self.cursor = (name, d + ahead)
        return te

    def _align_on_slices(self, text, found):
        """The queued slices, oldest first, that `text` holds; each one found is used up, with
        any taken before it that never showed up."""
        tries = 0
        i = self.slice_head
        while i < len(self.slices) and tries < EV_SLICE_TRIES:
            name, s, e = self.slices[i]
            doc = loaded_documents.get(name)
            o = text.find(doc[s:s + EV_PROBE]) if doc is not None else -1
            if o >= 0 and covering_end(found, o) is None:
                self._align(text, o, name, s, found)
                if covering_end(found, o) is not None:
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
            doc = loaded_documents.get(name)
            o = text.find(doc[c:c + EV_PROBE]) if doc is not None and c + EV_MIN_FRAGMENT <= len(doc) else -1
            if o >= 0 and covering_end(found, o) is None:
                self._align(text, o, name, c, found)
        for name, s, e in reversed(self.anchors):
            doc = loaded_documents.get(name)
            if doc is None:
                continue
            o = text.find(doc[s:min(e, s + 200)])
            if o >= 0 and covering_end(found, o) is None:
                self._align(text, o, name, s, found)

    def _probe(self, text, found):
        for seg_start, seg_end in segments(text):
            pos = seg_start
            failures = 0
            while seg_end - pos >= EV_MIN_FRAGMENT and failures < EV_TRIES_PER_SEGMENT and self.probes_left > 0:
                covered = covering_end(found, pos)
                if covered is not None:
                    pos = covered
                    continue
                self.probes_left -= 1
                where = self._find(text[pos:min(seg_end, pos + EV_PROBE)])
                if where is None:
                    failures += 1
                    pos += EV_PROBE
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
            doc = loaded_documents.get(name)
            if doc is not None:
                if doc.startswith(probe, c):
                    return name, c
                i = doc.find(probe, c, c + EV_WINDOW)
                if i < 0:
                    i = doc.find(probe, max(0, c - EV_WINDOW), c + len(probe))
                if i >= 0:
                    return name, i
        for name, s, e in reversed(self.near):
            doc = loaded_documents.get(name)
            if doc is not None:
                i = doc.find(probe, max(0, s - EV_ANCHOR_WINDOW), e + EV_ANCHOR_WINDOW)
                if i >= 0:
                    return name, i
        return None

    def _find_anywhere(self, probe):
        """Whole documents, rationed: a cell's first such search is always made, later ones
        while the cell's scan budget lasts."""
        if not self.first_full_search and self.scan_left <= 0:
            return None
        self.first_full_search = False
        for name, doc in loaded_documents.items():
            if not isinstance(doc, str):
                continue
            i = doc.find(probe)
            if i >= 0:
                self.scan_left -= i + len(probe)
                return name, i
            self.scan_left -= len(doc)
        if len(self.misses) < EV_MISSES_KEPT:
            self.misses.add(probe)
        return None

    # --- results ---------------------------------------------------------------------------

    def describe(self, entry):
        name, start, end, kind = entry[:4]
        doc = loaded_documents[name]
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
            for name, s, e in self.locate(prompt)[:EV_RANGES_PER_PROMPT]:
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
        for r in ranges[:EV_RANGES_PER_PROMPT]:
            name = r.get("doc") if isinstance(r, dict) else None
            if name is None and len(loaded_documents) == 1:
                name = next(iter(loaded_documents))
            doc = loaded_documents.get(name)
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
        out = [self.describe(r) for r in _merge_ranges(self.cell)[:EV_RANGES_PER_CELL]]
        if final is not None:
            out.extend(self.describe(h) for h in self.answer_hits(final))
        return out

    def _keep_literals(self, code):
        if not code or not self.enabled:
            return
        found = set(self.literals)
        for m in RE["finditer"](r"'([^'\\\n]{4,200})'|\"([^\"\\\n]{4,200})\"", code):
            found.add(m.group(1) or m.group(2))
        self.literals = sorted(found, key=lambda s: (-len(s), s))[:EV_LITERALS]

    def answer_hits(self, answer):
        whole, terms = answer_terms(answer)
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
        for name, doc in loaded_documents.items():
            named_by_answer = name in answer
            if not isinstance(doc, str) or not (named_by_answer or name in self.literals):
                continue
            stop = min(len(doc), EV_NAMED_SCAN_CHARS - scanned)
            if stop <= 0:
                break
            scanned += stop
            span = answer_span(doc, 0, stop, whole, terms)
            if span is None and named_by_answer:
                span = self._first_literal(doc, stop, name)
            if span is not None:
                hits.append((name, span[0], span[1], "answer", span[2]))
            if len(hits) >= EV_ANSWER_HITS:
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
        recently read first, at most EV_ANSWER_SCAN_CHARS characters."""
        hits = []
        scanned = 0
        for name, s, e in read_unions(self.question_ranges):
            doc = loaded_documents.get(name)
            if doc is None:
                continue
            stop = min(e, s + EV_ANSWER_SCAN_CHARS - scanned)
            if stop <= s:
                break
            scanned += stop - s
            span = answer_span(doc, s, stop, whole, terms)
            if span is not None:
                hits.append((name, span[0], span[1], "answer", span[2]))
            if len(hits) >= EV_ANSWER_HITS:
                break
        hits.sort(key=lambda h: -h[4])
        return hits



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
