// Every engine the app can use, one line each. An engine is its folder under src/engines/ (its
// descriptor.ts, which this file lists, and for the page its page.ts, found by folder name in
// src/app/engine-pages.ts) plus its line here. The order is the order of the choices in Settings.
// No DOM: the CLI can read this list.
import type { EngineDescriptor } from "./descriptor.ts";
import { OPENAI } from "./openai/descriptor.ts";
import { WEBLLM } from "./webllm/descriptor.ts";
import { WLLAMA } from "./wllama/descriptor.ts";

export const ENGINES = [WLLAMA, WEBLLM, OPENAI] as const;

type Descriptors = (typeof ENGINES)[number];
export type EngineId = Descriptors["id"];
/** Each engine's settings under its id. */
export type EngineSettingsMap = { [D in Descriptors as D["id"]]: D["defaults"] };

export const ENGINE_IDS: readonly EngineId[] = ENGINES.map((e) => e.id);

export function isEngineId(value: string): value is EngineId {
  return (ENGINE_IDS as readonly string[]).includes(value);
}

/** The descriptor of an engine, typed loosely for code that treats every engine alike. */
export function engineDescriptor(id: EngineId): EngineDescriptor<EngineId, object> {
  return ENGINES.find((e) => e.id === id)! as unknown as EngineDescriptor<EngineId, object>;
}

/** Every engine's default settings. */
export function engineDefaults(): EngineSettingsMap {
  return Object.fromEntries(ENGINES.map((e) => [e.id, structuredClone(e.defaults)])) as EngineSettingsMap;
}
