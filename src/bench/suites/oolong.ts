// OOLONG-style aggregation (after oolong-synth's trec_coarse subset): thousands of short records,
// one per line, "Date: … || User: … || Instance: <question>". Each record's label (the answer
// type of its question) is not written in the context: a model must classify every line and
// then count or compare. The generator fixes the label counts first, so answers are exact.
import { hashSeed, Rng } from "../random.ts";
import type { BenchTask, Expected } from "../types.ts";
import { OOLONG_LABELS, recordDate, recordText, type OolongLabel } from "./oolong-data.ts";

export type OolongQuestionKind = "count" | "compare" | "most-common" | "pairs";

export const OOLONG_QUESTION_KINDS: readonly OolongQuestionKind[] = ["count", "compare", "most-common", "pairs"];

export interface OolongParams {
  /** Approximate document length in characters. */
  size: number;
  seed: number;
  kind: OolongQuestionKind;
}

export interface OolongRecord {
  date: string;
  user: number;
  text: string;
  label: OolongLabel;
}

export interface OolongDocument {
  /** What the model reads: no labels. */
  text: string;
  /** The same lines with " || Label: …" appended (oolong-synth's context_window_text_with_labels). */
  labelledText: string;
  records: OolongRecord[];
  counts: Record<OolongLabel, number>;
  question: string;
  expected: Expected;
  /** Labels the question names. */
  labels: OolongLabel[];
}

export const OOLONG_INSTRUCTION =
  "The context has one record per line: a date, a user ID and a general-knowledge question (the instance). " +
  "Each question's answer falls into one of 6 categories (labels): 'numeric value', 'entity', 'location', " +
  "'description and abstract concept', 'abbreviation', 'human being'. The labels are not written in the context: " +
  "classify each question yourself. Answer the aggregate question below.";

export function recordLine(r: Pick<OolongRecord, "date" | "user" | "text">): string {
  return `Date: ${r.date} || User: ${r.user} || Instance: ${r.text}`;
}

/** Records that fit in `size` characters, estimated from a sample of lines. */
function recordCountFor(size: number, seed: number): number {
  const rng = new Rng(hashSeed(seed, "line-length-sample"));
  let total = 0;
  const samples = 200;
  for (let i = 0; i < samples; i++) {
    const label = rng.pick(OOLONG_LABELS);
    total += recordLine({ date: recordDate(rng), user: 10000, text: recordText(label, rng) }).length + 1;
  }
  return Math.max(24, Math.floor(size / (total / samples)));
}

type Counts = Record<OolongLabel, number>;

function spread(total: number, labels: readonly OolongLabel[], rng: Rng): Counts {
  const counts = Object.fromEntries(OOLONG_LABELS.map((l) => [l, 0])) as Counts;
  const weights = labels.map(() => 0.4 + rng.next());
  const sum = weights.reduce((a, b) => a + b, 0);
  let given = 0;
  labels.forEach((l, i) => {
    counts[l] = Math.max(1, Math.floor((total * weights[i]!) / sum));
    given += counts[l];
  });
  // Rounding leaves a few records (or, with the minimum of one, a few too many) to settle.
  while (given < total) {
    counts[rng.pick(labels)] += 1;
    given += 1;
  }
  while (given > total) {
    const l = labels.reduce((a, b) => (counts[b] > counts[a] ? b : a));
    counts[l] -= 1;
    given -= 1;
  }
  return counts;
}

function largestOther(counts: Counts, except: readonly OolongLabel[]): OolongLabel {
  return OOLONG_LABELS.filter((l) => !except.includes(l)).reduce((a, b) => (counts[b] > counts[a] ? b : a));
}

const q = (label: string) => `'${label}'`;

export function generateOolongDocument(params: OolongParams): OolongDocument {
  const rng = new Rng(params.seed);
  const n = recordCountFor(params.size, params.seed);
  const poolSize = Math.max(30, Math.floor(n / 8));
  const userSet = new Set<number>();
  while (userSet.size < poolSize) userSet.add(rng.int(10000, 99999));
  const users = [...userSet];

  let counts: Counts;
  let question: string;
  let expected: Expected;
  let labels: OolongLabel[];
  /** For pairs: how many records of the target label each chosen user has. */
  let pairUsers: Map<number, number> | null = null;

  switch (params.kind) {
    case "count": {
      counts = spread(n, OOLONG_LABELS, rng);
      const x = rng.pick(OOLONG_LABELS);
      labels = [x];
      question = `How many data points should be classified as label ${q(x)}? Give your final answer in the form 'Answer: number'.`;
      expected = { scorer: "oolong", answer: counts[x], answerType: "numeric" };
      break;
    }
    case "compare": {
      counts = spread(n, OOLONG_LABELS, rng);
      const [x, y] = rng.sample(OOLONG_LABELS, 2) as [OolongLabel, OolongLabel];
      const z = largestOther(counts, [x, y]);
      const outcome = rng.pick(["more common than", "less common than", "same frequency as"] as const);
      if (outcome === "same frequency as") {
        const both = counts[x] + counts[y];
        counts[x] = counts[y] = Math.floor(both / 2);
        counts[z] += both % 2;
      } else {
        if (counts[x] === counts[y]) {
          counts[x] += 1;
          counts[z] -= 1;
        }
        const hi = Math.max(counts[x], counts[y]);
        const lo = Math.min(counts[x], counts[y]);
        counts[x] = outcome === "more common than" ? hi : lo;
        counts[y] = outcome === "more common than" ? lo : hi;
      }
      labels = [x, y];
      question =
        `Is label ${q(x)} more common, less common, or the same frequency as label ${q(y)}? ` +
        `Give your final answer in the form 'Answer: ${x} is [X] ${y}', where [X] is 'more common than', 'less common than', or 'same frequency as'.`;
      expected = { scorer: "oolong", answer: outcome, answerType: "comparison" };
      break;
    }
    case "most-common": {
      counts = spread(n, OOLONG_LABELS, rng);
      const sorted = OOLONG_LABELS.slice().sort((a, b) => counts[b] - counts[a]);
      const [top, second] = sorted as [OolongLabel, OolongLabel];
      if (counts[top] === counts[second]) {
        counts[top] += 1;
        counts[second] -= 1;
      }
      labels = [top];
      question = "Which of the labels is the most common? Give your final answer in the form 'Answer: label'.";
      expected = { scorer: "oolong", answer: top, answerType: "label" };
      break;
    }
    case "pairs": {
      const x = rng.pick(OOLONG_LABELS);
      const chosen = rng.sample(users, rng.int(4, 7));
      pairUsers = new Map(chosen.map((u) => [u, rng.int(1, 3)]));
      const targetCount = [...pairUsers.values()].reduce((a, b) => a + b, 0);
      counts = spread(
        n - targetCount,
        OOLONG_LABELS.filter((l) => l !== x),
        rng,
      );
      counts[x] = targetCount;
      labels = [x];
      const sortedUsers = chosen.slice().sort((a, b) => a - b);
      const pairs: string[] = [];
      for (let i = 0; i < sortedUsers.length; i++) {
        for (let j = i + 1; j < sortedUsers.length; j++) pairs.push(`${sortedUsers[i]},${sortedUsers[j]}`);
      }
      question =
        `List all pairs of user IDs (no duplicate pairs, lower ID first) where both users have at least one instance labelled ${q(x)}. ` +
        "Give each pair as (id1, id2), one pair per line.";
      expected = { scorer: "set-f1", answer: pairs, items: "pairs" };
      break;
    }
  }

  const sequence: OolongLabel[] = [];
  for (const l of OOLONG_LABELS) for (let i = 0; i < counts[l]; i++) sequence.push(l);
  rng.shuffle(sequence);
  const targetOwners: number[] = [];
  if (pairUsers) for (const [u, c] of pairUsers) for (let i = 0; i < c; i++) targetOwners.push(u);
  rng.shuffle(targetOwners);
  const nonTargetUsers = pairUsers ? users.filter((u) => !pairUsers!.has(u)) : users;

  const records: OolongRecord[] = [];
  const lines: string[] = [];
  const labelled: string[] = [];
  for (const label of sequence) {
    const isTarget = pairUsers !== null && label === labels[0];
    // In the pairs variant a chosen user may also own records of other labels, as in real data.
    const user = isTarget ? targetOwners.pop()! : rng.pick(pairUsers && rng.next() < 0.1 ? users : nonTargetUsers);
    const record: OolongRecord = { date: recordDate(rng), user, text: recordText(label, rng), label };
    records.push(record);
    const line = recordLine(record);
    lines.push(line);
    labelled.push(`${line} || Label: ${label}`);
  }
  return {
    text: lines.join("\n"),
    labelledText: labelled.join("\n"),
    records,
    counts,
    question: `${OOLONG_INSTRUCTION}\n\nQuestion: ${question}`,
    expected,
    labels,
  };
}

export function oolongTask(id: string, params: OolongParams): BenchTask {
  const doc = generateOolongDocument(params);
  return {
    id,
    suite: params.kind === "pairs" ? "oolong-pairs" : "oolong",
    size: params.size,
    variant: params.kind,
    seed: params.seed,
    question: doc.question,
    context: { kind: "text", text: doc.text },
    contextChars: doc.text.length,
    expected: doc.expected,
    meta: { records: doc.records.length, counts: doc.counts, labels: doc.labels },
  };
}
