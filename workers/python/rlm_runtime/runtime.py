# The one object the worker holds (workers/shared/python-runtime.ts binds its methods once): every call
# the host makes into Python goes through it, so nothing outside this class is called by name.

import sys

from . import cells, documents, namespace, probes
from .evidence import recorder, source_passages
from .helpers import install_scaffold


class Runtime:
    python_version = sys.version.split()[0]

    # --- documents and `context` ----------------------------------------------------------------

    def load_documents(self, names, sources, shape, kinds=None):
        """`context` from exactly these documents, each of its kind (the format registry's, as the
        host says); returns their description as JSON."""
        return documents.load_documents(names, sources, shape, kinds)

    def add_document(self, name, source, kind="text"):
        return documents.add_document(name, source, kind)

    def remove_document(self, name):
        return documents.remove_document(name)

    def set_context(self, value):
        """`context` becomes `value` (a child RLM's task text); returns its description as JSON."""
        documents.set_context(value)
        return documents.context_json()

    # --- questions and cells --------------------------------------------------------------------

    def run_cell(self, code, output_cap, cell_id):
        return cells.run_cell(code, output_cap, cell_id)

    async def finish_cell(self, cell_id):
        return await cells.finish_cell(cell_id)

    def begin_question(self, history_json):
        """A new question: `history` holds the earlier ones, a previous submission is forgotten,
        every variable is kept."""
        namespace.set_history(history_json)
        namespace.begin_question()
        recorder.begin_question()

    def reset_namespace(self):
        """Forget every variable; `context` stays loaded."""
        namespace.clear()
        recorder.begin_question()
        install_scaffold()
        namespace.builtin_names.update(("__name__", "__builtins__"))

    # --- the host's own questions -----------------------------------------------------------------

    def probe(self, request_json):
        return probes.probe(request_json)

    def source_passages(self, ranges_json):
        return source_passages(ranges_json)

    def record_sources(self, on):
        """Whether cells record what they read (the evidence recorder); on by default."""
        recorder.enabled = bool(on)
