// Suggested first questions for the loaded documents, derived locally and cheaply from what the
// file list already holds (kind, extension, size, the first lines): no model call, so they are
// there the moment a document is, even before any model is chosen.
import { formatOf } from "../ingest/formats/index.ts";
import { CODE_EXT } from "../ingest/formats/text.ts";
import type { DocumentMeta } from "../store/index.ts";
import { collectionOf, commonFolderOf, entryPointOf, leadDocument, readmeOf, titleFor } from "./lead-document.ts";
import { visibleName } from "./visible-text.ts";

/** At most this many suggestions: a row of buttons, not a menu. */
export const MAX_SUGGESTIONS = 4;

/** Documents this long are what the RLM is for: a question that needs the whole text. */
const LONG_CHARS = 200_000;

/** Section titles among the first lines: Markdown headings, or short numbered/capitalised lines. */
export function headingsOf(preview: string): string[] {
  const found: string[] = [];
  for (const raw of preview.split("\n")) {
    const line = raw.trim();
    const md = /^#{1,4}\s+(.{3,80})$/.exec(line);
    const numbered = /^(?:\d{1,2}\.|chapter\s+\w+[.:]?)\s+([A-Z].{2,70})$/i.exec(line);
    const caps = line.length >= 4 && line.length <= 60 && /^[A-Z][A-Z0-9 ,'&:-]+$/.test(line) ? line : null;
    const title = md?.[1] ?? numbered?.[1] ?? caps;
    if (title)
      found.push(
        visibleName(title)
          .replace(/[*_`]+/g, "")
          .replace(/[:.]+$/, "")
          .trim(),
      );
  }
  return [...new Set(found)].filter(Boolean);
}

/** What the document's format suggests asking (src/ingest/formats: code, tables, logs for text). */
function kindQuestions(doc: DocumentMeta): string[] {
  // Shown on a button: the name's bidi overrides and invisible characters are made visible.
  return formatOf(doc.kind).questions?.({ name: visibleName(doc.name), preview: doc.preview }) ?? [];
}

/** Questions worth a first click for these documents, most useful first. */
export function suggestQuestions(documents: readonly DocumentMeta[]): string[] {
  // A repository is read from its README or entry point, not from whichever file came first.
  const lead = leadDocument(documents);
  if (!lead) return [];
  const out: string[] = [];
  const collection = collectionOf(documents);
  const entry = entryPointOf(documents);
  const repository = !!collection && (!!readmeOf(documents) || !!entry || documents.some((d) => CODE_EXT.test(d.name)));
  if (repository) {
    out.push(`What does ${visibleName(titleFor(documents))} do, and how is it organised?`);
    if (entry) out.push(`What happens when ${visibleName(entry.path.slice(commonFolderOf(documents).length))} runs?`);
  } else if (documents.length > 1) {
    out.push(`What do these ${documents.length} documents have in common, and where do they differ?`);
  } else {
    // Shown on a button: a name's bidi overrides and invisible characters are made visible.
    out.push(`Summarise ${visibleName(lead.name)} in five bullet points.`);
  }
  out.push(...kindQuestions(lead));
  // The first heading is usually the title; a later one names a part worth asking about.
  const headings = headingsOf(lead.preview);
  const section = headings[1] ?? headings[0];
  if (section && documents.length === 1) out.push(`What does the section "${section}" say?`);
  else if (section && headings.length > 1) out.push(`What does ${visibleName(lead.name)} say under "${section}"?`);
  const total = documents.reduce((n, d) => n + d.chars, 0);
  if (total >= LONG_CHARS && !collection) out.push("List every date mentioned, with what happened on it.");
  if (repository) out.push("Which parts of the code look most error-prone, and why?");
  out.push("Which names (people, places, organisations) come up most, and in what context?");
  return [...new Set(out)].slice(0, MAX_SUGGESTIONS);
}
