// Puts rendered chunks into the page a few at a time, yielding between slices, so that no task
// the page runs for a huge answer comes near 50 ms. Each chunk is its own block; when there are
// several, blocks off screen skip layout (content-visibility: auto) until they are scrolled to.
// A huge answer is shown in part first: a page holding hundreds of thousands of elements makes
// every later style pass and garbage collection slow (a 630 ms GC pause was traced after a 1 MB
// answer was shown whole), so the rest comes when the person asks for it.
import type { RenderChunk } from "./markdown-html.ts";
import { sanitizeToFragment } from "./sanitize.ts";

/** Work done per frame, for all views together, before giving the page back its turn. */
const SLICE_MS = 6;
/** Rough height of a character of text, for the size a skipped block reserves. */
const PX_PER_CHAR = 0.3;
/** What is shown at first and added by each "Show more": about this many elements. */
export const SHOWN_WEIGHT = 12_000;

/** About how many elements a chunk adds to the page (a plain chunk is text: a few per 100 characters of layout). */
export function chunkWeight(chunk: RenderChunk): number {
  return chunk.kind === "html" ? Math.ceil(chunk.tags / 2) : Math.ceil(chunk.text.length / 100);
}

export function chunkChars(chunk: RenderChunk): number {
  return chunk.kind === "html" ? chunk.sourceChars : chunk.text.length;
}

/**
 * One time budget per frame, shared by every view on the page. Yielding between tasks is not
 * enough: the browser lays out everything inserted since the last frame in one go, so fifteen
 * views each inserting a short slice before a frame (a session reopened) made 50-165 ms frames.
 */
let frameStamp = -1;
let frameDeadline = 0;

function nextFrame(): Promise<void> {
  return new Promise((resolve) =>
    requestAnimationFrame((stamp) => {
      if (stamp !== frameStamp) {
        frameStamp = stamp;
        frameDeadline = performance.now() + SLICE_MS;
      }
      resolve();
    }),
  );
}

/** Waits until this frame's budget has room (the frame after, when it is spent). */
async function slot(): Promise<void> {
  while (performance.now() >= frameDeadline) await nextFrame();
}

export function chunkElement(chunk: RenderChunk, many: boolean): HTMLElement {
  const element = document.createElement("div");
  element.className = many ? "md-chunk many" : "md-chunk";
  if (chunk.kind === "html") element.append(sanitizeToFragment(chunk.html));
  else {
    element.classList.add("plain");
    element.textContent = chunk.text;
  }
  if (many) element.style.containIntrinsicSize = `auto ${Math.max(40, Math.round(chunkChars(chunk) * PX_PER_CHAR))}px`;
  return element;
}

export interface PaintOptions {
  /** Index of the first chunk to paint; 0 replaces what the host shows. */
  from: number;
  /** Stop after about this many elements (Infinity: paint to the end). */
  budget: number;
}

/**
 * Paints `chunks` from `options.from` into `host`, and returns the index where it stopped.
 * Painting from 0 replaces the host's content, but only once the first slice is ready, so an
 * update (a streamed reply) never flashes empty. Stops quietly when `signal` aborts (a newer
 * text is on its way).
 */
export async function paintChunks(host: HTMLElement, chunks: RenderChunk[], signal: AbortSignal, options: PaintOptions): Promise<number> {
  const many = chunks.length > 1;
  let i = options.from;
  let replace = options.from === 0;
  let spent = 0;
  const more = () => i < chunks.length && spent < options.budget;
  while (more() || replace) {
    // A single chunk (most answers) goes in at once; a long text waits for room in a frame.
    if (many) await slot();
    if (signal.aborted) return i;
    const built: HTMLElement[] = [];
    while (more() && (built.length === 0 || performance.now() < frameDeadline)) {
      spent += chunkWeight(chunks[i]!);
      built.push(chunkElement(chunks[i++]!, many));
    }
    if (replace) host.replaceChildren(...built);
    else host.append(...built);
    replace = false;
  }
  return i;
}
