// What the app knows about one kind of engine without running it: the settings it keeps, how it
// is named, where questions go, what a share link may set. One descriptor per engine folder,
// listed in registry.ts. No DOM and no engine code here, so the CLI can read the registry too;
// the page's side of an engine (building it, its status, storage and Settings view) is the
// folder's page.ts (src/app/engine-host.ts says what that holds).

/** The model chip and start steps, in words (never colour alone). */
export type EngineStatus =
  | { state: "idle"; label: string }
  | { state: "connecting"; label: string }
  | { state: "loading"; label: string; progress: number; detail: string }
  | { state: "ready"; label: string; detail: string }
  /** `brief`: the chip's words for this failure ("not reachable", "model not offered"); else the engine's `words.failed`. */
  | { state: "error"; label: string; message: string; canReload: boolean; brief?: string };

/** A field a share link may carry, for the engine that is chosen. */
export interface LinkField<S> {
  read(s: S): string | null;
  /** What an unset value means, in a person's words ("asked from the server"); shown by the link dialog. */
  unset?: string;
  /** Why the value is refused, or null to take it. */
  check?(value: string, s: S): string | null;
  write(s: S, value: string): void;
}

export interface EngineDescriptor<Id extends string = string, S extends object = object> {
  /** Also the key of its settings, its folder name, the trajectory's backend and the link's value. */
  readonly id: Id;
  /** The choice in Settings. */
  readonly label: string;
  /** Runs on this machine (nothing leaves it) or on a server. */
  readonly local: boolean;
  readonly defaults: S;
  /** The model these settings choose ("" when none yet). */
  modelName(s: S): string;
  /** Where questions go: "this browser", or the server's origin. */
  destination(s: S): string;
  /** The window the settings ask for; 0 when only the running engine knows it. */
  contextWindow(s: S): number;
  /** What is missing in the settings before a question can go, or null. */
  missing(s: S): string | null;
  /** Why Settings cannot be saved with this engine chosen as it is (e.g. an endpoint without a model), or null. */
  refuseSave?(s: S): string | null;
  /** A failure message that this engine's Settings tab fixes. */
  owns: RegExp;
  /** The button that opens that tab. */
  settingsButton: string;
  /** The chip's words once it can answer, when it cannot, and (a local engine) when its model is kept but not loaded. */
  words: { ready: string; failed: string; kept?: string };
  /** Assumed tokens per second for the page's time estimates (labelled as estimates). */
  throughput: { prefill: number; decode: number };
  /** Share-link fields this engine supports. */
  link?: { model?: LinkField<S>; subModel?: LinkField<S>; contextWindow?: LinkField<S> };
  /** Let a Qwen3-style model think (the loop keeps it off otherwise). */
  thinking?(s: S): boolean;
}

/** Keeps the literal id and settings type of a descriptor. */
export function defineEngine<Id extends string, S extends object>(d: EngineDescriptor<Id, S>): EngineDescriptor<Id, S> {
  return d;
}
