// Turning REPL results into the user message the root model reads next. Output is cut to the
// per-cell budget keeping both ends, because the end of a traceback or a loop's last lines
// matter as much as the start.
import type { CellResult } from "../repl/protocol.ts";
import { groupDigits } from "./numbers.ts";

export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (n: number) => `\n[… ${groupDigits(n)} characters cut …]\n`;
  const room = Math.max(0, max - marker(text.length).length);
  const head = Math.ceil(room * 0.6);
  const tail = room - head;
  return text.slice(0, head) + marker(text.length - head - tail) + (tail > 0 ? text.slice(-tail) : "");
}

export function formatCell(result: CellResult, maxChars: number): string {
  const out = result.stdout.replace(/\s+$/, "");
  const err = result.stderr.replace(/\s+$/, "");
  const body = [out, err].filter(Boolean).join("\n");
  if (!body) return "(no output; use print() to see values)";
  return clipMiddle(body, maxChars);
}

export function variablesLine(result: CellResult | undefined): string {
  const names = Object.keys(result?.locals ?? {});
  if (!names.length) return "";
  const shown = names.slice(0, 30).join(", ");
  return `Variables: ${shown}${names.length > 30 ? `, … (${names.length} in all)` : ""}`;
}

export function formatTurnOutput(results: CellResult[], maxCharsPerCell: number, notes: string[], footer: string): string {
  const parts: string[] = [];
  results.forEach((r, i) => {
    const header = results.length > 1 ? `REPL output (block ${i + 1}):` : "REPL output:";
    parts.push(`${header}\n${formatCell(r, maxCharsPerCell)}`);
  });
  const vars = variablesLine(results[results.length - 1]);
  if (vars) parts.push(vars);
  parts.push(...notes, footer);
  return parts.filter(Boolean).join("\n\n");
}
