# Which passages of the documents a question read, so every answer can point at them. It records
# source ranges (document name, character offsets into the document's str, end exclusive) from
# four places:
#   print   text a cell printed that is a verbatim piece of a document
#   prompt  text given to llm_query / llm_query_batched / rlm_query (sent with the request, so
#           the host files it under the sub-call it belongs to)
#   match   spans of re.search / match / fullmatch / finditer / findall on a document
#   cite    cite(start, end, doc) called by the model
# and, in the cell that submits the answer, the places in those passages where the answer
# appears ("answer"). Each range comes with its line (PDF: page; DOCX: paragraph).
#
# Every cost is bounded, because `context` may be a 500 MB str (limits.py):
# - a document is never copied or wrapped (a str subclass would copy it): regex calls recognise
#   one by identity, through a table of id(text) -> name (regex.py);
# - a printed or prompted fragment is found by looking up a 48-character probe with str.find,
#   first next to positions already known (where the last fragment ended, recent regex matches),
#   and only then in whole documents, which a cell may do a rationed number of times (recorder.py);
# - line numbers come from sparse checkpoints built lazily, only as far into a document as a
#   range needs, so a range costs at most one checkpoint block of counting (positions.py).
#
# The recorder is one object, `recorder`; the runtime's modules call it. Nothing is patched on
# import: the package's __init__ calls install() at its place in the order.

from . import regex, slices
from .passages import source_passages
from .recorder import Evidence

recorder = Evidence()


def install():
    """context[a:b] in a cell is noted (builtins._rlm_slice), and re's search functions record
    the spans they match on a document."""
    slices.install(recorder)
    regex.install(recorder)


__all__ = ["Evidence", "install", "recorder", "source_passages"]
