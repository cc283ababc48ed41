// How a model picks its tokens, as one value: the run's settings (RlmConfig.sampling) travel whole
// into every request (ChatRequest.sampling) instead of field by field, so a new knob is added
// here and in the engines that speak it, not in each of the loop's request builders.

/** Each field absent: the engine's own default. */
export interface Sampling {
  temperature?: number;
  topP?: number;
  seed?: number;
}

/** The same settings under OpenAI's names, only those that are set (the wire format and the trajectory's backend_kwargs). */
export function openAiSampling(s: Sampling | undefined): { temperature?: number; top_p?: number; seed?: number } {
  const out: { temperature?: number; top_p?: number; seed?: number } = {};
  if (s?.temperature !== undefined) out.temperature = s.temperature;
  if (s?.topP !== undefined) out.top_p = s.topP;
  if (s?.seed !== undefined) out.seed = s.seed;
  return out;
}

/** Only the fields that are set: a settings form's "not set" (null or undefined) leaves the engine's default. */
export function samplingOf(fields: { temperature?: number | null; topP?: number | null; seed?: number | null }): Sampling {
  const out: Sampling = {};
  if (fields.temperature != null) out.temperature = fields.temperature;
  if (fields.topP != null) out.topP = fields.topP;
  if (fields.seed != null) out.seed = fields.seed;
  return out;
}
