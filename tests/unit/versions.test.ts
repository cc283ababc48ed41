// A question's versions (issue 28 §4, src/app/versions.ts): where a retried question stands, which
// version is shown (exactly one, whatever a reload finds), and what a fresh try follows.
import { describe, expect, it } from "vitest";
import { newExchange, type Exchange } from "../../src/app/run-view.ts";
import { answeredHistory, freshTryOf, historyBefore, orderExchanges, shownExchanges, versionsOf } from "../../src/app/versions.ts";

function asked(id: string, at: number, answer: string, more: Partial<Exchange> = {}): Exchange {
  return { ...newExchange(id, `question ${id}`), startedAt: at, status: "answered", answer, ...more };
}

describe("a question's versions", () => {
  it("a fresh try stands where its question was first asked, in reading order, one version shown", () => {
    const a = asked("a", 1, "A");
    const b = asked("b", 2, "B");
    const a2 = asked("a2", 3, "A again", freshTryOf(a));
    const a3 = asked("a3", 4, "A thrice", freshTryOf(a2));
    const list = orderExchanges([b, a3, a2, a]);
    expect(list.map((e) => e.id)).toEqual(["a", "a2", "a3", "b"]);
    // None was set aside (a reload between two saves): the newest is shown.
    expect(shownExchanges(list).map((e) => e.id)).toEqual(["a3", "b"]);
    expect(versionsOf(list, a3)).toMatchObject({ index: 2 });
    expect(versionsOf(list, a3).all.map((e) => e.id)).toEqual(["a", "a2", "a3"]);
  });

  it("keeps the version the person chose; two shown after a crash become one", () => {
    const a = asked("a", 1, "A");
    const a2 = asked("a2", 3, "A again", { ...freshTryOf(a), setAside: true });
    expect(shownExchanges(orderExchanges([a, a2])).map((e) => e.id)).toEqual(["a"]);
    const b = asked("b", 1, "B");
    const b2 = asked("b2", 3, "B again", freshTryOf(b));
    expect(shownExchanges(orderExchanges([b, b2])).map((e) => e.id)).toEqual(["b2"]);
  });

  it("a fresh try follows the answers shown before its question, never its own versions nor later ones", () => {
    const a = asked("a", 1, "A");
    const b = asked("b", 2, "B wrong");
    const failed = asked("f", 3, "", { status: "failed" });
    const c = asked("c", 4, "C");
    const b2 = asked("b2", 5, "B right", { ...freshTryOf(b), setAside: true });
    const list = orderExchanges([a, b, failed, c, b2]);
    expect(historyBefore(shownExchanges(list), b)).toEqual([{ question: "question a", answer: "A" }]);
    expect(answeredHistory(list).map((h) => h.answer)).toEqual(["A", "B wrong", "C"]);
  });
});
