// The names model code finds in the REPL, declared once: what each is, how Python declares it,
// the line each prompt profile gives it, and the limits Python starts with. Everything else is
// derived from this table or tested against it:
// - Python's reserved names, the order the namespace is built in, the names a NameError lists and
//   the helpers' starting limits come from workers/python/rlm_runtime/vocabulary.py, which
//   scripts/python-vocabulary.ts writes from this file (tests/unit/repl-vocabulary.test.ts fails
//   when the two differ; tests/node/python-runtime.test.ts checks each function's signature);
// - each profile's list of helpers in its system prompt, and the names feedback says exist
//   (`helperLines`, `offeredNames`);
// - which code reads the document (the stuck guard) and which needs the sub-model's limits first
//   (the loop's configure probe);
// - the question map_query() and the harness's own map-reduce ask about each piece (`mapPrompt`).
import type { Budgets } from "./budgets.ts";
import { groupDigits } from "./numbers.ts";
import type { PromptProfileName } from "./profiles/types.ts";

/** What a prompt line may depend on. */
export interface VocabularyInputs {
  budgets: Budgets;
  /** Whether rlm_query starts a child RLM (depth allows) or is a plain sub-call. */
  recursive: boolean;
}

/** How one prompt profile offers a name. */
export interface Offer {
  /** Its line in the profile's list of helpers (none when another name's line covers it, or null for this run). */
  line?: (inputs: VocabularyInputs) => string | null;
  /** Named when feedback lists what exists: always (the default), never, or only when rlm_query recurses. */
  listed?: boolean | "if-recursive";
  /** Listed before the profile's other names (the guided profile leads with the helpers that do the work). */
  lead?: boolean;
}

/** Limits Python starts with, until the host sends the sub-model's (the "configure" probe). */
export interface HelperLimitDefaults {
  /** Characters of `context` per map_query prompt. */
  chunk_chars?: number;
  /** Parts map_query may send in one call (each is a sub-call). */
  max_chunks?: number;
  /** Matches search() returns unless asked for more. */
  search_max_hits?: number;
  /** Characters of search()'s printed form. */
  search_output_chars?: number;
}

export interface ReplName {
  name: string;
  /** A function of the runtime's helpers module, or a value the namespace holds. */
  kind: "function" | "value";
  /** The Python signature (a function's is checked against Python's own). */
  signature: string;
  /** Named in the hint a cell's NameError gets ("Names you can use: …"). */
  inNameErrors: boolean;
  /** Calling it reads the document for the model (the stuck guard counts it as looking at `context`). */
  readsContext?: boolean;
  /** Its limits come from the sub-model: the host sends them before the first cell that calls it. */
  limits?: HelperLimitDefaults;
  offeredBy: Partial<Record<PromptProfileName, Offer>>;
}

const fmt = groupDigits;

/** map_query()'s answer for a part without the answer; the harness's map-reduce drops such parts. */
export const NOT_FOUND = "NOT FOUND";

/**
 * The question about one piece of a document, asked by map_query() and by the harness's own
 * map-reduce (fallback.ts). Fields in braces, filled once each: Python's str.format and `mapPrompt`.
 */
export const MAP_PROMPT_TEMPLATE =
  "Here is part {part} of {parts} of a document{where}.\n<<<\n{text}\n>>>\n" +
  "Question: {question}\n" +
  `Answer from this part only, briefly. If this part does not contain the answer, reply exactly: ${NOT_FOUND}`;

/** The vocabulary, in the order the namespace is built, feedback names it and profiles list it. */
export const REPL_VOCABULARY: readonly ReplName[] = [
  {
    name: "context",
    kind: "value",
    signature: "context",
    inNameErrors: true,
    readsContext: true,
    offeredBy: {
      guided: { lead: true },
      standard: {},
      canonical: { line: () => "- `context`: the data (a str, or a dict of documents)." },
    },
  },
  {
    name: "llm_query",
    kind: "function",
    signature: "llm_query(prompt, model=None)",
    inNameErrors: true,
    offeredBy: {
      guided: {
        line: ({ budgets }) =>
          `- llm_query(prompt) -> str: asks a helper model about text you put in the prompt (at most ${fmt(budgets.chunkChars)} characters).`,
      },
      standard: {
        line: ({ budgets }) =>
          `- llm_query(prompt) -> str: ask a helper model. It cannot see \`context\`, so put the text it needs in the prompt (at most about ${fmt(budgets.chunkChars)} characters).`,
      },
      canonical: {
        line: ({ budgets }) =>
          `- \`llm_query(prompt, model=None) -> str\`: one sub-LLM call. The sub-LLM sees only the prompt and reads at most about ${fmt(budgets.subPromptChars)} characters, so send it pieces.`,
      },
    },
  },
  {
    name: "llm_query_batched",
    kind: "function",
    signature: "llm_query_batched(prompts, model=None)",
    inNameErrors: true,
    offeredBy: {
      standard: { line: () => "- llm_query_batched(prompts) -> list[str]: many llm_query calls at once; answers in the same order." },
      canonical: {
        line: () => "- `llm_query_batched(prompts, model=None) -> list[str]`: several sub-LLM calls at once; answers come back in order.",
      },
    },
  },
  {
    name: "rlm_query",
    kind: "function",
    signature: "rlm_query(prompt, model=None)",
    inNameErrors: true,
    offeredBy: {
      standard: {
        line: ({ recursive }) =>
          recursive
            ? "- rlm_query(prompt) -> str: give a sub-task to a helper that has its own REPL; the prompt becomes its `context`."
            : null,
        listed: "if-recursive",
      },
      canonical: {
        line: ({ recursive }) =>
          recursive
            ? "- `rlm_query(prompt)` / `rlm_query_batched(prompts)`: hand a sub-task to a recursive RLM with its own REPL; the prompt becomes its `context`."
            : "- `rlm_query(prompt)` / `rlm_query_batched(prompts)`: recursion is off here, so these behave like `llm_query` / `llm_query_batched`.",
        listed: "if-recursive",
      },
    },
  },
  {
    name: "rlm_query_batched",
    kind: "function",
    signature: "rlm_query_batched(prompts, model=None)",
    inNameErrors: false,
    // rlm_query's line names it too.
    offeredBy: { canonical: { listed: false } },
  },
  {
    name: "search",
    kind: "function",
    signature: "search(pattern, window=200, max_hits=None, ignore_case=True)",
    inNameErrors: true,
    readsContext: true,
    limits: { search_max_hits: 20, search_output_chars: 4000 },
    offeredBy: {
      guided: {
        line: () => "- search(pattern, window=200): numbered snippets of `context` around each match, with their offsets.",
        lead: true,
      },
    },
  },
  {
    name: "map_query",
    kind: "function",
    signature: "map_query(question, chunk_chars=None, text=None)",
    inNameErrors: true,
    readsContext: true,
    // Sized for a 4,096-token sub-model until the host says otherwise.
    limits: { chunk_chars: 8000, max_chunks: 40 },
    offeredBy: {
      guided: {
        line: () => "- map_query(question): asks a helper model your question about every part of `context`; returns one answer per part.",
        lead: true,
      },
    },
  },
  {
    name: "SHOW_VARS",
    kind: "function",
    signature: "SHOW_VARS()",
    inNameErrors: true,
    offeredBy: {
      standard: { line: () => "- SHOW_VARS(): list your variables." },
      canonical: { line: () => "- `SHOW_VARS()`: lists the variables you made." },
    },
  },
  {
    name: "cite",
    kind: "function",
    signature: "cite(start, end, doc=None)",
    inNameErrors: false,
    offeredBy: {
      standard: {
        line: () =>
          "- cite(start, end, doc=None): mark context[start:end] as where your answer comes from (doc: the key, when `context` is a dict).",
        // Feedback's lists have always named only the ways to look and to answer.
        listed: false,
      },
    },
  },
  {
    name: "FINAL",
    kind: "function",
    signature: "FINAL(value)",
    inNameErrors: true,
    offeredBy: {
      guided: { line: () => '- FINAL(answer): submits the answer and stops. FINAL_VAR("name") submits a variable.' },
      standard: { line: () => '- FINAL(answer): submit the answer and stop. FINAL_VAR("name") submits a variable.' },
    },
  },
  {
    name: "FINAL_VAR",
    kind: "function",
    signature: "FINAL_VAR(name)",
    inNameErrors: true,
    // FINAL's line names it.
    offeredBy: { guided: {}, standard: {} },
  },
  {
    name: "answer",
    kind: "value",
    signature: "answer",
    inNameErrors: true,
    offeredBy: {
      canonical: {
        line: () =>
          '- `answer`: a dict that starts as {"content": "", "ready": False}. To submit, set answer["content"] to the final answer, then set answer["ready"] = True, inside a repl block.',
      },
    },
  },
  {
    name: "history",
    kind: "value",
    signature: "history",
    inNameErrors: false,
    // Named by these profiles' first message when there were earlier questions, not in the list.
    offeredBy: { standard: { listed: false }, canonical: { listed: false } },
  },
];

/** The vocabulary as a profile offers it: its leading names first, then the rest, each in table order. */
function offers(profile: PromptProfileName): Array<{ entry: ReplName; offer: Offer }> {
  const offered = REPL_VOCABULARY.flatMap((entry) => {
    const offer = entry.offeredBy[profile];
    return offer ? [{ entry, offer }] : [];
  });
  return [...offered.filter((o) => o.offer.lead), ...offered.filter((o) => !o.offer.lead)];
}

/** The lines of a profile's list of helpers, one per name it describes, joined by newlines. */
export function helperLines(profile: PromptProfileName, inputs: VocabularyInputs): string {
  return offers(profile)
    .map(({ offer }) => offer.line?.(inputs) ?? null)
    .filter((line): line is string => line !== null)
    .join("\n");
}

/** The names feedback says exist, for a profile: what it offers and lists. */
export function offeredNames(profile: PromptProfileName, recursive: boolean): string[] {
  return offers(profile)
    .filter(({ offer }) => (offer.listed === "if-recursive" ? recursive : offer.listed !== false))
    .map(({ entry }) => entry.name);
}

const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const mention = (entry: ReplName) => (entry.kind === "value" ? `\\b${escape(entry.name)}\\b` : `\\b${escape(entry.name)}\\(`);

/** Code that reads the document: names `context`, or calls a helper that reads it for the model. */
export const READS_CONTEXT = new RegExp(
  REPL_VOCABULARY.filter((e) => e.readsContext)
    .map(mention)
    .join("|"),
);

/** Code that calls a helper whose limits come from the sub-model. */
export const CALLS_LIMITED_HELPER = new RegExp(
  `\\b(?:${REPL_VOCABULARY.filter((e) => e.limits)
    .map((e) => escape(e.name))
    .join("|")})\\s*\\(`,
);

/** The question about one piece, as map_query() asks it (`where` is "" or " (name)"). */
export function mapPrompt(fields: { part: number; parts: number; where: string; text: string; question: string }): string {
  return MAP_PROMPT_TEMPLATE.replace(/\{(part|parts|where|text|question)\}/g, (_all, key: keyof typeof fields) => String(fields[key]));
}
