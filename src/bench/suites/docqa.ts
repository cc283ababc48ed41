// LongDocQA: a handful of facts about named people, ships and guilds sit in a long chronicle;
// the question asks about one of them. Names appear only in their own fact, so the answer is
// unique and the other facts act as distractors of the same shape.
import { chronicleText, repeatToLength } from "../filler.ts";
import { Rng } from "../random.ts";
import type { BenchTask } from "../types.ts";

const FIRST = [
  "Ada",
  "Bram",
  "Clara",
  "Dmitri",
  "Elif",
  "Fenna",
  "Goran",
  "Hilde",
  "Ivo",
  "Jorun",
  "Kasimir",
  "Lotte",
  "Milo",
  "Nadia",
  "Oskar",
  "Priya",
  "Quentin",
  "Rosalind",
  "Soren",
  "Tamsin",
];
const LAST = [
  "Ashdown",
  "Brightwater",
  "Corrigan",
  "Dunmore",
  "Everly",
  "Fairweather",
  "Greaves",
  "Hollister",
  "Ingram",
  "Jessop",
  "Kettering",
  "Lockwood",
  "Marchetti",
  "Northcote",
  "Osgood",
  "Pemberton",
];
const TOWNS = [
  "Westmarch",
  "Lindenholm",
  "Carrow Bay",
  "Eastbrook",
  "Mossford",
  "Tillhaven",
  "Greyport",
  "Ashbury",
  "Kelderwick",
  "Rivenmoor",
];
const ANIMALS = ["tortoise", "parrot", "ferret", "greyhound", "goat", "tabby cat", "hedgehog", "donkey"];
const PET_NAMES = ["Biscuit", "Pepper", "Juniper", "Marmalade", "Captain", "Thistle", "Domino", "Clementine", "Pickle", "Sorrel"];
const GUILDS = [
  "Guild of Lamplighters",
  "Society of River Pilots",
  "Order of Glassblowers",
  "Company of Map Makers",
  "League of Beekeepers",
  "Brotherhood of Masons",
];
const SHIPS = ["Silver Heron", "Morning Star", "Restless Gull", "Iron Duchess", "Wandering Reed", "Blue Marlin"];
const CARGO = ["cinnamon bark", "copper wire", "raw indigo", "salted cod", "marble tiles", "lamp oil", "bolts of silk", "oak barrels"];
const PROFESSIONS = ["clockmaker", "cartographer", "bookbinder", "glazier", "apothecary", "cooper", "stonemason", "ferryman"];
const PLACES = ["east tower", "grain store", "archive cellar", "boathouse", "old chapel vault", "customs office"];

interface Fact {
  kind: string;
  statement: string;
  question: string;
  answer: string;
}

type FactMaker = (rng: Rng, person: string) => Fact;

// Each maker writes one fact and its question. `person` is a unique name reserved for this fact.
const FACT_MAKERS: FactMaker[] = [
  (rng, person) => {
    const town = rng.pick(TOWNS);
    return {
      kind: "birthplace",
      statement: `${person} was born in the town of ${town}.`,
      question: `In which town was ${person} born?`,
      answer: town,
    };
  },
  (rng, person) => {
    const animal = rng.pick(ANIMALS);
    const name = rng.pick(PET_NAMES);
    return {
      kind: "pet",
      statement: `${person} keeps a ${animal} named ${name}.`,
      question: `What is the name of ${person}'s ${animal}?`,
      answer: name,
    };
  },
  (rng, person) => {
    const job = rng.pick(PROFESSIONS);
    return {
      kind: "profession",
      statement: `${person} earned a living as a ${job}.`,
      question: `What was ${person}'s profession?`,
      answer: job,
    };
  },
  (rng) => {
    const guild = rng.pick(GUILDS);
    const year = String(rng.int(1400, 1899));
    return {
      kind: "founding",
      statement: `The ${guild} was founded in the year ${year}.`,
      question: `In which year was the ${guild} founded?`,
      answer: year,
    };
  },
  (rng) => {
    const ship = rng.pick(SHIPS);
    const cargo = rng.pick(CARGO);
    return {
      kind: "cargo",
      statement: `On its last voyage the ship ${ship} carried ${cargo}.`,
      question: `What did the ship ${ship} carry on its last voyage?`,
      answer: cargo,
    };
  },
  (rng) => {
    const place = rng.pick(PLACES);
    const code = String(rng.int(1000, 9999));
    return {
      kind: "lock-code",
      statement: `The lock on the door of the ${place} opens with the code ${code}.`,
      question: `Which code opens the lock on the door of the ${place}?`,
      answer: code,
    };
  },
];

export interface DocQaParams {
  /** Document length in characters (approximately: facts are inserted into filler of this size). */
  size: number;
  seed: number;
  /** How many facts to hide (at most 6, one per kind). */
  facts?: number;
}

export interface DocQaDocument {
  text: string;
  facts: Fact[];
  /** Index into `facts` of the one asked about. */
  asked: number;
}

export function generateDocQaDocument(params: DocQaParams): DocQaDocument {
  const rng = new Rng(params.seed);
  const count = Math.min(FACT_MAKERS.length, Math.max(1, params.facts ?? 5));
  const makers = rng.sample(FACT_MAKERS, count);
  const people = rng.sample(FIRST, count).map((first) => `${first} ${rng.pick(LAST)}`);
  const facts = makers.map((make, i) => make(rng, people[i]!));
  const asked = rng.int(0, count - 1);

  const factChars = facts.reduce((n, f) => n + f.statement.length + 1, 0);
  const chunk = chronicleText(rng, Math.min(Math.max(0, params.size - factChars), 96 * 1024));
  const filler = repeatToLength(`${chunk} `, Math.max(0, params.size - factChars));
  // Facts go at sorted random sentence boundaries, built in one pass (no repeated re-slicing).
  const positions = facts.map(() => rng.next()).sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  positions.forEach((p, i) => {
    let at = filler.indexOf(". ", Math.max(from, Math.floor(p * filler.length)));
    at = at < 0 ? filler.length : at + 2;
    pieces.push(filler.slice(from, at), `${facts[i]!.statement} `);
    from = at;
  });
  pieces.push(filler.slice(from));
  return { text: pieces.join(""), facts, asked };
}

export function docQaTask(id: string, params: DocQaParams): BenchTask {
  const doc = generateDocQaDocument(params);
  const fact = doc.facts[doc.asked]!;
  return {
    id,
    suite: "docqa",
    size: params.size,
    variant: fact.kind,
    seed: params.seed,
    question: `${fact.question} Answer briefly.`,
    context: { kind: "text", text: doc.text },
    contextChars: doc.text.length,
    expected: { scorer: "contains", answer: fact.answer },
    meta: { facts: doc.facts.map((f) => f.statement), asked: doc.asked },
  };
}
