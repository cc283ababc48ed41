// Retry and Edit are fresh tries (issue 28 §4): a question asked again follows only the answers
// before it, never the one it replaces, and the person chooses whether the new try replaces the
// earlier exchange or stands beside it as another version. The exchanges of one question are a
// group (`versionOf`: the id of the one first asked); the group stands where that question was
// first asked (`placedAt`), and one of its versions is shown (the others are `setAside`). Pure
// functions over the page's list, so the controller, a reload and the tests agree.
import type { HistoryEntry } from "../repl/types.ts";
import type { Exchange } from "./run-view.ts";

type Versioned = Pick<Exchange, "id" | "startedAt" | "versionOf" | "setAside" | "placedAt">;

/** The group an exchange belongs to: the id of its question's first exchange. */
export const groupOf = (e: Pick<Exchange, "id" | "versionOf">): string => e.versionOf ?? e.id;

/** Where an exchange stands in the session: where its question was first asked. */
const placeOf = (e: Versioned): number => e.placedAt ?? e.startedAt;

/**
 * The session's exchanges in reading order (a retried question keeps its place, a Continue too),
 * each group with exactly one version shown: the one the person chose, else the newest. A reload
 * between the two saves of a switch cannot leave a question with none or two.
 */
export function orderExchanges<E extends Versioned>(list: readonly E[]): E[] {
  const ordered = [...list].sort((a, b) => placeOf(a) - placeOf(b) || a.startedAt - b.startedAt);
  const groups = new Map<string, E[]>();
  for (const e of ordered) groups.set(groupOf(e), [...(groups.get(groupOf(e)) ?? []), e]);
  for (const members of groups.values()) {
    const shown = members.filter((e) => !e.setAside);
    const keep = shown.at(-1) ?? members.at(-1)!;
    for (const e of members) {
      if (e === keep) delete e.setAside;
      else e.setAside = true;
    }
  }
  return ordered;
}

/** The exchanges the page shows: one per question. */
export function shownExchanges<E extends Versioned>(list: readonly E[]): E[] {
  return list.filter((e) => !e.setAside);
}

/** The versions of an exchange's question, oldest first, and which one it is. */
export function versionsOf<E extends Versioned>(list: readonly E[], exchange: E): { all: E[]; index: number } {
  const all = list.filter((e) => groupOf(e) === groupOf(exchange)).sort((a, b) => a.startedAt - b.startedAt);
  return { all, index: all.indexOf(exchange) };
}

/** Answered questions as a session's history, from the versions shown (what a later question builds on). */
export function answeredHistory(list: readonly Pick<Exchange, "question" | "answer" | "setAside">[]): HistoryEntry[] {
  return list.filter((e) => e.answer && !e.setAside).map((e) => ({ question: e.question, answer: e.answer }));
}

/** What a fresh try of `exchange` follows: the answers shown before its question, not its own. */
export function historyBefore<E extends Versioned & Pick<Exchange, "question" | "answer">>(
  list: readonly E[],
  exchange: E,
): HistoryEntry[] {
  const group = groupOf(exchange);
  const at = list.findIndex((e) => groupOf(e) === group);
  return answeredHistory(list.slice(0, at < 0 ? list.length : at));
}

/** How a fresh try sits beside the exchange it retries: the same question's group, in its place. */
export function freshTryOf(earlier: Versioned): Pick<Exchange, "versionOf" | "placedAt"> {
  return { versionOf: groupOf(earlier), placedAt: placeOf(earlier) };
}
