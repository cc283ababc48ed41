// Live steps on stderr for --verbose: what the model wrote, what ran, what came back; and at
// the end, the passages the answer came from.
import { REASON_TEXT, sourceLabel, type RankedSource } from "../core/evidence.ts";
import type { RlmEvent } from "../core/types.ts";
import { groupDigits } from "../core/numbers.ts";

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… [${s.length - n} more chars]` : s);
const indent = (s: string, pad: string) => s.replace(/^/gm, pad);

export function verbosePrinter(write: (line: string) => void): (event: RlmEvent) => void {
  let streaming = false;
  return (e) => {
    const pad = "  ".repeat(e.depth);
    const tag = e.depth ? `[child d${e.depth}] ` : "";
    if (e.type !== "token" && streaming) {
      write("\n");
      streaming = false;
    }
    switch (e.type) {
      case "run-mode":
        write(`${pad}${tag}mode: ${e.mode} (${e.reason})\n`);
        break;
      case "run-started":
        write(`${pad}${tag}question: ${clip(e.question, 200)} (context: ${groupDigits(e.contextChars)} chars)\n`);
        if (e.profile) write(`${pad}${tag}prompt profile: ${e.profile.name} (${e.profile.reason})\n`);
        break;
      case "turn-started":
        write(`${pad}${tag}── turn ${e.turn + 1} ──\n`);
        break;
      case "token":
        if (e.depth === 0) {
          write(e.text);
          streaming = true;
        }
        break;
      case "turn-finished":
        if (e.depth > 0) write(indent(clip(e.response, 600), pad) + "\n");
        write(`${pad}${tag}(${e.usage.promptTokens} prompt + ${e.usage.completionTokens} completion tokens, ${e.durationMs} ms)\n`);
        break;
      case "cell-finished": {
        const out = [e.result.stdout, e.result.stderr].filter(Boolean).join("\n").trimEnd();
        write(`${pad}${tag}▶ cell ${e.cell + 1} (${(e.result.execution_time * 1000).toFixed(0)} ms)${out ? ":" : ": no output"}\n`);
        if (out) write(indent(clip(out, 1200), `${pad}  │ `) + "\n");
        break;
      }
      case "subcall-started":
        write(`${pad}${tag}  ↳ ${e.kind}_query ${e.id} → ${e.model}: ${clip(e.prompt.replace(/\s+/g, " "), 120)}\n`);
        break;
      case "subcall-finished":
        write(
          `${pad}${tag}  ↲ ${e.id} ${e.error ? `failed: ${e.error}` : clip(e.response.replace(/\s+/g, " "), 160)} (${e.durationMs} ms)\n`,
        );
        break;
      case "history-compacted":
        write(`${pad}${tag}(history compacted: ${e.droppedTurns} old turns dropped to fit the window)\n`);
        break;
      case "notice":
        write(`${pad}${tag}${e.message}\n`);
        break;
      default:
        break;
    }
  };
}

/** The answer's sources, best first, each with why it ranks there and the passage quoted. */
export function printSources(write: (line: string) => void, sources: readonly RankedSource[]): void {
  if (!sources.length) {
    write("sources: none recorded (the code read the documents in ways Python cannot see)\n");
    return;
  }
  write("sources (best first):\n");
  sources.forEach((s, i) => {
    const why = s.reasons.map((r) => REASON_TEXT[r]).join("; ");
    write(`  ${i + 1}. ${sourceLabel(s)} [characters ${groupDigits(s.start)}–${groupDigits(s.end)}]${why ? ` — ${why}` : ""}\n`);
    const p = s.passage;
    if (p) write(indent(clip(`${p.before}[${p.text}]${p.after}`, 600), "     │ ") + "\n");
  });
}
