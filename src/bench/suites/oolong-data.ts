// The record texts of the OOLONG-style suite: short general-knowledge questions whose answer
// type is one of TREC's six coarse classes (the labels of OOLONG's trec_coarse subset). Each
// template clearly belongs to its class, so a model can label a line by reading it.
import type { Rng } from "../random.ts";

export const OOLONG_LABELS = [
  "numeric value",
  "entity",
  "location",
  "description and abstract concept",
  "abbreviation",
  "human being",
] as const;

export type OolongLabel = (typeof OOLONG_LABELS)[number];

const CITIES = ["Lisbon", "Oslo", "Nairobi", "Lima", "Hanoi", "Quebec", "Perth", "Krakow", "Seville", "Osaka", "Denver", "Cairo"];
const THINGS = [
  "telescope",
  "bicycle",
  "printing press",
  "thermometer",
  "compass",
  "steam engine",
  "piano",
  "microscope",
  "barometer",
  "sewing machine",
];
const CONCEPTS = ["inflation", "photosynthesis", "democracy", "erosion", "irony", "entropy", "nostalgia", "osmosis", "sarcasm", "gravity"];
const ABBRS: Array<[string, string]> = [
  ["NASA", "space agency"],
  ["UNESCO", "cultural organisation"],
  ["DNA", "molecule"],
  ["LASER", "light device"],
  ["RSVP", "invitation note"],
  ["NATO", "military alliance"],
  ["ATM", "cash machine"],
  ["SCUBA", "diving gear"],
  ["GPS", "navigation system"],
  ["PIN", "bank code"],
  ["FIFA", "football body"],
  ["CPU", "computer part"],
];
const ANIMALS = ["bat", "owl", "salmon", "camel", "penguin", "octopus", "beaver", "falcon", "koala", "gecko"];
const ROLES = ["emperor", "explorer", "composer", "astronaut", "painter", "novelist", "inventor", "chemist"];
const LANDMARKS = ["the Acropolis", "Machu Picchu", "the Alhambra", "Angkor Wat", "the Kremlin", "Petra", "the Parthenon", "Stonehenge"];
const RIVERS = ["Danube", "Nile", "Mekong", "Amazon", "Volga", "Rhine", "Ganges", "Yukon"];
const BOOKS = ["The Odyssey", "Don Quixote", "War and Peace", "Moby Dick", "The Divine Comedy", "Hamlet", "Faust", "Candide"];

type Template = (rng: Rng) => string;

const TEMPLATES: Record<OolongLabel, Template[]> = {
  "numeric value": [
    (r) => `How many miles is it from ${r.pick(CITIES)} to ${r.pick(CITIES)} ?`,
    (r) => `What is the population of ${r.pick(CITIES)} ?`,
    (r) => `In what year was the ${r.pick(THINGS)} invented ?`,
    (r) => `How many legs does a ${r.pick(ANIMALS)} have ?`,
    (r) => `How long is the ${r.pick(RIVERS)} river ?`,
    (r) => `At what temperature does ${r.pick(["lead", "tin", "gold", "silver", "zinc"])} melt ?`,
    (r) => `How old was the first ${r.pick(ROLES)} to win a Nobel prize ?`,
  ],
  entity: [
    (r) => `What kind of animal is a ${r.pick(ANIMALS)} ?`,
    (r) => `What instrument did the ${r.pick(ROLES)} of ${r.pick(BOOKS)} fame play ?`,
    (r) => `What is the national dish of ${r.pick(CITIES)} ?`,
    (r) => `Which language is spoken in ${r.pick(CITIES)} ?`,
    (r) => `What colour is the flag flown over ${r.pick(LANDMARKS)} ?`,
    (r) => `Name a game played with a ${r.pick(["shuttlecock", "puck", "cue", "racket", "mallet"])} .`,
    (r) => `What fruit is used to make ${r.pick(["marmalade", "cider", "perry", "kirsch", "limoncello"])} ?`,
  ],
  location: [
    (r) => `Where is ${r.pick(LANDMARKS)} ?`,
    (r) => `What country is ${r.pick(CITIES)} in ?`,
    (r) => `Which river flows through ${r.pick(CITIES)} ?`,
    (r) => `Where does the ${r.pick(RIVERS)} river begin ?`,
    (r) => `In which city was ${r.pick(BOOKS)} first printed ?`,
    (r) => `Where do ${r.pick(ANIMALS)}s live in the wild ?`,
    (r) => `What continent is ${r.pick(LANDMARKS)} on ?`,
  ],
  "description and abstract concept": [
    (r) => `What is ${r.pick(CONCEPTS)} ?`,
    (r) => `Why does ${r.pick(CONCEPTS)} happen ?`,
    (r) => `How does a ${r.pick(THINGS)} work ?`,
    (r) => `What does the word ${r.pick(CONCEPTS)} mean ?`,
    (r) => `Why do ${r.pick(ANIMALS)}s migrate ?`,
    (r) => `What is the difference between ${r.pick(CONCEPTS)} and ${r.pick(CONCEPTS)} ?`,
    (r) => `How is ${r.pick(["paper", "glass", "cheese", "steel", "silk"])} made ?`,
  ],
  abbreviation: [
    (r) => `What does ${r.pick(ABBRS)[0]} stand for ?`,
    (r) => `What is the full form of ${r.pick(ABBRS)[0]} ?`,
    (r) => {
      const [abbr, what] = r.pick(ABBRS);
      return `What does the abbreviation ${abbr} mean for a ${what} ?`;
    },
    (r) => `What is the abbreviation for the ${r.pick(ABBRS)[1]} known by its initials ?`,
    (r) => `What do the letters in ${r.pick(ABBRS)[0]} stand for ?`,
  ],
  "human being": [
    (r) => `Who invented the ${r.pick(THINGS)} ?`,
    (r) => `Who wrote ${r.pick(BOOKS)} ?`,
    (r) => `Who was the first ${r.pick(ROLES)} to visit ${r.pick(CITIES)} ?`,
    (r) => `Who built ${r.pick(LANDMARKS)} ?`,
    (r) => `What was the name of the ${r.pick(ROLES)} who painted ${r.pick(LANDMARKS)} ?`,
    (r) => `Who discovered the source of the ${r.pick(RIVERS)} ?`,
    (r) => `Which ${r.pick(ROLES)} is buried in ${r.pick(CITIES)} ?`,
  ],
};

/** A question text whose answer type is `label`. */
export function recordText(label: OolongLabel, rng: Rng): string {
  return rng.pick(TEMPLATES[label])(rng);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A date in OOLONG's layout ("Mar 07, 2023"), 2022–2024. */
export function recordDate(rng: Rng): string {
  const day = String(rng.int(1, 28)).padStart(2, "0");
  return `${rng.pick(MONTHS)} ${day}, ${rng.int(2022, 2024)}`;
}
