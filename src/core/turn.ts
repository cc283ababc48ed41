// Steps 2–4 of one root turn, once the reply is in: parse → run cells → observe. Every remedy of
// the small-model catalogue (shared/reference/small-models.md) is applied at its place:
//   - a reply with no action (prose, a tool call, code only inside <think>, a shell block) never
//     ends the run: the model is told what was wrong (M01, M06, M07, M08); a tool call of
//     llm_query or FINAL does what it means, never its text as Python (M07);
//   - labelled Python runs, any other block only if it parses, a cut-off last line is dropped
//     (M06); the same code again is answered from the cache, not re-run (M09);
//   - a FINAL is resolved (FINAL(x): the variable x, else the word), refused when it is a
//     placeholder or a plan (M03), asked about once when the outputs show it was extracted
//     wrongly (M11), checked against what the outputs showed (M02, M04), and tidied (M15); two
//     different FINALs beside code that had not run are neither taken;
//   - the stuck detector says when to warn and when to give up on the model (M09, M10, M12).
// What the model is told comes back as notes; the loop decides what happens next.
import type { CellResult, LineCounts } from "../repl/protocol.ts";
import * as say from "./feedback.ts";
import type { TaskFacts } from "./feedback.ts";
import { assignmentAsCode, judgeFinalWithCode, normaliseAnswer, refuseFinal } from "./finals.ts";
import { formatCell, formatTurnOutput } from "./format.ts";
import {
  isEmptyAggregate,
  patternIn,
  type EvidenceGate,
  type ExtractionGuard,
  type ExtractionProblem,
  type NoActionCounter,
  type RepeatGuard,
  type StuckDetector,
  type StuckReason,
} from "./guards/index.ts";
import type { CodeBlock } from "./parse.ts";
import { prepareBlock, type SyntaxChecker } from "./repl-probes.ts";
import { documentCheckNote, isToken, lookupable, onceFor, shownAlone, type OccursProbe } from "./document-check.ts";
import { inactionReply } from "./escalation.ts";
import { emptyMatchNote, printedNothingFound } from "./empty-match.ts";
import { foreignAction, type ForeignAction, type ReplyAnalysis } from "./reply.ts";

/** One of each per question; a child RLM has its own. */
export interface RunGuards {
  repeat: RepeatGuard;
  noAction: NoActionCounter;
  stuck: StuckDetector;
  evidence: EvidenceGate;
  extraction: ExtractionGuard;
  /** Warnings that are said once per run (a nudge repeated every turn is noise). */
  warned: Set<StuckReason>;
}

/** What a turn needs from its run. */
export interface TurnHost {
  question: string;
  guards: RunGuards;
  /** The task, the names that exist and the imports that work (refreshed after every cell). */
  facts(): TaskFacts;
  /** Runs a cell for this turn: recorded in its trajectory and shown live. */
  runCell(code: string): Promise<CellResult>;
  checkSyntax: SyntaxChecker;
  /** The lines of `context` and how many a pattern matches (null when the REPL cannot say). */
  lines(pattern: { pattern: string; regex: boolean } | null): Promise<LineCounts | null>;
  /** Whether a text stands in `context` as a token of its own (null when the REPL cannot say). */
  occurs: OccursProbe;
  outputCharsPerCell: number;
  stopped(): boolean;
}

export interface TurnOutcome {
  /** Cell results the model is shown as REPL output, in order. */
  outputs: CellResult[];
  /** What the model is told after the output (or instead of it, when nothing ran). */
  notes: string[];
  /** An accepted, tidied answer. */
  answer: string | null;
  /** The answer was accepted although no output showed it (the model submitted it again). */
  unsupported: boolean;
  /** Ran code, or gave an accepted final (the no-action counter's question). */
  acted: boolean;
  /** A cell raised, or a failed cell was sent again (the same error again). */
  raised: boolean;
  /** Why the harness should take over from the model now, or null. */
  fallback: string | null;
  /** What the harness checked or changed this turn, for the trajectory (never shown to the model). */
  checks: string[];
}

/** Feedback lines without the task reminder: the loop adds it once per message. */
const quiet = (host: TurnHost): TaskFacts => ({ ...host.facts(), restate: false });

/**
 * Plays one analysed reply. `lastChance`: the final request after the turns ran out, where a
 * refused final cannot be retried, so the evidence gate's allowance no longer applies.
 */
export async function playTurn(reply: ReplyAnalysis, host: TurnHost, lastChance = false): Promise<TurnOutcome> {
  const out: TurnOutcome = {
    outputs: [],
    notes: [],
    answer: null,
    unsupported: false,
    acted: false,
    raised: false,
    fallback: null,
    checks: [],
  };
  if (reply.kind === "neither") {
    const action = reply.foreign ? foreignAction(reply.foreign) : null;
    if (action) await playForeignAction(action, host, out, lastChance);
    // "Final Answer: …" once the model has seen output is its final (issue 36 §7); before, a guess.
    else if (reply.labelled && host.guards.evidence.outputs.length)
      await acceptCandidate(reply.labelled, { source: "text" }, host, out, lastChance);
    else {
      const told = inactionReply(quiet(host), reply, host.guards.noAction.count + 1);
      out.notes.push(told.message);
      if (told.check && !host.guards.noAction.nextFallsBack) out.checks.push(told.check);
    }
    return out;
  }
  if (reply.refused.length)
    out.notes.push(
      say.wrongLanguageMessage(
        quiet(host),
        reply.refused.map((b) => b.language),
        reply.refused.map((b) => b.code),
      ),
    );
  if (reply.problems.includes("fabricated-output")) {
    out.notes.push(say.fabricatedOutputNote(reply.problems.includes("final-after-fabricated-output")));
  }
  const submitted = reply.runnable.length ? await runBlocks(reply.runnable, host, out, lastChance) : false;
  if (reply.conflicting) out.notes.push(say.conflictingFinalsMessage(reply.conflicting));
  if (!submitted && reply.final && out.fallback === null && !host.stopped()) await takeTextFinal(reply, host, out, lastChance);
  return out;
}

/** A tool call that means llm_query or FINAL (M07): what it means, never its text as Python. */
async function playForeignAction(action: ForeignAction, host: TurnHost, out: TurnOutcome, lastChance: boolean): Promise<void> {
  if (action.kind === "final") return acceptCandidate(action.value, { source: "text" }, host, out, lastChance);
  await runCells([action.code], host, out, lastChance);
  out.notes.push(say.mappedToolCallNote(action.code));
}

// --- code --------------------------------------------------------------------------------------

const SUBMITS = /\bFINAL(?:_VAR)?\s*\(|\banswer\s*\[\s*["']ready["']\s*\]\s*=/;

/** Runs the reply's blocks unless they repeat an earlier turn. True when a cell submitted a final. */
async function runBlocks(blocks: CodeBlock[], host: TurnHost, out: TurnOutcome, lastChance: boolean): Promise<boolean> {
  const codes: string[] = [];
  for (const block of blocks) {
    const prepared = await prepareBlock(block, host.checkSyntax);
    if (prepared.action === "skip") out.notes.push(say.notPythonMessage(quiet(host), block.language, prepared.syntaxError, block.code));
    else {
      codes.push(prepared.code);
      if (prepared.note === "dropped-last-line") out.notes.push(say.unclosedFenceNote(prepared.dropped));
    }
  }
  if (!codes.length) return false;
  const all = codes.join("\n");
  // Code that submits is never "the same again": the last lookup plus FINAL(...) ends the run.
  const verdict = SUBMITS.test(all) ? ({ repeated: false } as const) : host.guards.repeat.check(all);
  if (verdict.repeated) {
    out.notes.unshift(say.repeatedActionMessage(quiet(host), verdict.cachedOutput));
    out.acted = true;
    out.raised = verdict.failed;
    if (verdict.fallback) out.fallback = `it sent the same code ${verdict.repeats + 1} times in a row`;
    return false;
  }
  const submitted = await runCells(codes, host, out, lastChance);
  host.guards.repeat.record(all, out.outputs.map((r) => formatCell(r, host.outputCharsPerCell)).join("\n"), out.raised);
  observeStuck(all, host, out);
  return submitted;
}

/** The cells in order, until one submits a final or the run is stopped. */
async function runCells(codes: string[], host: TurnHost, out: TurnOutcome, lastChance: boolean): Promise<boolean> {
  for (const code of codes) {
    const result = await runAndNote(code, host, out);
    if (result.final_answer !== null) {
      await acceptCandidate(result.final_answer, { source: "code", code }, host, out, lastChance);
      return true;
    }
    const printed = PRINTED_FINAL.exec(result.stdout);
    if (printed) out.notes.push(say.printedFinalMessage(printed[0]));
    const empty = !result.error && printedNothingFound(result.stdout) ? await emptyMatchNote([code], host.lines) : null;
    if (empty) out.notes.push(empty);
    if (host.stopped()) break;
  }
  return false;
}

/** A line a cell printed that looks like a final: printing it submits nothing. */
const PRINTED_FINAL = /^[ \t]*FINAL(?:_VAR)?\(.*\)[ \t]*$/m;

/** Runs one cell the model wrote (or meant): its output is shown and counts as evidence. */
async function runAndNote(code: string, host: TurnHost, out: TurnOutcome): Promise<CellResult> {
  const result = await host.runCell(code);
  out.outputs.push(result);
  out.acted = true;
  if (result.error && result.error !== "KeyboardInterrupt") out.raised = true;
  host.guards.evidence.noteOutput(`${result.stdout}\n${result.stderr}`);
  host.guards.extraction.noteCell(code, result);
  return result;
}

const STUCK_WHY: Record<Exclude<StuckReason, "no-context">, string> = {
  "same-error": "its code failed with the same error three times in a row",
  "forbidden-import": "it kept importing modules that are not available here",
};

/**
 * The stuck detector after code ran. Not reading `context` for a few turns is only ever a
 * warning, given once: a model that works on chunks it already made is not stuck, and giving
 * up on it would throw away a good run.
 */
function observeStuck(code: string, host: TurnHost, out: TurnOutcome): void {
  const failing = out.outputs.find((r) => r.error && r.error !== "KeyboardInterrupt");
  const verdict = host.guards.stuck.observe({ code, errorType: failing?.error ?? null, errorText: failing?.stderr ?? "" });
  if (verdict.stuck && verdict.stuck !== "no-context") out.fallback = STUCK_WHY[verdict.stuck];
  else if (verdict.stuck === "no-context" && !host.guards.warned.has("no-context")) {
    host.guards.warned.add("no-context");
    out.notes.push(say.stuckWarning(quiet(host), "no-context"));
  } else if (verdict.warn && verdict.warn !== "no-context") out.notes.push(say.stuckWarning(quiet(host), verdict.warn));
}

// --- finals ------------------------------------------------------------------------------------

/** A FINAL written as text: next to code only if the fresh output bears it out (M04). */
async function takeTextFinal(reply: ReplyAnalysis, host: TurnHost, out: TurnOutcome, lastChance: boolean): Promise<void> {
  const marker = reply.final!;
  if (reply.kind === "both" && out.outputs.length) {
    const judged = judgeFinalWithCode(marker, out.outputs);
    // Refused once; the same answer in a later turn is the model's considered answer.
    if (
      !judged.accept &&
      !(marker.kind === "value" && host.guards.evidence.submittedBefore(normaliseAnswer(marker.value, host.question)))
    ) {
      if (marker.kind === "value") host.guards.evidence.noteRefused(normaliseAnswer(marker.value, host.question));
      out.notes.push(say.finalWithCodeMessage(judged.why));
      return;
    }
  }
  if (marker.kind === "assignment") {
    const code = assignmentAsCode(marker);
    const result = await runAndNote(code, host, out);
    if (result.final_answer !== null) await acceptCandidate(result.final_answer, { source: "code", code }, host, out, lastChance);
    return;
  }
  if (marker.kind === "variable") return submitByName(`FINAL_VAR(${JSON.stringify(marker.name)})`, marker.name, host, out, lastChance);
  if (marker.bareName) return submitByName(`FINAL(${marker.bareName})`, marker.bareName, host, out, lastChance);
  await acceptCandidate(marker.value, { source: "text" }, host, out, lastChance);
}

/**
 * FINAL_VAR(name), or FINAL(name) with a bare name, run as the cell it stands for, so text and
 * code mean the same (Python's FINAL.by_name decides): the variable when it exists; for FINAL,
 * otherwise the word itself (FINAL(Paris), FINAL(CASE_DONE)) — which then needs evidence like
 * any text answer — except a name that only looks like a variable (FINAL(result)): missing.
 */
async function submitByName(code: string, name: string, host: TurnHost, out: TurnOutcome, lastChance: boolean): Promise<void> {
  const result = await host.runCell(code);
  if (result.final_answer !== null) {
    const word = result.final_answer === name && code.startsWith("FINAL(");
    return acceptCandidate(result.final_answer, { source: word ? "text" : "code" }, host, out, lastChance);
  }
  out.outputs.push(result);
  out.notes.push(say.missingVariableMessage(quiet(host), name));
}

/**
 * A submitted answer, tidied (M15), then refused if it is not one (M03g), if what the outputs
 * show says it was extracted wrongly (M11: asked once), or if it has no evidence yet (M02).
 */
async function acceptCandidate(
  value: string,
  from: { source: "text" | "code"; code?: string },
  host: TurnHost,
  out: TurnOutcome,
  lastChance: boolean,
): Promise<void> {
  // Checked as it will be given: "Answer: 42" is looked for in the outputs as "42".
  const answer = normaliseAnswer(value, host.question);
  const refused = refuseFinal(answer);
  if (refused) {
    out.notes.push(say.refusedFinalMessage(quiet(host), refused));
    return;
  }
  const problem = await extractionNote(answer, from.code, host, out);
  if (problem) {
    host.guards.evidence.noteRefused(answer);
    out.notes.push(problem);
    return;
  }
  const verdict = host.guards.evidence.check({ answer, ...from }, { lastChance });
  if (!verdict.accept) {
    out.notes.push(say.evidenceRefusedMessage(quiet(host), verdict.reason));
    return;
  }
  out.answer = answer;
  out.unsupported = verdict.unsupported === true;
  out.acted = true;
}

/**
 * What is wrong with how the answer was extracted, as the message to the model, or null (M11,
 * issue 36 §1-3): a piece of a longer number an output or the document shows, an empty result
 * of a pattern that matched nothing. Asked once: the same answer again stands. A final the
 * evidence gate would refuse is looked up in the document, which may support it.
 */
async function extractionNote(answer: string, code: string | undefined, host: TurnHost, out: TurnOutcome): Promise<string | null> {
  const { evidence, extraction } = host.guards;
  if (evidence.submittedBefore(answer)) return null;
  const problem = extraction.check(answer, evidence.outputs);
  if (problem) return extractionMessage(problem, answer, code, host);
  if (isEmptyAggregate(answer)) return emptyMatchNote([code, ...extraction.recentCode()], host.lines);
  const found = onceFor(host.occurs, answer);
  // Only a value with digits: what a greedy group cuts short, and the probe stays off other finals.
  if (isToken(answer) && /\d/.test(answer) && !shownAlone(answer, evidence.outputs)) {
    const where = await found();
    if (where && !where.standalone && where.longer) {
      out.checks.push(documentCheckNote(answer, where));
      return say.numberFragmentMessage(quiet(host), answer, where.longer, "document");
    }
  }
  if (lookupable(answer) && evidence.wouldRefuse({ answer, source: code === undefined ? "text" : "code", ...(code ? { code } : {}) })) {
    const where = await found();
    if (where) out.checks.push(documentCheckNote(answer, where));
    if (where?.standalone) evidence.noteFoundInDocument(answer);
  }
  return null;
}

/** The evidence for an extraction problem, in words: the whole number, or the lines the pattern missed. */
async function extractionMessage(problem: ExtractionProblem, answer: string, code: string | undefined, host: TurnHost): Promise<string> {
  if (problem.kind === "fragment") return say.numberFragmentMessage(quiet(host), answer, problem.whole);
  const pattern = [code, ...host.guards.extraction.recentCode()].map((c) => (c ? patternIn(c) : null)).find((p) => p !== null) ?? null;
  const lines = await host.lines(pattern);
  const evidence = lines ? { ...lines, pattern: lines.matched === null ? null : (pattern?.pattern ?? null) } : null;
  return say.emptyAggregateMessage(quiet(host), answer, problem.found, evidence);
}

/**
 * What the model reads after a turn: the REPL output, then what went wrong, with the task
 * restated once at the end for profiles that restate it (M10), then the turn footer.
 */
export function observationMessage(out: TurnOutcome, facts: TaskFacts, outputCharsPerCell: number, footer: string): string {
  const notes = out.notes.length ? out.notes : out.outputs.length ? [] : [say.noActionMessage({ ...facts, restate: false })];
  const reminder = facts.restate && notes.length ? say.taskReminder(facts) : "";
  if (out.outputs.length) return formatTurnOutput(out.outputs, outputCharsPerCell, [...notes, reminder], footer);
  return [...notes, reminder, footer].filter(Boolean).join("\n\n");
}
