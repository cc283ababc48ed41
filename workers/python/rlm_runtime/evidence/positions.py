# Line numbers (and PDF pages, DOCX paragraphs) of offsets in a document, from sparse checkpoints
# built lazily, only as far into a document as a range needs, so a range costs at most one
# checkpoint block of counting.

from .limits import EV_BLOCK

_PAGE_MARK = "--- page "        # src/ingest/pdf.ts starts every page with "--- page N ---"


def doc_kind(name, text):
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


class DocIndex:
    """Line numbers (and PDF pages, DOCX paragraphs) of one document from checkpoints every
    EV_BLOCK characters, built only as far as a lookup needs."""

    __slots__ = ("kind", "lines", "pages", "paras")

    def __init__(self, kind):
        self.kind = kind
        self.lines = [0]   # newlines before checkpoint k
        self.pages = [1]   # page at checkpoint k (PDF)
        self.paras = [0]   # blank-line paragraph breaks before checkpoint k (DOCX)

    def _extend(self, text, k):
        n = len(self.lines) - 1
        while n < k:
            a = n * EV_BLOCK
            b = a + EV_BLOCK
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
        k = offset // EV_BLOCK
        self._extend(text, k)
        a = k * EV_BLOCK
        line = self.lines[k] + text.count("\n", a, offset) + 1
        page = para = None
        if self.kind == "pdf":
            found = _last_page(text, a, offset + 1)
            page = self.pages[k] if found is None else found
        elif self.kind == "docx":
            para = self.paras[k] + text.count("\n\n", a, offset + 1) + 1
        return line, page, para
