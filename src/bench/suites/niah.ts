// S-NIAH in the style of RULER's niah_single_1: one "special magic number" sentence hidden at a
// chosen depth in a noise haystack; the question names the key and asks for the number.
import { buildFiller, insertSentence, type FillerKind } from "../filler.ts";
import { Rng } from "../random.ts";
import type { BenchTask } from "../types.ts";

const KEY_ADJECTIVES = [
  "adamant",
  "brittle",
  "cheerful",
  "dusty",
  "eager",
  "fragile",
  "gentle",
  "hollow",
  "icy",
  "jolly",
  "kind",
  "lively",
  "mellow",
  "nimble",
  "odd",
  "proud",
  "quiet",
  "rustic",
  "shiny",
  "tame",
  "upbeat",
  "vivid",
  "witty",
  "young",
  "zealous",
  "amber",
  "bold",
  "crisp",
  "dainty",
  "earnest",
];
const KEY_NOUNS = [
  "stew",
  "harbor",
  "lantern",
  "meadow",
  "pebble",
  "quartz",
  "ribbon",
  "saddle",
  "thimble",
  "umbrella",
  "violin",
  "walnut",
  "yarn",
  "zephyr",
  "anchor",
  "biscuit",
  "candle",
  "dolphin",
  "ember",
  "falcon",
  "garnet",
  "hammock",
  "igloo",
  "jackal",
  "kettle",
  "locket",
  "mitten",
  "nectar",
  "orchid",
  "parsnip",
];

export interface NiahParams {
  /** Document length in characters (exact). */
  size: number;
  /** Where the needle goes, 0..1 of the document. */
  depth: number;
  seed: number;
  filler?: FillerKind;
}

export interface NiahDocument {
  text: string;
  key: string;
  value: string;
  needle: string;
  /** Character offset of the needle in `text`. */
  offset: number;
}

export function niahNeedle(key: string, value: string): string {
  return `One of the special magic numbers for ${key} is: ${value}.`;
}

export function niahQuestion(key: string): string {
  return `What is the special magic number for ${key} mentioned in the provided text? Answer with the number.`;
}

export function generateNiahDocument(params: NiahParams): NiahDocument {
  const rng = new Rng(params.seed);
  const key = `${rng.pick(KEY_ADJECTIVES)}-${rng.pick(KEY_NOUNS)}`;
  const value = String(rng.int(1_000_000, 9_999_999));
  const needle = niahNeedle(key, value);
  const fillerChars = Math.max(0, params.size - needle.length - 1);
  const filler = buildFiller(params.filler ?? "noise", fillerChars, rng);
  const { text, offset } = insertSentence(filler, needle, params.depth);
  return { text, key, value, needle, offset };
}

export function niahTask(id: string, params: NiahParams): BenchTask {
  const doc = generateNiahDocument(params);
  return {
    id,
    suite: "niah",
    size: params.size,
    variant: `depth-${Math.round(params.depth * 100)}`,
    seed: params.seed,
    question: niahQuestion(doc.key),
    context: { kind: "text", text: doc.text },
    contextChars: doc.text.length,
    expected: { scorer: "contains", answer: doc.value },
    meta: { key: doc.key, offset: doc.offset, depth: params.depth, filler: params.filler ?? "noise" },
  };
}
