// The page's side of llama.cpp in the page (found by src/app/engine-pages.ts).
import type { EnginePage } from "../../app/engine-host.ts";
import { WllamaHost } from "./host.svelte.ts";
import SettingsView from "./Settings.svelte";
import StartStep from "./StartStep.svelte";

export const page: EnginePage = {
  id: "wllama",
  createHost: (ctx) => new WllamaHost(ctx),
  SettingsView,
  StartStep,
};
