// What a markdown view does with a new text: paint a cached result at once, else ask the render
// worker; show the text plain if that takes more than a moment (a huge answer), and for good if
// formatting fails or runs out of time. A long result is all on the page, formatted near the
// screen (window.ts). Nothing here throws: any failure ends in the raw text.
import type { RenderChunk } from "./markdown-html.ts";
import { paintChunks } from "./paint.ts";
import { splitPlain } from "./plain.ts";
import { renderClient, type MarkdownRenderClient } from "./render-client.ts";
import { ChunkWindow } from "./window.ts";

/** A formatted result usually arrives well within this; past it the plain text is shown. */
const PLACEHOLDER_AFTER_MS = 150;

export function plainChunks(text: string): RenderChunk[] {
  return splitPlain(text).map((piece) => ({ kind: "plain", text: piece }));
}

function note(text: string): RenderChunk {
  return { kind: "html", html: `<p class="md-note">${text}</p>`, sourceChars: 0, tags: 2 };
}

/**
 * Where a view is, in `data-render` on its element: "formatting" (waiting for the worker),
 * "plain" (the text shown as it is while waiting), "done", or "fallback" (formatting failed or
 * ran out of time; the text is shown plain for good). Screen readers get `aria-busy`.
 */
type RenderState = "formatting" | "plain" | "done" | "fallback";

function mark(host: HTMLElement, state: RenderState): void {
  host.dataset.render = state;
  host.setAttribute("aria-busy", String(state !== "done" && state !== "fallback"));
}

/**
 * Paints a rendered text: one chunk as it is; several in a ChunkWindow, where the whole text is on
 * the page and only the part near the screen is formatted, so no answer, however long, needs a
 * "show more" and none makes the page slow.
 */
async function paintAll(host: HTMLElement, chunks: RenderChunk[], signal: AbortSignal): Promise<void> {
  if (chunks.length > 1) await new ChunkWindow(host, chunks, signal).paint();
  else await paintChunks(host, chunks, signal);
}

export async function showMarkdown(
  host: HTMLElement,
  text: string,
  signal: AbortSignal,
  client: MarkdownRenderClient = renderClient(),
): Promise<void> {
  try {
    const hit = text ? client.cached(text) : [];
    if (hit) {
      await paintAll(host, hit, signal);
      if (!signal.aborted) mark(host, "done");
      return;
    }
    mark(host, "formatting");
    const placeholder = new AbortController();
    const timer = setTimeout(() => {
      mark(host, "plain");
      void paintChunks(host, plainChunks(text), AbortSignal.any([signal, placeholder.signal]));
    }, PLACEHOLDER_AFTER_MS);
    let chunks: RenderChunk[];
    let state: RenderState = "done";
    try {
      chunks = await client.render(text, signal);
    } catch (err) {
      if (signal.aborted) return;
      chunks = [note(err instanceof Error ? err.message.replace(/[<>&]/g, "") : "Shown as plain text."), ...plainChunks(text)];
      state = "fallback";
    } finally {
      clearTimeout(timer);
      placeholder.abort();
    }
    await paintAll(host, chunks, signal);
    if (!signal.aborted) mark(host, state);
  } catch {
    // Whatever went wrong, the person still gets the text.
    if (signal.aborted) return;
    host.textContent = text;
    mark(host, "fallback");
  }
}
