// What the page shows of a run, built from the loop's events. Pure data and one reducer, so it
// can be tested without a browser; what of it is stored, and how, is src/store/schema.ts's.
import { readingWords } from "../core/fallback-cost.ts";
import { unrecordedTurns } from "../core/turn-record.ts";
import { compactionNote, turnsOf, type SubcallView, type TurnView } from "../core/turn-view.ts";
import type { RlmEvent, RlmResult } from "../core/types.ts";
import {
  summarizeSteps,
  type RunLimits,
  type RunSteps,
  type StepsSummary,
  type StoredExchange,
  type StoredStatus,
} from "../store/index.ts";

export type { SubcallView, TurnView } from "../core/turn-view.ts";
export type ExchangeStatus = StoredStatus;
export type { RunLimits };

/**
 * A question as the page shows it: its stored record (src/store/schema.ts: RlmSession's result
 * and what the page noted around the run) with its trajectory records, when they have been read,
 * the turns shown (folded from events while it runs, derived from the records once read: never
 * stored), and what only a running question has.
 */
export interface Exchange extends Omit<StoredExchange, "unfinished"> {
  turns: TurnView[];
  /** Before the first turn: what the question is waiting for. */
  waitingFor?: "python" | "documents" | "model";
}

export function newExchange(id: string, question: string): Exchange {
  return { id, question, startedAt: Date.now(), status: "running", answer: "", turns: [], iterations: [], notices: [] };
}

/** A question read from storage: its turns are derived from its records once those are read. */
export function exchangeOf(stored: StoredExchange): Exchange {
  const { unfinished: _shownAsTurns, ...rest } = stored;
  return { ...rest, turns: stored.steps ? [] : turnsOf(stored) };
}

/** What is stored of an exchange: no turns, only records (those of turns that never finished too). */
export function storedOf(exchange: Exchange): StoredExchange {
  const { turns, ...stored } = exchange;
  if (stored.steps) return stored;
  const unfinished = unrecordedTurns(turns, stored.iterations);
  return unfinished.length ? { ...stored, unfinished } : stored;
}

/** Finds the turn list an event belongs to: the root's, or a child run's under its sub-call. */
function turnsFor(exchange: Exchange, event: RlmEvent): TurnView[] | null {
  if (event.depth === 0 || !event.parentSubcallId) return exchange.turns;
  const call = findSubcall(exchange.turns, event.parentSubcallId);
  return call ? call.child : null;
}

function findSubcall(turns: TurnView[], id: string): SubcallView | null {
  for (const t of turns) {
    for (const c of t.cells) {
      for (const s of c.subcalls) {
        if (s.id === id) return s;
        const deeper = findSubcall(s.child, id);
        if (deeper) return deeper;
      }
    }
  }
  return null;
}

function turnAt(turns: TurnView[], index: number): TurnView {
  let turn = turns.find((t) => t.index === index);
  if (!turn) {
    turn = { index, text: "", done: false, cells: [], notices: [] };
    turns.push(turn);
  }
  return turn;
}

/** A streamed piece of a turn: its text, and how many pieces (≈ tokens) since its first, for the rate. */
function addToken(turn: TurnView, text: string): void {
  turn.text += text;
  turn.tokens = (turn.tokens ?? 0) + 1;
  turn.firstTokenAt ??= Date.now();
}

/** Python and the model are ready and the run begins: start-up ends here (issue 34 #3). */
function ready(exchange: Exchange): void {
  delete exchange.waitingFor;
  exchange.readyAt ??= Date.now();
}

/** How long the run waited for Python, the documents and the model before it began (0 when it began at once). */
export function startupMs(exchange: Pick<Exchange, "startedAt" | "readyAt">): number {
  return exchange.readyAt === undefined ? 0 : Math.max(0, exchange.readyAt - exchange.startedAt);
}

/** Applies one event in place (the page holds the exchange in reactive state). */
export function applyEvent(exchange: Exchange, event: RlmEvent): void {
  const turns = turnsFor(exchange, event);
  if (!turns) return;
  applyToExchange(exchange, event);
  applyToTurns(exchange.turns, turns, event);
}

/** What the exchange as a whole shows: what it waits for, how it runs, the root run's notices and steps. */
function applyToExchange(exchange: Exchange, event: RlmEvent): void {
  switch (event.type) {
    case "preparing":
      exchange.waitingFor = event.step;
      break;
    case "turn-started":
      if (event.depth === 0) ready(exchange);
      break;
    case "run-mode":
      // The progress line says "one direct call" rather than "turn 1/30" (issue 34 #2).
      if (event.depth === 0) {
        exchange.mode = { used: event.mode, reason: event.reason };
        ready(exchange);
      }
      break;
    case "notice":
      if (event.depth === 0) exchange.notices.push(event.message);
      break;
    case "iteration":
      if (event.depth === 0) exchange.iterations.push(event.record);
      break;
    default:
      break;
  }
}

/**
 * The live turns of the run the event belongs to (`turns`: the root's, or a child's inside its
 * sub-call): their text, cells and sub-calls. A sub-call's end is found among `all` the turns.
 */
function applyToTurns(all: TurnView[], turns: TurnView[], event: RlmEvent): void {
  switch (event.type) {
    case "turn-started":
      turnAt(turns, event.turn).startedAt ??= Date.now();
      break;
    case "token":
      addToken(turnAt(turns, event.turn), event.text);
      break;
    case "turn-finished":
      Object.assign(turnAt(turns, event.turn), { text: event.response, done: true, usage: event.usage, durationMs: event.durationMs });
      break;
    case "cell-started":
      turnAt(turns, event.turn).cells.push({ index: event.cell, code: event.code, subcalls: [] });
      break;
    case "cell-finished": {
      const cell = turnAt(turns, event.turn).cells.find((c) => c.index === event.cell && !c.result);
      if (cell) cell.result = event.result;
      break;
    }
    case "subcall-started": {
      const t = turns.find((x) => x.index === event.turn);
      const cell = t?.cells.find((c) => c.index === event.cell && !c.result) ?? t?.cells.at(-1);
      cell?.subcalls.push({ id: event.id, kind: event.kind, model: event.model, prompt: event.prompt, child: [] });
      break;
    }
    case "subcall-finished": {
      const call = findSubcall(all, event.id);
      if (call)
        Object.assign(
          call,
          { response: event.response, durationMs: event.durationMs, usage: event.usage },
          event.error ? { error: event.error } : {},
        );
      break;
    }
    case "history-compacted": {
      const last = turns.at(-1);
      if (last) last.notices.push(compactionNote(event.droppedTurns));
      break;
    }
    default:
      break;
  }
}

/** The run's result is the one source of its answer and status (events only show progress). */
export function applyResult(exchange: Exchange, result: RlmResult): void {
  exchange.answer = result.answer;
  exchange.status = result.status;
  if (result.message) exchange.message = result.message;
  else delete exchange.message;
  exchange.usage = result.usage;
  if (result.sources?.length) exchange.sources = result.sources;
  else delete exchange.sources;
  exchange.endedAt = Date.now();
  delete exchange.waitingFor;
  if (result.mode) exchange.mode = result.mode;
  if (result.producedBy) exchange.producedBy = result.producedBy;
  if (result.fallback) exchange.fallback = result.fallback;
  if (result.unverified) exchange.unverified = result.unverified;
  else delete exchange.unverified;
  if (result.cutOff) exchange.cutOff = result.cutOff;
  else delete exchange.cutOff;
}

/**
 * How an answer came about, when it was not the usual RLM run (else null): the one explanation a
 * fallback answer gets (issue 28 §3: the step, a notice and this line said it three times).
 */
export function howAnswered(exchange: Pick<Exchange, "mode" | "producedBy" | "fallback" | "unverified" | "cutOff">): string | null {
  const f = exchange.fallback;
  if (exchange.producedBy === "fallback" && f) {
    const read = readingWords({ parts: f.chunksRead, partsTotal: f.chunksTotal });
    const asked = f.decision === "agreed" ? ", as you chose" : "";
    return `Answered by the fallback, not by the model. ${f.reason} So the harness read ${read} with the helper model${asked}.`;
  }
  if (exchange.unverified) return exchange.unverified;
  if (exchange.cutOff) return `${exchange.cutOff} Continue writes the rest.`;
  if (exchange.mode?.used === "direct") return `Answered directly: ${exchange.mode.reason}.`;
  return null;
}

/** How an exchange's status reads, and its colour's meaning (a fallback's answer is not the model's green "Answered"). */
export function statusLabel(exchange: Pick<Exchange, "status" | "producedBy" | "fallbackQuestion" | "cutOff">): {
  text: string;
  tone: "busy" | "ok" | "fallback" | "warn" | "err";
} {
  const { status } = exchange;
  if (status === "running") return { text: exchange.fallbackQuestion ? "Waiting for your choice" : "Working…", tone: "busy" };
  if (status === "answered" && exchange.cutOff) return { text: "Answered · cut off", tone: "warn" };
  if (status === "answered")
    return exchange.producedBy === "fallback" ? { text: "Answered by the fallback", tone: "fallback" } : { text: "Answered", tone: "ok" };
  if (status === "failed") return { text: "Failed", tone: "err" };
  return { text: STATUS_TEXT[status], tone: "warn" };
}

const STATUS_TEXT: Record<Exclude<ExchangeStatus, "running" | "answered" | "failed">, string> = {
  "out-of-iterations": "Out of turns: best answer",
  "out-of-time": "Out of time: best answer",
  "too-many-errors": "Too many errors: best answer",
  stopped: "Stopped",
  interrupted: "Cut off",
};

/** Runs that were going when the page went away are marked, never lost. */
export function markInterrupted(exchange: Exchange): Exchange {
  if (exchange.status !== "running") return exchange;
  const { fallbackQuestion: _unanswered, ...rest } = exchange;
  return {
    ...rest,
    status: "interrupted",
    // The run's clock stops at the last thing it is known to have done, not at "now".
    endedAt: lastActivity(exchange),
    message:
      "This run was cut off (the page was closed or reloaded) before it finished, or the tab crashed (a runaway cell can take it down). What it did so far is kept: press Continue to go on from there, or ask again.",
    ...(exchange.compare?.status === "running" ? { compare: { ...exchange.compare, status: "failed", error: "cut off" } } : {}),
  };
}

/** When a cut-off run was last seen doing something: its last finished turn, else its start. */
function lastActivity(exchange: Exchange): number {
  const { lastActivityAt } = stepsOf(exchange);
  return Math.max(exchange.startedAt, lastActivityAt ?? exchange.startedAt);
}

type StepsOf = Pick<Exchange, "turns" | "iterations" | "steps">;

/** What an exchange's steps hold, whether they have been read (a reopened session) or not. */
export function stepsOf(exchange: StepsOf): StepsSummary {
  if (exchange.steps) return exchange.steps;
  // The turns shown, not only those recorded: a live turn has no record until it ends.
  return { ...summarizeSteps(exchange), turns: exchange.turns.length, anyTurnDone: exchange.turns.some((t) => t.done) };
}

/** Whether the steps still have to be read from storage before they can be shown, exported or continued. */
export function stepsUnread(exchange: Pick<Exchange, "steps">): boolean {
  return exchange.steps !== undefined;
}

/** The steps read from storage: the exchange shows them and exports them like a live one. */
export function fillSteps(exchange: Exchange, steps: RunSteps | null): void {
  exchange.turns = steps ? turnsOf(steps) : [];
  exchange.iterations = steps?.iterations ?? [];
  delete exchange.steps;
}

/** Statuses a run can be continued from: it stopped before it was done, with turns to go on from. */
const CONTINUABLE: ReadonlySet<ExchangeStatus> = new Set(["stopped", "interrupted", "out-of-iterations", "out-of-time", "too-many-errors"]);

export function canContinue(exchange: Pick<Exchange, "status" | "turns" | "iterations" | "steps" | "cutOff">): boolean {
  const cutOff = exchange.status === "answered" && !!exchange.cutOff;
  return (CONTINUABLE.has(exchange.status) || cutOff) && stepsOf(exchange).continuable;
}

/** The exchange goes back to running for its continuation; its turns and steps stay. */
export function resumeExchange(exchange: Exchange, limits: RunLimits): void {
  exchange.placedAt ??= exchange.startedAt; // it stays where it was asked
  exchange.status = "running";
  exchange.startedAt = Date.now();
  exchange.limits = limits;
  delete exchange.readyAt;
  delete exchange.endedAt;
  delete exchange.message;
  delete exchange.sources;
}

/** Sub-calls started so far, at every depth (the limit counts them all). */
export function subcallsStarted(turns: readonly TurnView[]): number {
  let n = 0;
  for (const t of turns) for (const c of t.cells) for (const s of c.subcalls) n += 1 + subcallsStarted(s.child);
  return n;
}
