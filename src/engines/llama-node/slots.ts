// Slots: the KV sequences one engine may use, handed out one request at a time. A request goes
// to the free slot whose last prompt shares the longest beginning with its own (so a root turn,
// or a child RLM's, finds its conversation still in the cache), else to the one idle longest.
// Like llama-server's slot choice by prompt similarity, without the server.

export interface Slot<T> {
  readonly index: number;
  readonly value: T;
  /** The last prompt this slot evaluated (its KV cache holds it), as text. */
  lastPrompt: string;
  lastUsed: number;
  busy: boolean;
}

/** Characters `a` and `b` share from the start. */
export function sharedPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Below this many shared characters a match is only the chat template's opening (the same
 * "<|im_start|>system" every prompt has): not worth preferring a slot for.
 */
const MEANINGFUL_PREFIX = 200;

export class Slots<T> {
  private readonly slots: Slot<T>[];
  private readonly waiting: Array<() => void> = [];
  private clock = 0;

  constructor(values: readonly T[]) {
    if (values.length === 0) throw new Error("Slots needs at least one slot");
    this.slots = values.map((value, index) => ({ index, value, lastPrompt: "", lastUsed: 0, busy: false }));
  }

  get size(): number {
    return this.slots.length;
  }

  /** The slot for `prompt`, waiting for one to be free; rejects if `signal` aborts first. */
  async acquire(prompt: string, signal?: AbortSignal): Promise<Slot<T>> {
    for (;;) {
      signal?.throwIfAborted();
      const slot = this.choose(prompt);
      if (slot) {
        slot.busy = true;
        return slot;
      }
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
        const onAbort = () => {
          const at = this.waiting.indexOf(wake);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal?.reason);
        };
        this.waiting.push(wake);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    }
  }

  /** Gives the slot back; `prompt` is what its cache now starts with ("" if unknown). */
  release(slot: Slot<T>, prompt: string): void {
    slot.busy = false;
    slot.lastPrompt = prompt;
    slot.lastUsed = ++this.clock;
    this.waiting.shift()?.();
  }

  private choose(prompt: string): Slot<T> | undefined {
    let best: Slot<T> | undefined;
    let bestShared = -1;
    for (const slot of this.slots) {
      if (slot.busy) continue;
      const shared = sharedPrefix(slot.lastPrompt, prompt);
      const score = shared >= MEANINGFUL_PREFIX ? shared : 0;
      if (score > bestShared || (score === bestShared && best && slot.lastUsed < best.lastUsed)) {
        best = slot;
        bestShared = score;
      }
    }
    return best;
  }
}
