# Line numbers (and pages, paragraphs: the places a document's format marks) of offsets in a
# document, from sparse checkpoints built lazily, only as far into a document as a range needs, so
# a range costs at most one checkpoint block of counting. How a format marks its places is the
# registry's (formats.py, generated from src/ingest/formats); which format a document is, the host
# says when it hands the document over (documents.kind_of).

from ..formats import PLACES
from .limits import EV_BLOCK


def _last_page(text, a, b, before, after):
    """The number in the last page marker (a line starting before + digits + after) that starts
    at an offset in [a, b), or None."""
    end = min(len(text), b + len(before) - 1)
    while True:
        i = text.rfind(before, a, end)
        if i < 0:
            return None
        if i == 0 or text[i - 1] == "\n":
            j = k = i + len(before)
            while k < len(text) and k - j < 7 and "0" <= text[k] <= "9":
                k += 1
            if k > j and text.startswith(after, k):
                return int(text[j:k])
        end = i + len(before) - 1


class DocIndex:
    """Line numbers (and pages or paragraphs, when the document's kind marks them) of one document
    from checkpoints every EV_BLOCK characters, built only as far as a lookup needs."""

    __slots__ = ("unit", "places", "lines", "pages", "paras")

    def __init__(self, kind):
        self.places = PLACES.get(kind)
        self.unit = self.places["unit"] if self.places else "line"
        self.lines = [0]   # newlines before checkpoint k
        self.pages = [1]   # page at checkpoint k (unit "page")
        self.paras = [0]   # paragraph separators before checkpoint k (unit "paragraph")

    def _last_page(self, text, a, b):
        return _last_page(text, a, b, self.places["before"], self.places["after"])

    def _separators(self, text, a, b):
        """Separators starting in [a, b): one that starts in a block belongs to it. A run of more
        separator characters than one separator across a checkpoint may be counted one off
        (mammoth writes exactly two newlines)."""
        separator = self.places["separator"]
        return text.count(separator, a, b + len(separator) - 1)

    def _extend(self, text, k):
        n = len(self.lines) - 1
        while n < k:
            a = n * EV_BLOCK
            b = a + EV_BLOCK
            self.lines.append(self.lines[n] + text.count("\n", a, b))
            if self.unit == "page":
                page = self._last_page(text, a, b)
                self.pages.append(self.pages[n] if page is None else page)
            elif self.unit == "paragraph":
                self.paras.append(self.paras[n] + self._separators(text, a, b))
            n += 1

    def position(self, text, offset):
        """(line, page or None, paragraph or None) at `offset`, all 1-based."""
        offset = max(0, min(offset, len(text)))
        k = offset // EV_BLOCK
        self._extend(text, k)
        a = k * EV_BLOCK
        line = self.lines[k] + text.count("\n", a, offset) + 1
        page = para = None
        if self.unit == "page":
            found = self._last_page(text, a, offset + 1)
            page = self.pages[k] if found is None else found
        elif self.unit == "paragraph":
            para = self.paras[k] + self._separators(text, a, offset) + 1
        return line, page, para
