"""Runs the canonical RLM harness (alexzhang13/rlm, local REPL) on one document and question,
for bench/cli-vs-python.ts. Needs an interpreter that can `import rlm` (a throwaway virtualenv
prepared outside this repository; see bench/RESULTS.md for how the figures were made).

usage: python canonical_rlm.py CONTEXT_FILE QUESTION BASE_URL MODEL
Prints the answer on stdout.
"""

import sys

from rlm import RLM


def main() -> int:
    context_file, question, base_url, model = sys.argv[1:5]
    with open(context_file, encoding="utf-8") as fh:
        context = fh.read()
    rlm = RLM(
        backend="openai",
        backend_kwargs={"model_name": model, "base_url": base_url, "api_key": "none"},
        environment="local",
        max_iterations=10,
    )
    result = rlm.completion(context, root_prompt=question)
    print(result.response)
    return 0


if __name__ == "__main__":
    sys.exit(main())
