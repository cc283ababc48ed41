# What the runtime changes outside itself, so that model code cannot hang or end the interpreter:
# time.sleep in slices Stop can end, a recursion limit the browser's stack survives, and
# os._exit()/os.abort() refused. Nothing is patched on import: __init__ calls apply() at its
# place in the order.

import sys
import time

from . import host


def _interruptible_sleep(seconds):
    """time.sleep in short slices, checking for Stop between them.

    Why: Pyodide's own sleep either suspends the stack (JSPI) or blocks in one piece, and in
    both cases a KeyboardInterrupt waits until the whole sleep is over."""
    seconds = float(seconds)
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        host.sleep_slice(min(left, 0.05) * 1000.0)


# Deep recursion past the browser's native stack kills the whole interpreter, which looks like
# a hang; within this limit it is an ordinary RecursionError the model can read and fix.
MAX_RECURSION_LIMIT = 3000
_set_recursion_limit = sys.setrecursionlimit


def _bounded_setrecursionlimit(limit):
    _set_recursion_limit(min(int(limit), MAX_RECURSION_LIMIT))
    if int(limit) > MAX_RECURSION_LIMIT:
        print("Note: the recursion limit stays at {} here; deeper recursion would crash the browser's "
              "Python. Rewrite the recursion as a loop.".format(MAX_RECURSION_LIMIT), file=sys.stderr)


# os._exit() and os.abort() would end the interpreter the session lives in, and the host would
# only notice at the cell's time limit. Here they raise SystemExit, which run_cell reports.
class ProcessExitRefused(SystemExit):
    pass


def _no_process_exit(code=0):
    raise ProcessExitRefused(code)


def _patch_process_exits():
    import os
    import posix
    for module in (os, posix):
        for name in ("_exit", "abort"):
            if hasattr(module, name):
                setattr(module, name, _no_process_exit)


def apply():
    time.sleep = _interruptible_sleep
    sys.setrecursionlimit = _bounded_setrecursionlimit
    _patch_process_exits()
