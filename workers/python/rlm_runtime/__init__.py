# The Python half of the REPL: the namespace model code runs in, the helpers it calls
# (llm_query, FINAL, answer, ...), output capture and error formatting, and the record of what
# cells read. The worker (workers/repl-runtime.ts) imports this package once, before Python's
# memory snapshot is taken, and from then on calls only `runtime`, the one object below.
#
# Modules, each importing only those before it:
#   host        the bridge to JavaScript (_rlm_host, registered by the worker)
#   vocabulary  the names model code finds, generated from src/core/repl-vocabulary.ts
#   namespace   the namespace dict, the final-answer slot, `answer`, `context`, `history`
#   documents   decoding documents and building `context` from them
#   evidence/   which passages cells read (a subpackage)
#   patches     time.sleep, the recursion limit, os._exit: what the runtime changes outside itself
#   helpers     the functions model code calls
#   cells       running one cell
#   probes      the host's own questions, never a cell
#   runtime     Runtime, the object the worker holds

from . import cells, documents, evidence, helpers, host, namespace, patches, probes, vocabulary
from .runtime import Runtime

# What changes outside the package, in this order: Python's own functions first, then the
# evidence recorder's (context[a:b] noted through builtins, re's search functions recording),
# then the recorder follows every change of `context`.
patches.apply()
evidence.install()
documents.on_change.append(evidence.recorder.documents_changed)

runtime = Runtime()
runtime.reset_namespace()

__all__ = ["Runtime", "cells", "documents", "evidence", "helpers", "host", "namespace", "patches", "probes", "runtime", "vocabulary"]
