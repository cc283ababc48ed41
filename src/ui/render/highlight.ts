// Code highlighting for rendered model text. Only the languages registered here are highlighted;
// every other fence language is a plain name. The lookup never touches an object's prototype:
// a fence written ```constructor or ```__proto__ used to find Object's own properties in a
// plain-object alias table and crash the renderer.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";

hljs.registerLanguage("python", python);
hljs.registerLanguage("json", json);
hljs.registerLanguage("bash", bash);

const LANGUAGES = new Map<string, string>([
  ["python", "python"],
  ["py", "python"],
  ["python3", "python"],
  ["repl", "python"],
  ["json", "json"],
  ["bash", "bash"],
  ["sh", "bash"],
  ["shell", "bash"],
]);

/** Past this, a code block is shown unhighlighted: highlighting cost grows with its size. */
const MAX_HIGHLIGHTED_CHARS = 64 * 1024;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** The first word of a fence's info string, as written (display only). */
export function fenceLanguage(info: string): string {
  return info.trim().split(/\s+/)[0] ?? "";
}

/** HTML for a code block's contents: highlighted when the language is known, escaped always. */
export function highlight(code: string, lang: string): string {
  const language = LANGUAGES.get(lang.toLowerCase());
  if (!language || code.length > MAX_HIGHLIGHTED_CHARS) return escapeHtml(code);
  try {
    return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    return escapeHtml(code);
  }
}
