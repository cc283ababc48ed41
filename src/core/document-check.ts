// The document as evidence (issue 36 §1-2). The evidence gate asks for an output that shows an
// answer, but a first-turn FINAL("…") whose value stands verbatim in the document is right, and
// refusing it made runs end on something worse. And a value cut from a longer token by a greedy
// regex ("1" of 7319001) shows in no output either. One probe answers both: does the answer stand
// in `context` as a token of its own, or only inside a longer one? It runs in Python (the
// document lives there), only for an answer the gate would refuse or a one-token value no
// output shows alone, and at most once per answer.
import type { Occurrence } from "../repl/protocol.ts";

export type OccursProbe = (text: string) => Promise<Occurrence | null>;

/** A value a greedy group can cut: one token, no spaces. */
export const isToken = (answer: string): boolean => /^[\p{L}\p{N}][\p{L}\p{N}.,_-]{0,39}$/u.test(answer);

/** Short enough to look up, long enough that finding it is not chance ("a", "7"). */
export const lookupable = (answer: string): boolean => answer.length >= 3 && answer.length <= 200 && !answer.includes("\n");

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Some output shows the answer as a token of its own (not inside a longer number or word). */
export function shownAlone(answer: string, outputs: readonly string[]): boolean {
  const alone = new RegExp(String.raw`(?<![\p{L}\p{N}_])(?<!\d[.,])${escape(answer)}(?![\p{L}\p{N}_])(?![.,]\d)`, "iu");
  return outputs.some((t) => alone.test(t));
}

/** The probe asked once per answer, whatever asks (the fragment check, then the evidence gate). */
export function onceFor(probe: OccursProbe, answer: string): () => Promise<Occurrence | null> {
  let asked: Promise<Occurrence | null> | null = null;
  return () => (asked ??= probe(answer).catch(() => null));
}

/** What the trajectory records when the document decided (the run's reader sees it was checked). */
export function documentCheckNote(answer: string, found: Occurrence): string {
  const shown = JSON.stringify(answer.length > 80 ? `${answer.slice(0, 80)}…` : answer);
  if (found.standalone)
    return `Checked the answer ${shown} against the document: it stands verbatim in \`context\`, so it was accepted although no output printed it.`;
  if (found.longer)
    return `Checked the answer ${shown} against the document: it is only part of ${JSON.stringify(found.longer)} there, so the model was asked once.`;
  return `Checked the answer ${shown} against the document: it is not in \`context\` either, and no output showed it.`;
}
