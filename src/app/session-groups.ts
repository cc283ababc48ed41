// The session list's shape: sessions filtered by a search and grouped by when they were last
// used (Today, Yesterday, Last 7 days…), as chat apps do, so a long history stays findable.
import type { SessionRecord } from "../store/index.ts";

export interface SessionGroup {
  label: string;
  sessions: SessionRecord[];
}

const DAY = 86_400_000;

/** Midnight of `now`'s day, local time (the person's "today"). */
function startOfDay(now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

function groupLabel(updatedAt: number, now: number): string {
  const today = startOfDay(now);
  if (updatedAt >= today) return "Today";
  if (updatedAt >= today - DAY) return "Yesterday";
  if (updatedAt >= today - 6 * DAY) return "Last 7 days";
  if (updatedAt >= today - 29 * DAY) return "Last 30 days";
  return new Date(updatedAt).toLocaleDateString(undefined, { year: "numeric", month: "long" });
}

/** Newest first, in groups of the same label; empty groups never appear. */
export function groupSessions(sessions: readonly SessionRecord[], now: number): SessionGroup[] {
  const groups: SessionGroup[] = [];
  for (const s of [...sessions].sort((a, b) => b.updatedAt - a.updatedAt)) {
    const label = groupLabel(s.updatedAt, now);
    const last = groups.at(-1);
    if (last?.label === label) last.sessions.push(s);
    else groups.push({ label, sessions: [s] });
  }
  return groups;
}

/** A session matches when every word of the query is in its title or a document's path. */
export function matchesSearch(session: SessionRecord, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const haystack = [session.title, ...session.documents.map((d) => d.path)].join("\n").toLowerCase();
  return words.every((w) => haystack.includes(w));
}
