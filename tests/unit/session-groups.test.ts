import { describe, expect, it } from "vitest";
import { groupSessions, matchesSearch } from "../../src/app/session-groups.ts";
import type { SessionRecord } from "../../src/store/index.ts";

const at = (y: number, m: number, d: number, h = 12) => new Date(y, m - 1, d, h).getTime();
const session = (id: string, updatedAt: number, title = id, docs: string[] = []): SessionRecord =>
  ({ id, title, createdAt: updatedAt, updatedAt, documents: docs.map((path) => ({ path })) }) as unknown as SessionRecord;

describe("groupSessions", () => {
  it("groups newest first into Today, Yesterday, Last 7 days, Last 30 days, then months", () => {
    const now = at(2026, 3, 15, 9);
    const groups = groupSessions(
      [
        session("old", at(2025, 12, 2)),
        session("today", at(2026, 3, 15, 1)),
        session("week", at(2026, 3, 10)),
        session("yest", at(2026, 3, 14, 23)),
        session("month", at(2026, 2, 20)),
      ],
      now,
    );
    expect(groups.map((g) => g.label)).toEqual([
      "Today",
      "Yesterday",
      "Last 7 days",
      "Last 30 days",
      new Date(at(2025, 12, 2)).toLocaleDateString(undefined, { year: "numeric", month: "long" }),
    ]);
    expect(groups.flatMap((g) => g.sessions.map((s) => s.id))).toEqual(["today", "yest", "week", "month", "old"]);
  });
});

describe("matchesSearch", () => {
  it("finds by every word of the query in the title or a document's path, ignoring case", () => {
    const s = session("a", 0, "Quarterly revenue", ["reports/q3.pdf"]);
    expect(matchesSearch(s, "")).toBe(true);
    expect(matchesSearch(s, "REVENUE q3")).toBe(true);
    expect(matchesSearch(s, "revenue q4")).toBe(false);
  });
});
