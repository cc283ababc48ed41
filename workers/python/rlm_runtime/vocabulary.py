# Generated from src/core/repl-vocabulary.ts by scripts/python-vocabulary.ts; do not edit.
# Change the TypeScript and run: node --import tsx scripts/python-vocabulary.ts --write

# Every name the runtime puts in the namespace: a cell may rebind one, and the next cell finds the
# runtime's again.
RESERVED = (
    "context", "llm_query", "llm_query_batched", "rlm_query", "rlm_query_batched", "search",
    "map_query", "SHOW_VARS", "cite", "FINAL", "FINAL_VAR", "answer", "history",
)

# The helpers the namespace offers, in the order it is built (helpers.py implements each).
FUNCTIONS = (
    "llm_query", "llm_query_batched", "rlm_query", "rlm_query_batched", "search", "map_query",
    "SHOW_VARS", "cite", "FINAL", "FINAL_VAR",
)

# Each helper's signature, as Python must declare it (tests/node/python-runtime.test.ts).
SIGNATURES = {
    "llm_query": "llm_query(prompt, model=None)",
    "llm_query_batched": "llm_query_batched(prompts, model=None)",
    "rlm_query": "rlm_query(prompt, model=None)",
    "rlm_query_batched": "rlm_query_batched(prompts, model=None)",
    "search": "search(pattern, window=200, max_hits=None, ignore_case=True)",
    "map_query": "map_query(question, chunk_chars=None, text=None)",
    "SHOW_VARS": "SHOW_VARS()",
    "cite": "cite(start, end, doc=None)",
    "FINAL": "FINAL(value)",
    "FINAL_VAR": "FINAL_VAR(name)",
}

# What a NameError's hint names ("Names you can use: ...").
NAME_ERROR_NAMES = (
    "context", "llm_query", "llm_query_batched", "rlm_query", "search", "map_query", "SHOW_VARS",
    "FINAL", "FINAL_VAR", "answer",
)

# The helpers' limits until the host sends the sub-model's (the "configure" probe).
HELPER_LIMITS = {
    "chunk_chars": 8000,
    "max_chunks": 40,
    "search_max_hits": 20,
    "search_output_chars": 4000,
}

# map_query()'s answer for a part without the answer, and its question about each part.
NOT_FOUND = "NOT FOUND"
MAP_PROMPT = (
    "Here is part {part} of {parts} of a document{where}.\n"
    "<<<\n"
    "{text}\n"
    ">>>\n"
    "Question: {question}\n"
    "Answer from this part only, briefly. If this part does not contain the answer, reply exactly: NOT FOUND"
)
