// Haystack text. Long documents are built by repeating a short generated chunk: an 8M-character
// document then costs one String.repeat, not millions of random draws.
import type { Rng } from "./random.ts";

/** RULER's noise haystack (niah_single_1), joined with spaces as RULER does. */
export const RULER_NOISE = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.";

export type FillerKind = "noise" | "varied";

// A small fictional chronicle: enough variety that a model cannot skip the text as one repeated
// line, and no digits, names or "magic number" phrases that could be mistaken for a fact.
const SUBJECTS = [
  "The old miller",
  "A travelling merchant",
  "The village council",
  "Children from the valley",
  "The blacksmith's apprentice",
  "A group of pilgrims",
  "The harbour master",
  "The schoolteacher",
  "Two shepherds",
  "The night watchman",
  "A weaver from the hills",
  "The abbey's cook",
  "Fishermen on the north shore",
  "The bell ringer",
  "A wandering musician",
  "The orchard keepers",
];
const VERBS = [
  "repaired",
  "talked about",
  "painted",
  "carried",
  "visited",
  "cleaned",
  "measured",
  "argued over",
  "decorated",
  "inspected",
  "walked past",
  "sketched",
  "guarded",
  "rebuilt",
  "praised",
  "ignored",
];
const OBJECTS = [
  "the stone bridge",
  "the eastern granary",
  "a cart of apples",
  "the chapel roof",
  "the market square",
  "the long fence by the river",
  "a basket of bread",
  "the lighthouse stairs",
  "the mill wheel",
  "the town well",
  "a stack of letters",
  "the orchard gate",
  "the wool stalls",
  "the quiet harbour",
  "the southern road",
  "the old clock tower",
];
const WHEN = [
  "before the first frost",
  "on a quiet morning",
  "after the harvest festival",
  "during the long rains",
  "at dusk",
  "in the middle of spring",
  "while the bells were ringing",
  "late in the evening",
  "as the fog lifted",
  "on the coldest day of winter",
  "soon after sunrise",
  "when the tide was low",
];
const ASIDES = [
  "It was, by all accounts, an ordinary season.",
  "Nobody in the valley thought much of it.",
  "The weather stayed mild for weeks.",
  "Such days were common in those years.",
  "Later chronicles barely mention it.",
  "The river ran high and grey.",
  "Smoke rose from every chimney in the lower town.",
  "The market was busier than usual.",
];

/** One seeded sentence of the chronicle. */
export function chronicleSentence(rng: Rng): string {
  if (rng.next() < 0.15) return rng.pick(ASIDES);
  return `${rng.pick(SUBJECTS)} ${rng.pick(VERBS)} ${rng.pick(OBJECTS)} ${rng.pick(WHEN)}.`;
}

/** Seeded sentences, space-joined, until at least `chars` characters; whole sentences only. */
export function chronicleText(rng: Rng, chars: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const s = chronicleSentence(rng);
    parts.push(s);
    length += s.length + 1;
  }
  return parts.join(" ");
}

/** Varied filler is generated up to this size, then repeated. */
const VARIED_CHUNK_CHARS = 128 * 1024;

/** `unit` repeated and cut to exactly `length` characters. */
export function repeatToLength(unit: string, length: number): string {
  if (length <= 0) return "";
  if (!unit) throw new RangeError("Cannot repeat an empty string to a length.");
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** Filler of exactly `length` characters. */
export function buildFiller(kind: FillerKind, length: number, rng: Rng): string {
  if (kind === "noise") return repeatToLength(`${RULER_NOISE} `, length);
  const chunk = chronicleText(rng, Math.min(length, VARIED_CHUNK_CHARS));
  return repeatToLength(`${chunk} `, length);
}

/**
 * The offset of the sentence start nearest to `fraction` of the text, so an insertion never
 * splits a sentence (a split needle is a different, harder task).
 */
export function sentenceBoundaryNear(text: string, fraction: number): number {
  const target = Math.round(Math.min(1, Math.max(0, fraction)) * text.length);
  if (target <= 0) return 0;
  if (target >= text.length) return text.length;
  const after = text.indexOf(". ", target);
  const before = text.lastIndexOf(". ", target);
  const candidates = [after, before].filter((i) => i >= 0).map((i) => i + 2);
  if (!candidates.length) return target;
  return candidates.reduce((best, c) => (Math.abs(c - target) < Math.abs(best - target) ? c : best));
}

/** Inserts `sentence` (plus a space) at the sentence boundary nearest to `fraction`. */
export function insertSentence(text: string, sentence: string, fraction: number): { text: string; offset: number } {
  const offset = sentenceBoundaryNear(text, fraction);
  return { text: `${text.slice(0, offset)}${sentence} ${text.slice(offset)}`, offset };
}
