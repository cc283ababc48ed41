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
export { chooseProfile, modelSizeB, type ProfileChoice } from "./choose.ts";
export {
  PROMPT_CHOICES,
  type FirstMessageInputs,
  type PromptChoice,
  type PromptProfile,
  type PromptProfileName,
  type SystemPromptInputs,
} from "./types.ts";
