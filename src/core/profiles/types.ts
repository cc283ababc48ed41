// A prompt profile: everything the root model reads that depends on which kind of model it is
// (a ≤4B root needs a short, guided prompt; an RLM-trained model needs the protocol it was
// trained on). The loop asks the chosen profile for each text; numbers come from the budgets.
import type { ContextInfo } from "../../repl/protocol.ts";
import type { HistoryEntry } from "../../repl/types.ts";
import type { Budgets } from "../budgets.ts";

export type PromptProfileName = "guided" | "standard" | "canonical";
export type PromptChoice = "auto" | PromptProfileName;
export const PROMPT_CHOICES: readonly PromptChoice[] = ["auto", "guided", "standard", "canonical"];

export interface SystemPromptInputs {
  budgets: Budgets;
  /** Whether rlm_query starts a child RLM (depth allows) or is a plain sub-call. */
  recursive: boolean;
}

export interface FirstMessageInputs {
  question: string;
  context: ContextInfo | null;
  previous: HistoryEntry[];
  budgets: Budgets;
  /** False when the REPL was restarted since those questions (page reload, crash). */
  previousVariablesKept?: boolean;
  /** For profiles that number turns ("Turn 1/20"). */
  maxIterations?: number;
}

export interface PromptProfile {
  name: PromptProfileName;
  systemPrompt(inputs: SystemPromptInputs): string;
  firstUserMessage(inputs: FirstMessageInputs): string;
  /** Appended to the REPL output of turn `turn` (0-based: the turn about to start). */
  turnFooter(turn: number, maxIterations: number, question: string): string;
  /** The last request when turns run out. */
  finalRequest: string;
  /** Helper names the feedback lists as existing. */
  helpers(recursive: boolean): readonly string[];
  allowedImports: readonly string[];
  /** Restate the task in every feedback message (small roots lose it: M10). */
  restateTask: boolean;
}
