// The page's side of WebLLM (found by src/app/engine-pages.ts).
import type { EnginePage } from "../../app/engine-host.ts";
import { WebLLMHost } from "./host.svelte.ts";
import SettingsView from "./Settings.svelte";
import StartStep from "./StartStep.svelte";

export const page: EnginePage = {
  id: "webllm",
  createHost: (ctx) => new WebLLMHost(ctx),
  SettingsView,
  StartStep,
};
