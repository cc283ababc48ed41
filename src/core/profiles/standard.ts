// The standard profile: the prompts the loop has always used (src/core/prompts.ts), for roots
// bigger than 4B that do not know the canonical harness.
import { ALLOWED_IMPORTS } from "../feedback.ts";
import { FINAL_REQUEST, firstUserMessage, systemPrompt, turnFooter } from "../prompts.ts";
import { offeredNames } from "../repl-vocabulary.ts";
import type { PromptProfile } from "./types.ts";

export const standardProfile: PromptProfile = {
  name: "standard",
  systemPrompt: (inputs) => systemPrompt(inputs),
  firstUserMessage: (inputs) => firstUserMessage(inputs),
  turnFooter: (turn, max) => turnFooter(turn, max),
  finalRequest: FINAL_REQUEST,
  helpers: (recursive) => offeredNames("standard", recursive),
  allowedImports: ALLOWED_IMPORTS,
  restateTask: false,
};
