// Puts rendered chunks into the page a few at a time, yielding between slices, so that no task
// the page runs for a huge answer comes near 50 ms. Each chunk is its own block; when there are
// several, blocks off screen skip layout (content-visibility: auto) until they are scrolled to.
// A text of several chunks is painted by window.ts, which keeps only the part near the screen
// formatted: a page holding hundreds of thousands of elements makes every later style pass and
// garbage collection slow (a 630 ms GC pause was traced after a 1 MB answer was shown whole).
import type { RenderChunk } from "./markdown-html.ts";
import { sanitizeToFragment } from "./sanitize.ts";

/**
 * Work done per task before giving the page back its turn. (Pacing by animation frame instead,
 * one budget per frame for all views, was tried and measured worse: many more 50-160 ms tasks
 * for the same answers, at a lower load.)
 */
export const SLICE_MS = 5;
/** Rough height of a character of text, for the size a skipped block reserves. */
const PX_PER_CHAR = 0.3;

/** About how many elements a chunk adds to the page (a plain chunk is text: a few per 100 characters of layout). */
export function chunkWeight(chunk: RenderChunk): number {
  return chunk.kind === "html" ? Math.ceil(chunk.tags / 2) : Math.ceil(chunk.text.length / 100);
}

export function chunkChars(chunk: RenderChunk): number {
  return chunk.kind === "html" ? chunk.sourceChars : chunk.text.length;
}

export function yieldToPage(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (scheduler?.yield) return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export function chunkElement(chunk: RenderChunk, many: boolean): HTMLElement {
  const element = document.createElement("div");
  element.className = many ? "md-chunk many" : "md-chunk";
  if (chunk.kind === "html") element.append(sanitizeToFragment(chunk.html));
  else {
    element.classList.add("plain");
    element.textContent = chunk.text;
  }
  if (many) element.style.containIntrinsicSize = reservedSize(chunkChars(chunk));
  return element;
}

/** The size a block of `chars` characters reserves while it is off screen and not laid out ("auto": once shown, its real size). */
export function reservedSize(chars: number): string {
  return `auto ${Math.max(40, Math.round(chars * PX_PER_CHAR))}px`;
}

/**
 * Paints `chunks` into `host` in slices, replacing its content once the first slice is ready, so
 * an update (a streamed reply) never flashes empty. Stops quietly when `signal` aborts (a newer
 * text is on its way).
 */
export async function paintChunks(host: HTMLElement, chunks: RenderChunk[], signal: AbortSignal): Promise<void> {
  const many = chunks.length > 1;
  let i = 0;
  let replace = true;
  while (i < chunks.length || replace) {
    if (signal.aborted) return;
    const deadline = performance.now() + SLICE_MS;
    const built: HTMLElement[] = [];
    while (i < chunks.length && (built.length === 0 || performance.now() < deadline)) built.push(chunkElement(chunks[i++]!, many));
    if (replace) host.replaceChildren(...built);
    else host.append(...built);
    replace = false;
    if (i < chunks.length) await yieldToPage();
  }
}
