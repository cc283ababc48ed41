// Guards the loop consults every turn (small-models.md, summary item 4). Each is a small state
// machine with one question to answer; none runs code or calls a model.
export { RepeatGuard, advancesState, normaliseCode, similarity, type RepeatGuardOptions, type RepeatVerdict } from "./repeat.ts";
export { NoActionCounter, type NoActionVerdict } from "./no-action.ts";
export {
  StuckDetector,
  errorSignature,
  usesContext,
  type StuckLimits,
  type StuckReason,
  type StuckVerdict,
  type TurnObservation,
} from "./stuck.ts";
export { EvidenceGate, type EvidenceGateOptions, type EvidenceVerdict, type FinalToCheck } from "./evidence.ts";
export { endsInRunawayRepetition, type RunawayOptions } from "./runaway.ts";
export { ExtractionGuard, isEmptyAggregate, numberFragment, patternIn, type ExtractionProblem, type FoundHits } from "./extraction.ts";
