// The first thing the loop does with a root reply (small-models.md, "ordered by payoff" 1–3):
// normalise it (drop thinking, cut at the first line that imitates the harness's own output),
// then classify it as code, final, both or neither, noting every problem the feedback should
// name. Pure functions: no REPL, no model.
import { extractCodeBlocks, stripThinking, thinkingOf, type CodeBlock } from "./parse.ts";
import { findFinalMarkers, type FinalMarker } from "./finals.ts";
import { judgeFinals } from "./conflicting-finals.ts";
import { labelledFinal } from "./labelled-final.ts";
import { stripStrayClosers } from "./stray-markup.ts";

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

/**
 * Leftovers of other protocols that are not the model's action (issue 25): a "Calling tools:"
 * log prefix, a stray </tool_call> (no opening tag), and <tool_call> tags wrapped around a code
 * fence, which is the action itself.
 */
function dropLeftovers(text: string): string {
  let out = stripStrayClosers(text.replace(/^\s*Calling tools?:[ \t]*/i, ""));
  if (!/<tool_call>/i.test(out)) out = out.replace(/^[ \t]*<\/tool_call>[ \t]*\n?/gim, "").replace(/<\/tool_call>/gi, "");
  else out = out.replace(/<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/gi, (whole, inner: string) => (holdsCodeNotCall(inner) ? inner : whole));
  return out;
}

/** Tags around a code fence and no tool call of their own: the fence is the action. */
function holdsCodeNotCall(inner: string): boolean {
  return /^\s*`{3,}/m.test(inner) && !toolCallFromJson(parseJsonLoose(inner.trim())) && !detectXmlCommand(inner);
}

/** Drops thinking and everything from the first harness label on. Never throws on null. */
export function normaliseReply(raw: string | null | undefined): NormalisedReply {
  const text = (raw ?? "").replace(/\r\n?/g, "\n");
  const visible = dropLeftovers(stripThinking(text));
  const thinking = thinkingOf(text);
  const { index, label } = labelIndex(visible);
  if (index < 0) return { text: visible, thinking, cut: null };
  return { text: visible.slice(0, index).replace(/\s+$/, ""), thinking, cut: { label, removed: visible.slice(index) } };
}

// --- foreign protocols (M07) --------------------------------------------------------------------

export interface ForeignProtocol {
  kind: "tool-call-json" | "tool-call-tag" | "tool-call-xml" | "react";
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

/** JSON, or the Python literal a log printed (single quotes, True/False/None). */
function parseJsonLoose(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    if (text.includes('"')) return undefined;
    try {
      return JSON.parse(
        text
          .replace(/'/g, '"')
          .replace(/\bTrue\b/g, "true")
          .replace(/\bFalse\b/g, "false")
          .replace(/\bNone\b/g, "null"),
      );
    } catch {
      return undefined;
    }
  }
}

/** Tool names an XML-ish command may use as its element (<llm_query>…</llm_query>). */
const XML_TOOLS =
  /^(?:llm_query|llm_query_batched|rlm_query|final|final_var|final_answer|search|map_query|python|execute|run_code|tool_code)$/i;

/** Arguments written as XML-ish text: JSON when they parse, else the text as `input`. */
function xmlArguments(inner: string): Record<string, unknown> {
  const parsed = parseJsonLoose(inner.trim());
  return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { input: inner.trim() };
}

/** XML-ish commands: <function=name>{…}</function>, <invoke name="…"><parameter …>, <llm_query>…</llm_query>. */
function detectXmlCommand(text: string): ForeignProtocol | null {
  const fn = /<function=([\w.-]+)>\s*([\s\S]*?)\s*<\/function>/i.exec(text);
  if (fn) return { kind: "tool-call-xml", name: fn[1]!, arguments: xmlArguments(fn[2] ?? "") };
  const invoke = /<invoke\s+name=["']([\w.-]+)["']\s*>([\s\S]*?)<\/invoke>/i.exec(text);
  if (invoke) {
    const args: Record<string, unknown> = {};
    for (const p of invoke[2]!.matchAll(/<parameter\s+name=["']([\w.-]+)["']\s*>([\s\S]*?)<\/parameter>/gi)) args[p[1]!] = p[2]!.trim();
    return { kind: "tool-call-xml", name: invoke[1]!, arguments: args };
  }
  const element = /^\s*<([A-Za-z_][\w.-]*)>([\s\S]*?)<\/\1>\s*$/m.exec(text);
  if (element && XML_TOOLS.test(element[1]!))
    return { kind: "tool-call-xml", name: element[1]!, arguments: xmlArguments(element[2] ?? "") };
  return null;
}

/** A tool call or another agent protocol instead of code: never run as Python (see foreignAction). */
export function detectForeignProtocol(text: string): ForeignProtocol | null {
  const tag = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/i.exec(text);
  if (tag) {
    const inner = toolCallFromJson(parseJsonLoose(tag[1] ?? "")) ?? detectXmlCommand(tag[1] ?? "");
    return { kind: "tool-call-tag", name: inner?.name ?? null, arguments: inner?.arguments ?? null };
  }
  const body = text
    .trim()
    .replace(/^\[TOOL_CALLS\]\s*/i, "")
    .replace(/^```(?:json)?\s*\n([\s\S]*?)\n```$/i, "$1")
    .trim();
  if (/^[[{]/.test(body)) {
    const call = toolCallFromJson(parseJsonLoose(body));
    if (call) return call;
  }
  const xml = detectXmlCommand(text);
  if (xml) return xml;
  const react = /^\s*Action:\s*([\w.-]+)\s*$[\s\S]*?^\s*Action Input:/im.exec(text);
  if (react) return { kind: "react", name: react[1] ?? null, arguments: null };
  return null;
}

/** What a tool call means here, when it calls llm_query or submits an answer (issue 25). */
export type ForeignAction =
  /** Python the harness writes for it (print(llm_query("…")), FINAL_VAR("x")): literals only, never the call's text. */
  | { kind: "code"; code: string }
  /** A FINAL: the value, checked like any text answer. */
  | { kind: "final"; value: string };

const LLM_TOOLS = new Set(["llm_query", "rlm_query"]);
const FINAL_TOOLS = new Set(["final", "final_answer", "submit", "submit_answer", "answer"]);

/**
 * Maps llm_query and FINAL calls to what they mean; any other tool (python included) maps to
 * nothing: the model is told tools are Python functions here, with the Python to write.
 */
export function foreignAction(call: ForeignProtocol): ForeignAction | null {
  const args = call.arguments ?? {};
  const first = (...keys: string[]) => keys.map((k) => args[k]).find((v) => typeof v === "string" || typeof v === "number");
  const name = (call.name ?? "").toLowerCase();
  const prompt = first("prompt", "query", "input", "question", "text", "q");
  if (LLM_TOOLS.has(name) && typeof prompt === "string" && prompt.trim())
    return { kind: "code", code: `print(${name}(${JSON.stringify(prompt)}))` };
  const prompts = args.prompts;
  if (name === "llm_query_batched" && Array.isArray(prompts) && prompts.length && prompts.every((p) => typeof p === "string"))
    return { kind: "code", code: `print(llm_query_batched(${JSON.stringify(prompts)}))` };
  const value = first("answer", "value", "content", "final_answer", "result", "text", "input", "output");
  if (FINAL_TOOLS.has(name) && value !== undefined && String(value).trim()) return { kind: "final", value: String(value).trim() };
  const variable = first("name", "variable", "var", "input");
  if (name === "final_var" && typeof variable === "string" && /^[A-Za-z_]\w*$/.test(variable.trim()))
    return { kind: "code", code: `FINAL_VAR(${JSON.stringify(variable.trim())})` };
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
  /** Two different FINALs beside code that had not run yet: neither is taken (issue 25). */
  | "conflicting-finals"
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
  /** With "conflicting-finals": the answers the reply gave, as written. */
  conflicting?: string[];
  /** A reply that is only "Final Answer: …" / "Answer: …" (issue 36 §7): its value; the loop takes it once output was seen. */
  labelled?: string;
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
  const refused = blocks.filter((b) => b.verdict === "refuse");
  const markers = foreign ? [] : findFinalMarkers(normalised.text);
  // FINAL_VAR("x") = v first, then FINAL_VAR (it names computed data), then FINAL.
  let final = markers.find((m) => m.kind === "assignment") ?? markers.find((m) => m.kind === "variable") ?? markers[0] ?? null;
  const problems: ReplyProblem[] = [];
  // Two different answers written before the code they sit beside has run: neither is taken.
  const { runnable, conflicting } = judgeFinals(
    blocks.filter((b) => b.verdict !== "refuse"),
    markers,
  );
  if (conflicting.length > 1) {
    final = null;
    problems.push("conflicting-finals");
  }
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
  const labelled = kind === "neither" && !foreign && !blocks.length ? labelledFinal(normalised.text) : null;
  return {
    kind,
    normalised,
    blocks,
    runnable,
    refused,
    final,
    foreign,
    problems,
    ...(conflicting.length > 1 ? { conflicting } : {}),
    ...(labelled ? { labelled } : {}),
  };
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
