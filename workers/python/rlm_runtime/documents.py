# The session's documents and the `context` built from them: decoding bytes the way an editor
# would, adding and removing one document at a time, describing `context` for the host, and the
# (name, text) pairs and pieces the helpers and probes read.

import codecs
import json

from . import namespace
from .namespace import to_text

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_bytes(data):
    """Bytes to text the way an editor would: BOM first, then UTF-8, then Latin-1.

    Returns (text, encoding_name)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return data.decode(name, errors="replace"), name
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


# The session's documents, in the order they were added: name -> decoded text. `context` is
# built from them (one document: its str; several: a dict path -> text). Adding or removing one
# document decodes only that one; rebuilding `context` copies no text, only references.
loaded_documents = {}
_encodings = {}

# Called with no arguments whenever `context` is rebuilt (the evidence recorder's
# documents_changed; __init__ wires it).
on_change = []


def set_context(value):
    """Replace `context` with a value (a child RLM's task text, tests); forgets the documents."""
    loaded_documents.clear()
    _encodings.clear()
    _set_context_value(value)


def _set_context_value(value):
    namespace.set_context_value(value)
    for listener in on_change:
        listener()


def _read_source(src):
    """Bytes of a mounted file path, a JS Uint8Array or a bytes-like, decoded to text."""
    if isinstance(src, str):
        with open(src, "rb") as fh:
            raw = fh.read()
    elif hasattr(src, "to_bytes"):  # a JS Uint8Array
        raw = src.to_bytes()
    else:
        raw = bytes(src)
    return decode_bytes(raw)


def _rebuild_context(shape="auto"):
    texts = list(loaded_documents.values())
    if shape == "auto":
        shape = "str" if len(texts) <= 1 else "dict"
    if shape == "str":
        value = texts[0] if len(texts) == 1 else "\n\n".join(texts)
    elif shape == "list":
        value = texts
    else:
        value = dict(loaded_documents)
    _set_context_value(value)


def _documents_json():
    return json.dumps(describe_context([_encodings[n] for n in loaded_documents]))


def add_document(name, src):
    """Decode one document and add it to `context` (a document of the same name is replaced)."""
    text, enc = _read_source(src)
    name = str(name)
    loaded_documents.pop(name, None)
    loaded_documents[name] = text
    _encodings[name] = enc
    _rebuild_context()
    return _documents_json()


def remove_document(name):
    """Drop one document from `context`; its text is freed once no variable holds it."""
    name = str(name)
    loaded_documents.pop(name, None)
    _encodings.pop(name, None)
    _rebuild_context()
    return _documents_json()


def load_documents(names, sources, shape):
    """Build `context` from these documents only. `sources[i]` is bytes or a path to read.

    shape: "auto" (one document -> str, several -> dict path -> text), "str", "list", "dict".
    Returns a JSON description of what was loaded."""
    loaded_documents.clear()
    _encodings.clear()
    for name, src in zip(list(names), sources):
        text, enc = _read_source(src)
        loaded_documents[str(name)] = text
        _encodings[str(name)] = enc
        del text
    _rebuild_context(shape)
    return _documents_json()


def context_json():
    return json.dumps(describe_context())


def describe_context(encodings=None):
    value = namespace.context_value
    if isinstance(value, str):
        info = {"type": "str", "total_chars": len(value), "items": 1}
    elif isinstance(value, dict):
        lengths = [len(v) if isinstance(v, str) else len(to_text(v)) for v in value.values()]
        info = {"type": "dict", "total_chars": sum(lengths), "items": len(lengths),
                "keys_preview": [str(k) for k in list(value.keys())[:20]]}
    elif isinstance(value, list):
        lengths = [len(v) if isinstance(v, str) else len(to_text(v)) for v in value]
        info = {"type": "list", "total_chars": sum(lengths), "items": len(lengths)}
    else:
        info = {"type": type(value).__name__, "total_chars": len(to_text(value)), "items": 1}
    if encodings is not None:
        info["encodings"] = encodings
    return info


# --- what the helpers and probes read ---------------------------------------------------------

def documents():
    """(name, text) pairs of `context`: one unnamed str, or every document of a dict or list."""
    value = namespace.ns.get("context", namespace.context_value)
    if isinstance(value, str):
        return [(None, value)]
    if isinstance(value, dict):
        return [(str(k), v if isinstance(v, str) else to_text(v)) for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [(str(i), v if isinstance(v, str) else to_text(v)) for i, v in enumerate(value)]
    return [(None, to_text(value))]


def _piece_end(body, start, chunk_chars):
    """Where the piece from `start` ends: at most chunk_chars on, after the last line break in
    its last fifth (else the last space in its last tenth). A hard cut split records, sentences
    and needles between two pieces, and neither piece's answer then had them whole."""
    end = start + chunk_chars
    if end >= len(body):
        return len(body)
    newline = body.rfind("\n", start + chunk_chars * 4 // 5, end)
    if newline >= 0:
        return newline + 1
    space = body.rfind(" ", start + chunk_chars * 9 // 10, end)
    return space + 1 if space >= 0 else end


def pieces(chunk_chars, text=None):
    """(doc, start, end, text) pieces of `context` (or of `text`) of at most chunk_chars each,
    cut at a line break or a space near the limit when there is one."""
    docs = [(None, text)] if text is not None else documents()
    for doc, body in docs:
        start = 0
        while True:
            end = _piece_end(body, start, chunk_chars)
            yield doc, start, end, body[start:end]
            if end >= len(body):
                break
            start = end
