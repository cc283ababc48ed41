// A long rendered text, all of it on the page, but only the part near the screen formatted.
//
// Why: a dense 1 MB answer is hundreds of thousands of elements once formatted whole, and a page
// holding that many makes every later style pass, paint, hit test and garbage collection slow
// (tasks of 60-500 ms were measured after "Show all" on a 1 MB table). Here a chunk near the
// screen holds its formatted HTML and every other chunk holds its text as one text node
// ("resting"). So the whole text is always on the page, for reading, find-in-page, selection and
// copying, while the number of elements stays about what a few screens hold, however long the
// answer.
//
// Chunks are small (a chunk is what sanitizing costs in one go, ~3 ms; a 1 MB table is 1,500 of
// them), so they are grouped into slots, and slots are what is watched: watching every chunk
// made the IntersectionObserver and layout passes of each frame cost 20-40 ms. A slot skips
// layout while off screen (content-visibility: auto) and keeps its size once shown
// (contain-intrinsic-size: auto ...), so resting never moves what the person is reading. Chunks
// are formatted a few per frame, so a frame never lays out more than a few hundred new elements.
import type { RenderChunk } from "./markdown-html.ts";
import { SLICE_MS, chunkChars, chunkElement, chunkWeight, reservedSize, yieldToPage } from "./paint.ts";
import { sanitizeToFragment } from "./sanitize.ts";

/** Formatted at once, before the first paint: about a tall screen of dense content (a table). */
export const FIRST_WEIGHT = 600;
/** A slot holds chunks up to about this many elements, or this much text. */
const SLOT = { weight: 1_500, chars: 16 * 1024 };
/**
 * How far from the screen a slot is formatted (and past which it rests): far enough that
 * scrolling at reading speed never shows a resting chunk, near enough to bound the elements.
 */
const MARGIN_PX = 1500;
const MARGIN = `${MARGIN_PX}px 0px`;
/** The longest a formatting step waits for the page to render a frame. */
const FRAME_WAIT_MS = 100;
/**
 * Formatting per frame: what the frame then lays out is what it costs, so this stays under the
 * 5 ms slices used elsewhere (a few hundred elements a frame).
 */
const FORMAT_SLICE_MS = 3;
/** Time per turn for letting go of chunks that left the screen. */
const REST_SLICE_MS = 2;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/**
 * The text a formatted chunk shows, from its HTML: tags dropped, entities decoded, a table row on
 * one line with its cells tab-separated, no more than one blank line in a row. The renderer
 * writes only a few entities, but a numeric one is decoded too. The result is inserted as a text
 * node, so nothing in it is ever markup.
 */
export function htmlToText(html: string): string {
  return (
    html
      // A table row reads as one line, its cells apart; blank lines between blocks stay single.
      .replace(/<\/t[dh]>\s*(?=<t[dh][\s>])/g, "\t")
      .replace(/<\/tr>\s*/g, "\n")
      .replace(/<[^>]*>/g, "")
      .replace(/\n{3,}/g, "\n\n")
      .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
        if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? whole;
        const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      })
  );
}

/** Consecutive chunks, [first, end), grouped up to the SLOT size (a chunk bigger than that is a slot of its own). */
export function groupChunks(chunks: RenderChunk[]): Array<[number, number]> {
  const groups: Array<[number, number]> = [];
  let first = 0;
  let weight = 0;
  let chars = 0;
  for (let i = 0; i < chunks.length; i++) {
    const w = chunkWeight(chunks[i]!);
    const c = chunkChars(chunks[i]!);
    if (i > first && (weight + w > SLOT.weight || chars + c > SLOT.chars)) {
      groups.push([first, i]);
      first = i;
      weight = 0;
      chars = 0;
    }
    weight += w;
    chars += c;
  }
  if (chunks.length) groups.push([first, chunks.length]);
  return groups;
}

/** Whether the element is on the page within MARGIN of the screen (its top edge, as laid out now). */
function nearScreen(element: HTMLElement): boolean {
  if (!element.isConnected) return false;
  const rect = element.getBoundingClientRect();
  return rect.top < window.innerHeight + MARGIN_PX && rect.bottom > -MARGIN_PX;
}

/**
 * Resolves after the page has had a chance to render a frame, or after FRAME_WAIT_MS when it
 * renders none: a page that is not being painted (a background tab, WebKit's automation window)
 * may never run animation frames, and formatting must not wait for them forever.
 */
function nextFrame(): Promise<void> {
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, FRAME_WAIT_MS);
  });
}

export class ChunkWindow {
  /** Each chunk's element: formatted, or resting (its text only). */
  private readonly elements: HTMLElement[] = [];
  private readonly formatted = new Set<number>();
  /** Each slot's chunks, [first, end), and each chunk's slot. */
  private readonly slots: Array<[number, number]>;
  private readonly slotOf: number[];
  /** Slots within MARGIN of the screen, as the observer last said. */
  private readonly near = new Set<number>();
  /** Chunks to format (of slots that came near), then chunks to rest (of slots that left). */
  private readonly toFormat: Array<{ chunk: number; slot: number }> = [];
  private readonly toRest: Array<{ chunk: number; slot: number }> = [];
  private draining = false;

  constructor(
    private readonly host: HTMLElement,
    private readonly chunks: RenderChunk[],
    private readonly signal: AbortSignal,
  ) {
    this.slots = groupChunks(chunks);
    this.slotOf = this.slots.flatMap(([from, end], slot) => Array<number>(end - from).fill(slot));
  }

  /**
   * Puts every chunk on the page a slice at a time, formatting the first ones (what the first
   * screen shows), and from then on formats what comes near the screen. The host's old content
   * is replaced only once the first slice is ready, so an update never flashes empty.
   */
  async paint(): Promise<void> {
    // Formatting the start at once is for a text the person is looking at (an answer that just
    // arrived): a session reopened with many long answers formats only what the observer finds
    // near the screen.
    let weight = nearScreen(this.host) ? 0 : FIRST_WEIGHT;
    let replaced = false;
    let slot: HTMLElement | null = null;
    for (let i = 0; i < this.chunks.length;) {
      if (this.signal.aborted) return;
      const deadline = performance.now() + SLICE_MS;
      const built: HTMLElement[] = [];
      do {
        if (!slot || this.slotOf[i] !== Number(slot.dataset.slot)) {
          slot = this.slotElement(this.slotOf[i]!);
          built.push(slot);
        }
        const chunk = this.chunks[i]!;
        const format = weight < FIRST_WEIGHT || chunk.kind === "plain";
        if (format) weight += chunkWeight(chunk);
        const element = format ? chunkElement(chunk, false) : resting(chunk);
        if (format) this.formatted.add(i);
        this.elements[i] = element;
        slot.append(element);
        i++;
      } while (i < this.chunks.length && performance.now() < deadline);
      if (!replaced) this.host.replaceChildren(...built);
      else this.host.append(...built);
      replaced = true;
      if (i < this.chunks.length) await yieldToPage();
    }
    if (this.signal.aborted) return;
    this.watch();
  }

  /**
   * Watches the slots only while the text itself is near the screen: a session of many long
   * answers would otherwise have every frame compute thousands of intersections. When the text
   * leaves, everything formatted in it is let go.
   */
  private watch(): void {
    const slots = new IntersectionObserver((entries) => this.moved(entries), { rootMargin: MARGIN });
    const whole = new IntersectionObserver(
      (entries) => {
        if (entries.at(-1)!.isIntersecting) {
          for (const slot of this.host.children) slots.observe(slot);
          return;
        }
        slots.disconnect();
        this.near.clear();
        for (const chunk of this.formatted) this.toRest.push({ chunk, slot: this.slotOf[chunk]! });
        void this.drain();
      },
      { rootMargin: MARGIN },
    );
    whole.observe(this.host);
    this.signal.addEventListener(
      "abort",
      () => {
        whole.disconnect();
        slots.disconnect();
      },
      { once: true },
    );
  }

  private slotElement(index: number): HTMLElement {
    const [from, end] = this.slots[index]!;
    const slot = document.createElement("div");
    slot.className = "md-slot";
    slot.dataset.slot = String(index);
    let chars = 0;
    for (let i = from; i < end; i++) chars += chunkChars(this.chunks[i]!);
    slot.style.containIntrinsicSize = reservedSize(chars);
    return slot;
  }

  private moved(entries: IntersectionObserverEntry[]): void {
    for (const entry of entries) {
      const slot = Number((entry.target as HTMLElement).dataset.slot);
      const [from, end] = this.slots[slot]!;
      const list = entry.isIntersecting ? this.toFormat : this.toRest;
      if (entry.isIntersecting) this.near.add(slot);
      else this.near.delete(slot);
      for (let chunk = from; chunk < end; chunk++) {
        if (entry.isIntersecting !== this.formatted.has(chunk)) list.push({ chunk, slot });
      }
    }
    void this.drain();
  }

  /**
   * Formats the chunks waiting for it, a few per frame (what a frame lays out stays small), then
   * lets go of the chunks whose slot left the screen. Either list may hold chunks whose slot has
   * moved back since; those are skipped.
   */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while ((this.toFormat.length || this.toRest.length) && !this.signal.aborted) {
        // Letting go comes first, a little per turn, so the page never holds much more than
        // what is near the screen, even while the person keeps scrolling.
        this.work(this.toRest, false, performance.now() + REST_SLICE_MS);
        const formatted = this.work(this.toFormat, true, performance.now() + FORMAT_SLICE_MS);
        if (formatted) await nextFrame();
        else if (this.toFormat.length || this.toRest.length) await yieldToPage();
      }
    } finally {
      this.draining = false;
    }
  }

  /** Formats (or rests) chunks from `list` until `deadline`; returns whether any changed. */
  private work(list: Array<{ chunk: number; slot: number }>, formatting: boolean, deadline: number): boolean {
    let changed = false;
    while (list.length && performance.now() < deadline) {
      const { chunk, slot } = list.shift()!;
      if (this.near.has(slot) !== formatting || this.formatted.has(chunk) === formatting) continue;
      if (formatting) this.format(chunk);
      else this.rest(chunk);
      changed = true;
    }
    return changed;
  }

  private format(index: number): void {
    const chunk = this.chunks[index]!;
    const element = this.elements[index]!;
    if (chunk.kind === "html") {
      element.classList.remove("resting");
      element.replaceChildren(sanitizeToFragment(chunk.html));
    }
    this.formatted.add(index);
  }

  private rest(index: number): void {
    const chunk = this.chunks[index]!;
    const element = this.elements[index]!;
    if (chunk.kind === "html") {
      element.classList.add("resting");
      element.textContent = htmlToText(chunk.html);
    }
    this.formatted.delete(index);
  }
}

/** A chunk's element while it is away from the screen: its text only. */
function resting(chunk: RenderChunk): HTMLElement {
  const element = document.createElement("div");
  // Not content-visibility inside a slot: WebKit (2.50) lays such nested chunks out at height 0
  // once their slot has been on screen, and remembers that size, so the text vanished.
  element.className = "md-chunk resting";
  element.textContent = chunk.kind === "html" ? htmlToText(chunk.html) : chunk.text;
  return element;
}
