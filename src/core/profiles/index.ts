// Prompt profiles and the automatic choice between them.
import { canonicalProfile } from "./canonical.ts";
import { guidedProfile } from "./guided.ts";
import { standardProfile } from "./standard.ts";
import type { PromptProfile, PromptProfileName } from "./types.ts";

export const PROMPT_PROFILES: Readonly<Record<PromptProfileName, PromptProfile>> = {
  guided: guidedProfile,
  standard: standardProfile,
  canonical: canonicalProfile,
};

export { canonicalProfile, guidedProfile, standardProfile };
export { chooseProfile, modelSizeB } from "./choose.ts";
export { PROMPT_CHOICES, type PromptProfile, type PromptProfileName } from "./types.ts";
