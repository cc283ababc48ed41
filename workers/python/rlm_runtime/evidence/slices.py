# context[a:b] noted where it was taken: the next text printed or prompted is most likely it.

import ast
import builtins

_recorder = None  # the Evidence that on_slice goes to (install)


def _names_context(node):
    """`context` or `context[key]` (a document of a dict context) as an expression."""
    if isinstance(node, ast.Name):
        return node.id == "context"
    return isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice) and _names_context(node.value)


class SliceHints(ast.NodeTransformer):
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
        _recorder.on_slice(value, lower, upper)
    return part


def install(recorder):
    """Cells resolve _rlm_slice through builtins, so no variable of theirs can hide it."""
    global _recorder
    _recorder = recorder
    builtins._rlm_slice = _rlm_slice
