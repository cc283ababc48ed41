// The answer as a Markdown file, the page's own export (the trajectory and the fine-tuning
// dataset are src/core/trajectory.ts's, shared with the command line), and saving a file.
import { REASON_TEXT, sourceLabel, type RankedSource } from "../core/evidence.ts";
import { inertMarkdown } from "./inert-markdown.ts";
import type { Exchange } from "./run-view.ts";
import { visibleName } from "./visible-text.ts";

/** Document text inside Markdown: characters that would turn into formatting are escaped. */
const escapeMarkdown = (s: string) => s.replace(/([\\`*_{}[\]<>#|~])/g, "\\$1");

/** One source as a numbered item: where it is, why it ranks, and the passage quoted (focus in bold). */
function sourceMarkdown(source: RankedSource, n: number): string[] {
  const why = source.reasons.map((r) => REASON_TEXT[r]).join("; ");
  const lines = [`${n}. ${escapeMarkdown(visibleName(sourceLabel(source)))}${why ? ` (${why})` : ""}`];
  const p = source.passage;
  if (p) {
    // Bold line by line: emphasis cannot span lines, nor start or end with a space.
    const bold = escapeMarkdown(p.text)
      .split("\n")
      .map((l) => (l.trim() ? l.replace(/^(\s*)(.*?)(\s*)$/, "$1**$2**$3") : l))
      .join("\n");
    const quoted = `${escapeMarkdown(p.before)}${bold}${escapeMarkdown(p.after)}`;
    for (const line of quoted.split("\n")) lines.push(`   > ${line}`);
  }
  return lines;
}

/**
 * The answer as a Markdown file. It loads nothing when opened anywhere (remote images become
 * their alt text and URL as text, raw HTML shows as text: see inert-markdown.ts), and names are
 * shown as they are (see visible-text.ts).
 */
export function answerMarkdown(exchange: Exchange, documents: string[]): string {
  const title = inertMarkdown(visibleName(exchange.question.trim().replace(/\s+/g, " ")));
  const lines = [`# ${title}`, "", inertMarkdown(exchange.answer.trim()) || "_No answer._", ""];
  if (exchange.sources?.length) {
    lines.push("## Sources", "", ...exchange.sources.flatMap((s, i) => sourceMarkdown(s, i + 1)), "");
  }
  const meta = [
    `- Status: ${exchange.status}`,
    `- Asked: ${new Date(exchange.startedAt).toISOString()}`,
    documents.length ? `- Documents: ${documents.map((d) => inertMarkdown(visibleName(d))).join(", ")}` : "",
    exchange.endpoint ? `- Sent to: ${inertMarkdown(visibleName(`${exchange.endpoint.model} @ ${exchange.endpoint.origin}`))}` : "",
    exchange.usage ? `- Sub-calls: ${exchange.usage.subcalls}; root turns: ${exchange.usage.rootCalls}` : "",
  ].filter(Boolean);
  lines.push("---", "", ...meta, "");
  if (exchange.compare?.status === "done") {
    lines.push("## Direct answer (no RLM, document cut to the window)", "", inertMarkdown(exchange.compare.answer.trim()), "");
  }
  return lines.join("\n");
}

/** A download's file name: letters and digits only, so no control or bidi character survives. */
export function safeFileName(text: string, ext: string): string {
  const base =
    text
      .replace(/[^\p{L}\p{N}]+/gu, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60)
      .toLowerCase() || "rlm";
  return `${base}.${ext}`;
}

export function download(name: string, content: string, type: string): void {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
