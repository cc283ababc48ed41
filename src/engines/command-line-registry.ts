// The engines `rlm` and `rlm bench` can run, each by its command-line part (command-line.ts). The
// page's registry (registry.ts) lists what the page can run; this one adds llama.cpp native,
// which only Node can load. Adding an engine here needs no change in src/cli.
import { UsageError } from "../cli/flags.mjs";
import type { CommandLineEngine, EngineChoice, ParsedFlags } from "./command-line.ts";
import { LLAMA_NODE_COMMAND_LINE } from "./llama-node/command-line.ts";
import { OPENAI_COMMAND_LINE } from "./openai/command-line.ts";

/** The default (no choosing flag) is the last. */
export const COMMAND_LINE_ENGINES: readonly CommandLineEngine[] = [LLAMA_NODE_COMMAND_LINE, OPENAI_COMMAND_LINE];

/** The engine the flags choose, with its options read; another engine's flags are refused. */
export function chooseEngine(flags: ParsedFlags): EngineChoice {
  const chosen =
    COMMAND_LINE_ENGINES.find((e) => e.chosenBy !== undefined && flags.given.has(e.chosenBy)) ??
    COMMAND_LINE_ENGINES.find((e) => e.chosenBy === undefined)!;
  for (const other of COMMAND_LINE_ENGINES) {
    if (other === chosen) continue;
    const stray = other.flags.find((f) => flags.given.has(f) && !chosen.flags.includes(f));
    if (stray !== undefined) throw new UsageError(chosen.refuse(stray));
  }
  return chosen.choose(flags);
}
