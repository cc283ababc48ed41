# The re module's search functions are replaced by ones that note match spans when the string
# searched is a document. Patterns compiled by model code come back as _TrackedPattern (re.Pattern
# cannot be subclassed); the module functions accept it like a compiled pattern. Patterns compiled
# by library code are left alone.

import re as _re
import sys

from ..namespace import CELL_FILENAME
from .limits import EV_MATCHES_PER_CALL

# The re module's own functions, taken before install() replaces them.
RE = {name: getattr(_re, name) for name in ("compile", "search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")}
_recorder = None  # the Evidence that matches are recorded in (install)


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
        _recorder.record(name, m.start(), m.end(), "match")
        last = m
        if len(out) >= EV_MATCHES_PER_CALL:
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
        _recorder.record(name, m.start(), m.end(), "match")
        n += 1
        yield m
        if n >= EV_MATCHES_PER_CALL:
            break
    yield from it


def _document_searched(string):
    return _recorder.doc_name(string) if _recorder.enabled and _recorder._by_id else None


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
        return (RE["compile"], (self._p.pattern, self._p.flags))

    def search(self, string, *args):
        m = self._p.search(string, *args)
        if m is not None:
            _recorder.on_match(string, m)
        return m

    def match(self, string, *args):
        m = self._p.match(string, *args)
        if m is not None:
            _recorder.on_match(string, m)
        return m

    def fullmatch(self, string, *args):
        m = self._p.fullmatch(string, *args)
        if m is not None:
            _recorder.on_match(string, m)
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
    compiled = RE["compile"](_plain(pattern), flags)
    try:
        from_cell = sys._getframe(1).f_code.co_filename == CELL_FILENAME
    except ValueError:
        from_cell = False
    return _TrackedPattern(compiled) if from_cell else compiled


def _re_search(pattern, string, flags=0):
    m = RE["search"](_plain(pattern), string, flags)
    if m is not None:
        _recorder.on_match(string, m)
    return m


def _re_match(pattern, string, flags=0):
    m = RE["match"](_plain(pattern), string, flags)
    if m is not None:
        _recorder.on_match(string, m)
    return m


def _re_fullmatch(pattern, string, flags=0):
    m = RE["fullmatch"](_plain(pattern), string, flags)
    if m is not None:
        _recorder.on_match(string, m)
    return m


def _re_finditer(pattern, string, flags=0):
    it = RE["finditer"](_plain(pattern), string, flags)
    name = _document_searched(string)
    return _tracked_matches(it, name) if name else it


def _re_findall(pattern, string, flags=0):
    name = _document_searched(string)
    if not name:
        return RE["findall"](_plain(pattern), string, flags)
    return _tracked_findall(RE["compile"](_plain(pattern), flags), string, name, 0, sys.maxsize)


def _re_sub(pattern, repl, string, count=0, flags=0):
    return RE["sub"](_plain(pattern), repl, string, count=count, flags=flags)


def _re_subn(pattern, repl, string, count=0, flags=0):
    return RE["subn"](_plain(pattern), repl, string, count=count, flags=flags)


def _re_split(pattern, string, maxsplit=0, flags=0):
    return RE["split"](_plain(pattern), string, maxsplit=maxsplit, flags=flags)


def install(recorder):
    """Replaces re's search functions with the ones above, recording into `recorder`."""
    global _recorder
    _recorder = recorder
    for name, fn in (
        ("compile", _re_compile), ("search", _re_search), ("match", _re_match), ("fullmatch", _re_fullmatch),
        ("finditer", _re_finditer), ("findall", _re_findall), ("sub", _re_sub), ("subn", _re_subn), ("split", _re_split),
    ):
        fn.__name__ = name
        fn.__doc__ = RE[name].__doc__
        setattr(_re, name, fn)
