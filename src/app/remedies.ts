// The button that fixes a failed question. A failure whose message says "Open Settings" must
// offer a real Settings button, on the tab that fixes it; plain text was a dead end (issue 15).
// Which engine's tab fixes which failure is each engine's descriptor (`owns`, `settingsButton`).
import { ENGINES, engineDescriptor, type EngineId } from "../engines/registry.ts";
import type { Backend } from "./settings.ts";

export interface Remedy {
  label: string;
  /** The Settings tab to open. */
  tab: Backend;
}

/** The Settings tab for an engine, or for the first local engine that can run when it cannot. */
function tabFor(id: EngineId, available: (id: EngineId) => boolean | null): Remedy {
  if (available(id) === false) {
    const other = ENGINES.find((e) => e.local && e.id !== id && available(e.id) !== false) ?? ENGINES.find((e) => !e.local);
    if (other) return { label: other.settingsButton, tab: other.id };
  }
  return { label: engineDescriptor(id).settingsButton, tab: id };
}

/** What to offer under a failed exchange, from its message; null when nothing in Settings helps. */
export function remedyFor(message: string | undefined, current: Backend, available: (id: EngineId) => boolean | null): Remedy | null {
  if (!message) return null;
  const owner = ENGINES.find((e) => e.owns.test(message));
  if (owner) return tabFor(owner.id, available);
  if (/Open Settings|in Settings/i.test(message)) return { label: "Open Settings", tab: current };
  return null;
}

/** Why a question cannot go anywhere yet, with the button that fixes it. */
export interface MissingModel extends Remedy {
  message: string;
}

/**
 * The model step of the start, checked before a question is taken: with no model to send it to,
 * a question is held (kept in the box, with the fix) rather than run into a "Failed" card.
 */
export function missingModel(
  missing: { message: string; engine: EngineId } | null,
  available: (id: EngineId) => boolean | null,
): MissingModel | null {
  if (!missing) return null;
  return { message: missing.message, ...tabFor(missing.engine, available) };
}
