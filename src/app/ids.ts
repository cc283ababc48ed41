/** A short random id for sessions and exchanges (keys in IndexedDB). */
export function newId(): string {
  return (globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random()}`).replace(/-/g, "").slice(0, 16);
}
