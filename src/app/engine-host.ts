// The page's side of an engine: what each engine folder's page.ts provides so the app can build
// it, show its state and let a person set it up, without knowing which engine it is. The
// engine-agnostic half (settings, names, links) is its descriptor (src/engines/descriptor.ts).
import type { Component } from "svelte";
import type { EngineStatus } from "../engines/descriptor.ts";
import type { EngineId } from "../engines/registry.ts";
import type { ChatEngine } from "../engines/types.ts";
import type { ReadingSpeed } from "./presets.ts";
import type { Settings } from "./settings.ts";
import type { TestGrammarHook } from "../engines/test-grammar.ts";

export type EngineLabel = Pick<ChatEngine, "model" | "backend" | "contextWindow">;

/** What a host may ask of the app. */
/** Tests only (src/app/test-seams.ts): a grammar per request, and where the CPU catalog downloads from. */
export interface TestSeams {
  testGrammar?: TestGrammarHook;
  catalogBase?: () => string | undefined;
}

export interface HostContext {
  settings(): Settings;
  /** Saves new settings (a model file that became the model, an engine chosen for the person). */
  update(next: Settings): void;
  /** What a host keeps across visits (a model that failed to load); null where the browser keeps nothing. */
  storage: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null;
  /** The page's test seams; none outside tests. */
  testSeams?: TestSeams;
}
export interface EngineHost {
  /** The model chip's state (reactive). */
  readonly status: EngineStatus;
  /** false: cannot run in this browser (see unavailableReason); null: not known yet. */
  readonly available: boolean | null;
  readonly unavailableReason: string;
  /** The window the running engine reported (an endpoint's), for estimates before any question. */
  readonly knownWindow: number | undefined;
  /** Whether the chosen model is downloaded, for the idle chip; undefined when not applicable. */
  download(): "complete" | "partial" | "none" | undefined;
  /** Cheap checks for every engine at page start (is there WebGPU?); never loads a model. */
  detect(): Promise<void>;
  /** Checks once this engine is chosen (is the endpoint there? which models are kept?). */
  probe(): Promise<void>;
  settingsChanged(): void;
  /** What stops a question beyond the settings (no WebGPU, nothing to recommend), or null. */
  missing(): string | null;
  /** The engines for the next run, loading or connecting as needed. */
  forRun(): Promise<{ root: ChatEngine; sub: ChatEngine }>;
  /**
   * A call of the run's engines ended: `failure` is null when the model answered, else what it
   * threw. A failure that means the model cannot answer (meansModelUnavailable) makes the status
   * an error that says why; an answer makes it ready again. The status never stays "connected"
   * after a question failed on an unreachable endpoint (issue 28).
   */
  reportCall(role: "root" | "sub", failure: unknown): void;
  /** Another engine was chosen: free what this one holds (memory, a worker). */
  release(): Promise<void>;
  /** After an error the banner offers: load or connect again. */
  reload(): Promise<void>;
  /** Labels of the loaded engines, or null before any. */
  describe(): { root: EngineLabel; sub: EngineLabel } | null;
  /** Takes model files the person dropped on the page (e.g. a .gguf) and returns the settings that use them. */
  takeFiles?(files: File[], settings: Settings): Promise<Settings>;
  /** Which dropped files are this engine's to take. */
  readonly fileKinds?: RegExp;
  /** A model on this device's processor: how fast it reads prompts (measured, or an estimate), for the efforts. */
  readingSpeed?(): ReadingSpeed | null;
}

/** Props of an engine's Settings tab and of its part of the start steps. */
export interface SettingsViewProps {
  draft: Settings;
  host: EngineHost;
}

export interface StartStepProps {
  settings: Settings;
  host: EngineHost;
  onsettings: (tab: EngineId) => void;
}

export interface EnginePage {
  readonly id: EngineId;
  createHost(ctx: HostContext): EngineHost;
  /** The body of the engine's choice in Settings (its model, window, storage). */
  readonly SettingsView: Component<SettingsViewProps>;
  /** Step 1 of the first-visit steps while this engine is chosen. */
  readonly StartStep: Component<StartStepProps>;
}
