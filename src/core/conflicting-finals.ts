// Two different finals in one reply (issue 25, issue 36 §9): "FINAL_VAR(summary)" and then
// "FINAL(The minutes are about …)", as prose after the code or as final-only lines and blocks
// of the code itself. Written before the code they sit beside had run, neither is an answer the
// output supports: the code runs without them, neither is taken, and the model is told.
import type { FinalMarker } from "./finals.ts";
import { unquote, type CodeBlock } from "./parse.ts";

/** A top-level line that only submits: FINAL(x) or FINAL_VAR(x). */
const FINAL_LINE = /^FINAL(_VAR)?\((.*)\)\s*;?\s*$/;

/** How a final is shown to the model, and what makes two of them the same answer. */
interface Shown {
  key: string;
  shown: string;
}

const variable = (name: string): Shown => ({ key: `var:${name}`, shown: `FINAL_VAR(${name})` });
const literal = (value: string): Shown => ({ key: value.toLowerCase().replace(/\s+/g, " ").trim(), shown: value });

function ofLine(line: string): Shown | null {
  const m = FINAL_LINE.exec(line);
  if (!m) return null;
  const raw = m[2]!.trim();
  const value = unquote(raw);
  if (m[1]) return variable(value);
  // FINAL(summary) names the same thing as FINAL_VAR(summary).
  return raw === value && /^[A-Za-z_]\w*$/.test(value) ? variable(value) : literal(value);
}

function ofMarker(marker: FinalMarker): Shown {
  if (marker.kind === "value") return marker.bareName ? variable(marker.bareName) : literal(marker.value);
  return marker.kind === "variable" ? variable(marker.name) : { key: `var:${marker.name}=`, shown: `FINAL_VAR(${marker.name}) = …` };
}

/** A block that only submits: every line of it a final line. */
function isFinalOnly(block: CodeBlock): boolean {
  const lines = block.code.split("\n").filter((l) => l.trim());
  return lines.length > 0 && lines.every((l) => ofLine(l) !== null);
}

export interface FinalsVerdict {
  /** The blocks to run: without their final-only lines when the finals conflict. */
  runnable: CodeBlock[];
  /** The different answers, as written, when there are two or more (else empty). */
  conflicting: string[];
}

/** The reply's finals beside code — prose markers and the code's own final-only lines — and whether they conflict. */
export function judgeFinals(runnable: CodeBlock[], markers: readonly FinalMarker[]): FinalsVerdict {
  if (!runnable.length) return { runnable, conflicting: [] };
  // Finals in blocks that also compute are the code's own steps: blocks run in order and the first
  // final reached ends the run (the canonical harness's rule). Only a final written apart from the
  // code, as prose or as a block of its own, makes the reply's finals a set to judge.
  if (!markers.length && !runnable.some(isFinalOnly)) return { runnable, conflicting: [] };
  const all = [...runnable.flatMap((b) => b.code.split("\n").flatMap((l) => ofLine(l) ?? [])), ...markers.map(ofMarker)];
  const distinct = new Map(all.map((s) => [s.key, s.shown]));
  if (distinct.size < 2) return { runnable, conflicting: [] };
  const stripped = runnable
    .map((b) => ({
      ...b,
      code: b.code
        .split("\n")
        .filter((l) => !ofLine(l))
        .join("\n"),
    }))
    .filter((b) => b.code.trim());
  return { runnable: stripped, conflicting: [...distinct.values()] };
}
