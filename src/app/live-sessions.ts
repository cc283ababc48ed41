// One sandbox per session: every session that has been opened gets its own RlmSession, and so
// its own Python worker, so nothing a session's code does (variables, patched builtins, files,
// timers) can reach another session. A few stay alive so switching back keeps their variables;
// beyond that the least recently used idle one is closed, which terminates its workers.
import type { RlmSession } from "../core/session.ts";

export class LiveSessions {
  /** Insertion order is use order: the first entry is the least recently used. */
  private readonly live = new Map<string, RlmSession>();

  constructor(private readonly limit: number) {}

  get(id: string): RlmSession | undefined {
    const session = this.live.get(id);
    if (session) {
      this.live.delete(id);
      this.live.set(id, session);
    }
    return session;
  }

  /** Keeps `session` for `id`, closing idle sessions beyond the limit. */
  add(id: string, session: RlmSession): void {
    this.live.get(id)?.close();
    this.live.set(id, session);
    for (const [oldId, old] of this.live) {
      if (this.live.size <= this.limit) break;
      if (oldId === id || old.busy) continue;
      old.close();
      this.live.delete(oldId);
    }
  }

  /** Ends a session's Python: its workers are terminated and its documents released. */
  close(id: string): void {
    this.live.get(id)?.close();
    this.live.delete(id);
  }

  has(id: string): boolean {
    return this.live.has(id);
  }

  closeAll(): void {
    for (const session of this.live.values()) session.close();
    this.live.clear();
  }
}
