# The text of an answer's sources, with the rest of their lines around them, for quoting.

import json

from ..documents import loaded_documents


def source_passages(ranges_json):
    """The text of each range, with the rest of its line(s) around it, for quoting an answer's
    sources: [{"before", "text", "after"} | null]. At most 400 characters of a long range."""
    out = []
    for r in json.loads(ranges_json)[:64]:
        doc = loaded_documents.get(r.get("doc")) if isinstance(r, dict) else None
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
