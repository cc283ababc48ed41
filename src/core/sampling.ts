// The sampling settings a run's config carries (temperature, top-p, seed), as the one value every
// request the run makes spreads in: each set one only, so an engine keeps its own default for the rest.
import type { RlmConfig } from "./types.ts";

export type Sampling = Pick<RlmConfig, "temperature" | "topP" | "seed">;

/** The config's sampling settings that are set, and no key for those that are not. */
export function samplingOf(config: Sampling): Sampling {
  const sampling: Sampling = {};
  if (config.temperature !== undefined) sampling.temperature = config.temperature;
  if (config.topP !== undefined) sampling.topP = config.topP;
  if (config.seed !== undefined) sampling.seed = config.seed;
  return sampling;
}
