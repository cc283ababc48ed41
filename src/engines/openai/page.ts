// The page's side of the OpenAI-compatible endpoint (found by src/app/engine-pages.ts).
import type { EnginePage } from "../../app/engine-host.ts";
import { OpenAIHost } from "./host.svelte.ts";
import SettingsView from "./Settings.svelte";
import StartStep from "./StartStep.svelte";

export const page: EnginePage = {
  id: "openai",
  createHost: (ctx) => new OpenAIHost(ctx),
  SettingsView,
  StartStep,
};
