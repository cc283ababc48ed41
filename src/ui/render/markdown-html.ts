// Model text → HTML that is safe by construction, cut into chunks the page can insert one task
// at a time. Runs in the render worker (and in unit tests); the main thread only sanitizes and
// inserts what comes out.
//
// Why markdown-it and these rules (measured, see bench/RESULTS.md "Rendering"):
// - marked needed 43 s for "_a" * 100000 (its emphasis scan is quadratic) and overflowed the
//   stack on 5,000 nested "> "; markdown-it stays linear on the same inputs and bounds nesting.
// - Raw HTML is never passed through (html: false): it shows as text. So nothing in an answer
//   can open an element that swallows the rest (<math><mtext><table><mglyph><style><!--), and
//   nothing can carry an attribute that fetches.
// - Links keep only http(s) and mailto targets; images are never fetched from anywhere but the
//   answer itself (data: URLs): a remote image becomes its alt text and its URL, as text.
// - A block nested past MAX_NESTING is one markdown-it would cut short (it skips the rest of a
//   too-deep range): such a block is shown as plain text, so nothing is ever silently dropped.
// - A block whose HTML is too big to sanitize and insert in one short task is split (lists, by
//   item) or shown as plain text.
import markdownit from "markdown-it";
import type { MarkdownIt, Token } from "markdown-it";

type Env = Record<string, unknown>;
import { escapeHtml, fenceLanguage, highlight } from "./highlight.ts";
import { splitPlain } from "./plain.ts";

export type RenderChunk =
  /**
   * Sanitizable HTML. `sourceChars`: how much of the text it came from (for sizes shown and
   * reserved); `tags`: its tag count, which is what sanitizing and inserting it costs.
   */
  | { kind: "html"; html: string; sourceChars: number; tags: number }
  /** Text to show as it is (escaped by being inserted as a text node). */
  | { kind: "plain"; text: string };

export const MAX_NESTING = 50;
/**
 * How big a chunk of HTML grows before the next one starts. What costs the page is mostly the
 * number of elements: DOMPurify took about 30 µs per element in Chromium on the loaded 2-core
 * machine (27 ms for a 24 KB chunk of 826 elements), so a chunk holds about 80 elements
 * (~3 ms) and a single block at most about 300 (~10 ms) before it is split or shown plain.
 */
const CHUNK = { bytes: 8 * 1024, tags: 160 };
const MAX_BLOCK = { bytes: 48 * 1024, tags: 600 };

const LINK = /^(?:https?:\/\/|mailto:)/i;
const INLINE_IMAGE = /^data:image\/(?:png|gif|jpeg|webp);/i;

function createMarkdown(): MarkdownIt {
  const md = markdownit("default", { html: false, linkify: false, typographer: false, maxNesting: MAX_NESTING });
  md.validateLink = (url) => LINK.test(url.trim()) || INLINE_IMAGE.test(url.trim());
  const rules = md.renderer.rules;

  rules.fence = (tokens, idx) => {
    const token = tokens[idx]!;
    const lang = fenceLanguage(token.info);
    const label = lang ? `<span class="code-lang">${escapeHtml(lang)}</span>` : "";
    return `<pre class="code">${label}<code class="hljs">${highlight(token.content, lang)}</code></pre>\n`;
  };
  rules.code_block = (tokens, idx) => `<pre class="code"><code class="hljs">${escapeHtml(tokens[idx]!.content)}</code></pre>\n`;

  rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    const src = attr(token, "src");
    const alt = self.renderInlineAsText(token.children ?? [], options, env);
    if (INLINE_IMAGE.test(src)) return `<img src="${escapeHtml(src)}" alt="${escapeHtml(alt)}">`;
    return (
      `<span class="blocked-image" title="Images from other places are never loaded">` +
      `<span aria-hidden="true">🖼</span> ${escapeHtml(alt || "image")} <code class="url">${escapeHtml(src)}</code></span>`
    );
  };

  const defaultLinkOpen = rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    if (!LINK.test(attr(token, "href"))) token.attrs = (token.attrs ?? []).filter(([name]) => name !== "href");
    else {
      token.attrSet("target", "_blank");
      token.attrSet("rel", "noopener noreferrer");
      token.attrSet("referrerpolicy", "no-referrer");
    }
    return defaultLinkOpen(tokens, idx, options, env, self);
  };

  // Table alignment as a class, not a style attribute (the sanitizer drops every style).
  md.core.ruler.push("align_as_class", (state) => {
    for (const token of state.tokens) {
      if (token.type !== "th_open" && token.type !== "td_open") continue;
      const align = /text-align:(left|center|right)/.exec(attr(token, "style"))?.[1];
      token.attrs = (token.attrs ?? []).filter(([name]) => name !== "style");
      if (align) token.attrJoin("class", `align-${align}`);
    }
  });
  return md;
}

let markdown: MarkdownIt | null = null;

/** An attribute as text (markdown-it types allow numbers). */
function attr(token: Token, name: string): string {
  return String(token.attrGet(name) ?? "");
}

/** Text as markdown-it reads it: the line structure the token maps refer to. */
function normalize(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(/\0/g, "\uFFFD");
}

/** Top-level blocks: an open token up to its matching close, or one self-contained token. */
function* topLevelBlocks(tokens: Token[]): Generator<Token[]> {
  let i = 0;
  while (i < tokens.length) {
    const start = i;
    if (tokens[i]!.nesting === 1) {
      const level = tokens[i]!.level;
      i++;
      while (i < tokens.length && !(tokens[i]!.nesting === -1 && tokens[i]!.level === level)) i++;
    }
    i++;
    yield tokens.slice(start, i);
  }
}

/** True when markdown-it reached its nesting limit inside this block and may have skipped text. */
function tooDeep(block: Token[]): boolean {
  return block.some((t) => t.nesting === 1 && t.level >= MAX_NESTING - 1);
}

/** Tags in a piece of HTML (each element is two, or one when void). */
function tagCount(html: string): number {
  let n = 0;
  for (let i = html.indexOf("<"); i !== -1; i = html.indexOf("<", i + 1)) n++;
  return n;
}

function within(html: string, limit: { bytes: number; tags: number }): boolean {
  return html.length <= limit.bytes && tagCount(html) <= limit.tags;
}

class SourceLines {
  private readonly starts: number[] = [0];
  constructor(private readonly text: string) {
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.starts.push(i + 1);
  }
  /** The text of lines [from, to). */
  slice(map: [number, number] | null): string {
    if (!map) return "";
    const start = this.starts[map[0]] ?? this.text.length;
    const end = this.starts[map[1]] ?? this.text.length;
    return this.text.slice(start, end);
  }
}

class ChunkBuilder {
  readonly chunks: RenderChunk[] = [];
  private html = "";
  private tags = 0;
  private chars = 0;

  addHtml(html: string, sourceChars: number): void {
    this.html += html;
    this.tags += tagCount(html);
    this.chars += sourceChars;
    if (this.html.length >= CHUNK.bytes || this.tags >= CHUNK.tags) this.flush();
  }

  addPlain(text: string): void {
    this.flush();
    for (const piece of splitPlain(text)) this.chunks.push({ kind: "plain", text: piece });
  }

  flush(): void {
    if (this.html) this.chunks.push({ kind: "html", html: this.html, sourceChars: this.chars, tags: this.tags });
    this.html = "";
    this.tags = 0;
    this.chars = 0;
  }
}

/** A shallow copy of a token, so a list's opening token can carry a different start number. */
function copyToken(token: Token): Token {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(token) as object) as Token, token);
  copy.attrs = token.attrs ? token.attrs.map(([k, v]) => [k, v] as [string, string]) : null;
  return copy;
}

/** Children of `block` at `level` from an `open` token to its `close`, e.g. a list's items. */
function childRanges(block: Token[], from: number, to: number, level: number, open: string, close: string): Token[][] {
  const parts: Token[][] = [];
  let start = -1;
  for (let i = from; i < to; i++) {
    const t = block[i]!;
    if (t.level !== level) continue;
    if (t.type === open) start = i;
    else if (t.type === close && start >= 0) {
      parts.push(block.slice(start, i + 1));
      start = -1;
    }
  }
  return parts;
}

/** A block that can be shown as several blocks of the same kind: a list by items, a table by rows. */
interface Splittable {
  parts: Token[][];
  /** The opening tokens of the piece whose first part is parts[index]. */
  head(index: number): Token[];
  tail: Token[];
}

function splittable(block: Token[]): Splittable | null {
  const open = block[0]!;
  const last = block.length - 1;
  if (open.type === "bullet_list_open" || open.type === "ordered_list_open") {
    const first = Number(open.attrGet("start") ?? 1) || 1;
    return {
      parts: childRanges(block, 1, last, open.level + 1, "list_item_open", "list_item_close"),
      head(index) {
        const head = copyToken(open);
        if (open.type === "ordered_list_open" && first + index !== 1) head.attrSet("start", String(first + index));
        return [head];
      },
      tail: [block[last]!],
    };
  }
  if (open.type === "table_open") {
    const bodyOpen = block.findIndex((t) => t.type === "tbody_open");
    const bodyClose = block.findIndex((t) => t.type === "tbody_close");
    if (bodyOpen < 0 || bodyClose < 0) return null;
    const table = copyToken(open);
    // Pieces of one table keep their columns aligned only with a fixed layout.
    table.attrJoin("class", "split");
    return {
      parts: childRanges(block, bodyOpen + 1, bodyClose, block[bodyOpen]!.level + 1, "tr_open", "tr_close"),
      head: () => [table, ...block.slice(1, bodyOpen + 1)],
      tail: block.slice(bodyClose),
    };
  }
  return null;
}

/** The text of some tokens, for a part with no source map. */
function textOf(tokens: Token[]): string {
  return tokens
    .map((t) => (t.type === "inline" ? t.content : ""))
    .filter(Boolean)
    .join("\n");
}

export class MarkdownRenderer {
  private readonly md = (markdown ??= createMarkdown());

  render(text: string): RenderChunk[] {
    const source = normalize(text);
    const env: Env = {};
    const tokens = this.md.parse(source, env);
    const lines = new SourceLines(source);
    const out = new ChunkBuilder();
    for (const block of topLevelBlocks(tokens)) this.renderBlock(block, env, lines, out);
    out.flush();
    return out.chunks;
  }

  private renderBlock(block: Token[], env: Env, lines: SourceLines, out: ChunkBuilder): void {
    const first = block[0]!;
    const source = lines.slice(first.map) || textOf(block);
    if (tooDeep(block)) return out.addPlain(source);
    const html = this.md.renderer.render(block, this.md.options, env);
    if (within(html, MAX_BLOCK)) return out.addHtml(html, source.length);
    if (first.type === "fence" || first.type === "code_block") {
      // Too many highlighted spans: the code unhighlighted (one element), or plain when huge.
      const plainCode = `<pre class="code"><code class="hljs">${escapeHtml(first.content)}</code></pre>\n`;
      return plainCode.length <= MAX_BLOCK.bytes ? out.addHtml(plainCode, source.length) : out.addPlain(first.content);
    }
    const pieces = splittable(block);
    if (pieces) return this.renderSplit(pieces, env, lines, out);
    out.addPlain(source);
  }

  /** A huge list or table as several consecutive ones, each a chunk of its own. */
  private renderSplit(pieces: Splittable, env: Env, lines: SourceLines, out: ChunkBuilder): void {
    let group: string[] = [];
    let groupStart = 0;
    let groupBytes = 0;
    let groupTags = 0;
    let groupChars = 0;
    const emit = () => {
      if (!group.length) return;
      out.flush();
      // The parts were rendered one by one to measure them; their HTML is reused, not redone.
      const head = this.md.renderer.render(pieces.head(groupStart), this.md.options, env);
      const tail = this.md.renderer.render(pieces.tail, this.md.options, env);
      out.addHtml(head + group.join("") + tail, groupChars);
      out.flush();
      group = [];
      groupBytes = groupTags = groupChars = 0;
    };
    pieces.parts.forEach((part, index) => {
      const html = this.md.renderer.render(part, this.md.options, env);
      const partSource = lines.slice(part[0]!.map) || textOf(part);
      const tags = tagCount(html);
      if (html.length > MAX_BLOCK.bytes || tags > MAX_BLOCK.tags) {
        emit();
        out.addPlain(partSource);
        return;
      }
      if (group.length && (groupBytes + html.length > CHUNK.bytes || groupTags + tags > CHUNK.tags)) emit();
      if (!group.length) groupStart = index;
      group.push(html);
      groupBytes += html.length;
      groupTags += tags;
      groupChars += partSource.length;
    });
    emit();
  }
}
