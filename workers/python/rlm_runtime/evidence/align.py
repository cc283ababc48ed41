# Where a printed or prompted text and a document agree: growing a match both ways in blocks,
# the lines of a printout, and which part of a text an alignment already explains.

def _grow(limit, agrees):
    """The length of the longest agreement up to `limit`, found in blocks that double while they
    agree and halve once one does not, so a 20,000-character match costs a few comparisons.
    agrees(n, k): whether the k characters after the n already matched agree too."""
    n = 0
    step = 64
    narrowing = False
    while n < limit:
        k = min(step, limit - n)
        if agrees(n, k):
            n += k
            if not narrowing:
                step = min(step * 2, 65_536)
        elif k == 1:
            break
        else:
            narrowing = True
            step = k // 2
    return n


def common_forward(text, t, doc, d):
    """How many characters text[t:] and doc[d:] share at their start."""
    return _grow(min(len(text) - t, len(doc) - d), lambda n, k: doc.startswith(text[t + n:t + n + k], d + n))


def common_backward(text, t, doc, d, lo):
    """How many characters end both text[:t] (not before `lo`) and doc[:d]."""
    return _grow(min(t - lo, d), lambda n, k: doc.startswith(text[t - n - k:t - n], d - n - k))


def segments(text):
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


def covering_end(found, pos):
    for f in found:
        if f[0] <= pos < f[1]:
            return f[1]
    return None
