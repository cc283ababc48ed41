// What a markdown view does with a new text: paint a cached result at once, else ask the render
// worker; show the text plain if that takes more than a moment (a huge answer), and for good if
// formatting fails or runs out of time. A huge result is shown in part, with buttons for the
// rest. Nothing here throws: any failure ends in the raw text.
import type { RenderChunk } from "./markdown-html.ts";
import { SHOWN_WEIGHT, chunkChars, paintChunks } from "./paint.ts";
import { splitPlain } from "./plain.ts";
import { renderClient, type MarkdownRenderClient } from "./render-client.ts";

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
 * "plain" (the text shown as it is while waiting), "painting" (adding what "Show more" asked
 * for), "done", or "fallback" (formatting failed or ran out of time; the text is shown plain for
 * good). Screen readers get `aria-busy`.
 */
type RenderState = "formatting" | "plain" | "painting" | "done" | "fallback";

function mark(host: HTMLElement, state: RenderState): void {
  host.dataset.render = state;
  host.setAttribute("aria-busy", String(state !== "done" && state !== "fallback"));
}

const count = (n: number) => n.toLocaleString("en-US");

/** Paints from `from` up to a budget; when chunks remain, adds the bar that shows more of them. */
async function paintSome(host: HTMLElement, chunks: RenderChunk[], signal: AbortSignal, from: number, budget: number): Promise<void> {
  const next = await paintChunks(host, chunks, signal, { from, budget });
  if (signal.aborted || next >= chunks.length) return;
  const total = chunks.reduce((n, c) => n + chunkChars(c), 0);
  const shown = chunks.slice(0, next).reduce((n, c) => n + chunkChars(c), 0);
  const bar = document.createElement("div");
  bar.className = "md-more";
  const label = document.createElement("span");
  label.textContent = `Showing ${count(shown)} of ${count(total)} characters.`;
  const button = (text: string, nextBudget: number) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "btn small";
    b.textContent = text;
    b.addEventListener("click", () => {
      const state = (host.dataset.render as RenderState | undefined) ?? "done";
      bar.remove();
      mark(host, "painting");
      void paintSome(host, chunks, signal, next, nextBudget)
        .catch(() => undefined)
        .then(() => signal.aborted || mark(host, state));
    });
    return b;
  };
  bar.append(label, button("Show more", SHOWN_WEIGHT), button("Show all", Infinity));
  host.append(bar);
}

export async function showMarkdown(host: HTMLElement, text: string, signal: AbortSignal, client: MarkdownRenderClient = renderClient()): Promise<void> {
  try {
    const hit = text ? client.cached(text) : [];
    if (hit) {
      await paintSome(host, hit, signal, 0, SHOWN_WEIGHT);
      if (!signal.aborted) mark(host, "done");
      return;
    }
    mark(host, "formatting");
    const placeholder = new AbortController();
    const timer = setTimeout(() => {
      mark(host, "plain");
      void paintChunks(host, plainChunks(text), AbortSignal.any([signal, placeholder.signal]), { from: 0, budget: SHOWN_WEIGHT });
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
    await paintSome(host, chunks, signal, 0, SHOWN_WEIGHT);
    if (!signal.aborted) mark(host, state);
  } catch {
    // Whatever went wrong, the person still gets the text.
    if (signal.aborted) return;
    host.textContent = text;
    mark(host, "fallback");
  }
}
