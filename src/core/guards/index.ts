// Guards the loop consults every turn (small-models.md, summary item 4). Each is a small state
// machine with one question to answer; none runs code or calls a model.
export { RepeatGuard, normaliseCode, similarity } from "./repeat.ts";
export { NoActionCounter } from "./no-action.ts";
export { StuckDetector, errorSignature, type StuckReason } from "./stuck.ts";
export { EvidenceGate } from "./evidence.ts";
export { endsInRunawayRepetition } from "./runaway.ts";
export { ExtractionGuard, isEmptyAggregate, patternIn, type ExtractionProblem } from "./extraction.ts";
