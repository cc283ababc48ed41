// The first thing the loop does with a root reply (small-models.md, "ordered by payoff" 1–3):
// normalise it (drop thinking, cut at the first line that imitates the harness's own output),
// then classify it as code, final, both or neither, noting every problem the feedback should
// name. Pure functions: no REPL, no model.
import { extractCodeBlocks, stripThinking, thinkingOf, type CodeBlock } from "./parse.ts";
import { findFinalMarker, type FinalMarker } from "./finals.ts";

/**
 * Labels only the harness writes. A reply that contains one at the start of a line (outside
 * code) is inventing the REPL's answer (M05): everything from there on is dropped, including a
 * FINAL written after it. Case-insensitive, colon optional, "**bold**" allowed.
 */
const LABEL_LINE =
  /^\s*(?:\*\*|#+\s*)?(?:repl output(?:\s*\(block \d+\))?|output|observation|execution (?:result|output)|stdout)\s*(?:\*\*)?\s*(?::.*)?$/i;
/** The turn prefix the harnesses write ("Turn 3 of 20.", "Turn 2/30:"). */
const TURN_LINE = /^\s*(?:\*\*)?turn \d+\s*(?:of|\/)\s*\d+\b/i;
/** A fence that quotes output: ```output, ```stdout, ```observation, ```result. */
const OUTPUT_FENCE = /^\s*`{3,}\s*(?:output|stdout|observation|result|repl-output)\s*$/i;
/** Chat-template tokens: a reply that writes one is writing the next turn itself. Cut anywhere. */
const CHAT_TOKEN = /<\|(?:im_start|im_end|endoftext|eot_id|start_header_id|end_header_id|user|assistant)\|>/i;

/**
 * Stop sequences for every root request: the labels above in the spelling the harness uses,
 * so a server stops generating instead of letting the model invent the output. At most four,
 * because OpenAI's own API rejects more; the cut in normaliseReply catches other spellings.
 */
export const ROOT_STOP_SEQUENCES: readonly string[] = ["\nREPL output", "\nObservation:", "```output", "<|im_start|>"];

export interface HarnessLabelCut {
  /** The line that was taken as a harness label. */
  label: string;
  /** What was dropped (the label and everything after it). */
  removed: string;
}

export interface NormalisedReply {
  /** What parsing reads: thoughts removed, cut at the first harness label. */
  text: string;
  /** The reasoning that was removed ("" if none). */
  thinking: string;
  cut: HarnessLabelCut | null;
}

/** Where the reply first imitates the harness, as a character index, or -1. */
function labelIndex(text: string): { index: number; label: string } {
  const token = CHAT_TOKEN.exec(text);
  let best = token ? { index: token.index, label: token[0] } : { index: -1, label: "" };
  let offset = 0;
  let inFence = false;
  for (const line of text.split("\n")) {
    if (best.index >= 0 && offset >= best.index) break;
    const isFence = /^\s*`{3,}/.test(line);
    if (!inFence && (OUTPUT_FENCE.test(line) || LABEL_LINE.test(line) || TURN_LINE.test(line))) {
      best = { index: offset, label: line.trim() };
      break;
    }
    if (isFence) inFence = !inFence && !/^\s*`{3,}.*`{3,}\s*$/.test(line);
    offset += line.length + 1;
  }
  return best;
}

/** Drops thinking and everything from the first harness label on. Never throws on null. */
export function normaliseReply(raw: string | null | undefined): NormalisedReply {
  const text = (raw ?? "").replace(/\r\n?/g, "\n");
  const visible = stripThinking(text);
  const thinking = thinkingOf(text);
  const { index, label } = labelIndex(visible);
  if (index < 0) return { text: visible, thinking, cut: null };
  return { text: visible.slice(0, index).replace(/\s+$/, ""), thinking, cut: { label, removed: visible.slice(index) } };
}

// --- foreign protocols (M07) --------------------------------------------------------------------

export interface ForeignProtocol {
  kind: "tool-call-json" | "tool-call-tag" | "react";
  /** The tool the model tried to call, when it said. */
  name: string | null;
  /** Its arguments, when they parsed. */
  arguments: Record<string, unknown> | null;
}

function toolCallFromJson(value: unknown): ForeignProtocol | null {
  const item = Array.isArray(value) ? value[0] : value;
  if (!item || typeof item !== "object") return null;
  const o = item as Record<string, unknown>;
  const fn = (o.function && typeof o.function === "object" ? o.function : o) as Record<string, unknown>;
  const name = fn.name ?? o.tool ?? o.action;
  const args = fn.arguments ?? fn.parameters ?? o.tool_input ?? o.action_input ?? o.args;
  if (typeof name !== "string" || args === undefined) return null;
  let parsed: Record<string, unknown> | null = null;
  if (typeof args === "string") {
    try {
      const a: unknown = JSON.parse(args);
      parsed = a && typeof a === "object" ? (a as Record<string, unknown>) : { input: args };
    } catch {
      parsed = { input: args };
    }
  } else if (args && typeof args === "object") {
    parsed = args as Record<string, unknown>;
  }
  return { kind: "tool-call-json", name, arguments: parsed };
}

function parseJsonLoose(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A tool call or another agent protocol instead of code: never an answer, always re-prompted. */
export function detectForeignProtocol(text: string): ForeignProtocol | null {
  const tag = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/i.exec(text);
  if (tag) {
    const inner = toolCallFromJson(parseJsonLoose(tag[1] ?? ""));
    return { kind: "tool-call-tag", name: inner?.name ?? null, arguments: inner?.arguments ?? null };
  }
  const body = text
    .trim()
    .replace(/^```(?:json)?\s*\n([\s\S]*?)\n```$/i, "$1")
    .trim();
  if (/^[[{]/.test(body)) {
    const call = toolCallFromJson(parseJsonLoose(body));
    if (call) return call;
  }
  const react = /^\s*Action:\s*([\w.-]+)\s*$[\s\S]*?^\s*Action Input:/im.exec(text);
  if (react) return { kind: "react", name: react[1] ?? null, arguments: null };
  return null;
}

/**
 * Opt-in only (small-models.md M07): a tool call that clearly carries Python, or calls
 * llm_query/FINAL, as the code it stands for. Null when it does not map.
 */
export function foreignToCode(call: ForeignProtocol): string | null {
  const args = call.arguments ?? {};
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  const name = (call.name ?? "").toLowerCase();
  const code = str(args.code) ?? str(args.python) ?? str(args.source);
  if (code && /^(?:python|repl|execute|run|run_code|exec|code_interpreter|ipython)/.test(name)) return code;
  const prompt = str(args.prompt) ?? str(args.query) ?? str(args.input);
  if (name === "llm_query" && prompt) return `print(llm_query(${JSON.stringify(prompt)}))`;
  const answer = str(args.answer) ?? str(args.value) ?? str(args.content);
  if ((name === "final" || name === "final_answer") && answer) return `FINAL(${JSON.stringify(answer)})`;
  return null;
}

// --- classification -----------------------------------------------------------------------------

export type ReplyKind = "code" | "final" | "both" | "neither";

export type ReplyProblem =
  /** Nothing visible at all (M01, M08). */
  | "empty"
  /** Code or a FINAL only inside <think> (M08). */
  | "action-in-thinking"
  /** The reply invented harness output; it was cut there (M05). */
  | "fabricated-output"
  /** A FINAL written after invented output, ignored (M05). */
  | "final-after-fabricated-output"
  /** Blocks in a language that is never Python (M06). */
  | "wrong-language"
  /** The last block was never closed (M06). */
  | "unclosed-fence"
  /** A tool call or another agent protocol (M07). */
  | "foreign-protocol"
  /** "I'm sorry, I can't…" on a benign task: treated as no action. */
  | "refusal"
  /** The reply repeats the prompt it was given: a chat-template or stop-token fault (M01). */
  | "echo";

export interface ReplyAnalysis {
  kind: ReplyKind;
  normalised: NormalisedReply;
  /** Every block in order, including refused ones. */
  blocks: CodeBlock[];
  /** Blocks the loop should run (verdict "run") or check first ("run-if-python"), in order. */
  runnable: CodeBlock[];
  /** Blocks that must not run (shell, JavaScript…). */
  refused: CodeBlock[];
  /** A FINAL/FINAL_VAR written as text at the start of a line, outside code and thoughts. */
  final: FinalMarker | null;
  foreign: ForeignProtocol | null;
  problems: ReplyProblem[];
}

const REFUSAL = /^\s*(?:I'm sorry|I am sorry|Sorry,|I cannot|I can't|I can not|As an AI|I'm unable|I am unable)\b/i;

/**
 * Normalises and classifies one root reply. "neither" (no code, no final) is never an answer:
 * the loop re-prompts and, after two in a row, falls back (M01).
 */
export function analyseReply(raw: string | null | undefined, options: { prompts?: readonly string[] } = {}): ReplyAnalysis {
  const normalised = normaliseReply(raw);
  const foreign = detectForeignProtocol(normalised.text);
  const blocks = foreign ? [] : extractCodeBlocks(normalised.text);
  const runnable = blocks.filter((b) => b.verdict !== "refuse");
  const refused = blocks.filter((b) => b.verdict === "refuse");
  const final = foreign ? null : findFinalMarker(normalised.text);
  const problems: ReplyProblem[] = [];
  if (!normalised.text.trim() && !normalised.cut) problems.push("empty");
  if (!runnable.length && !final && /```|FINAL(?:_VAR)?\(|answer\["ready"\]/.test(normalised.thinking)) problems.push("action-in-thinking");
  if (normalised.cut) {
    problems.push("fabricated-output");
    if (/^\s*(?:\*\*)?FINAL(?:_VAR)?\(/m.test(normalised.cut.removed)) problems.push("final-after-fabricated-output");
  }
  if (refused.length) problems.push("wrong-language");
  if (blocks.some((b) => b.unclosed)) problems.push("unclosed-fence");
  if (foreign) problems.push("foreign-protocol");
  if (!runnable.length && !final && REFUSAL.test(normalised.text)) problems.push("refusal");
  if (!runnable.length && !final && options.prompts && isEcho(normalised.text, options.prompts)) problems.push("echo");
  const kind: ReplyKind = runnable.length ? (final ? "both" : "code") : final ? "final" : "neither";
  return { kind, normalised, blocks, runnable, refused, final, foreign, problems };
}

const squashSpace = (s: string) => s.replace(/\s+/g, " ").trim();

/**
 * The reply is (the start of) a message it was sent: the last user message or the system
 * prompt parroted back. Small models do this when the chat template or the stop token is wrong,
 * so the loop should say so in a notice, not only re-prompt (small-models.md M01).
 */
export function isEcho(reply: string, prompts: readonly string[]): boolean {
  const r = squashSpace(reply);
  if (r.length < 40) return false;
  return prompts.some((p) => {
    const q = squashSpace(p);
    return q.length >= 40 && (q.includes(r) || r.includes(q.slice(0, 200)));
  });
}
