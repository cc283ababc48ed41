// What `rlm` is doing, as one line on a terminal's stderr rewritten in place: the model loading,
// Python starting, which turn of how many, the sub-calls, and the model writing with its speed.
// The README's first --model-file example ran 598 s with nothing on stderr (issue 34 #9). Shown
// only when stderr is a terminal and neither --quiet nor --verbose (its own log) is given; a pipe
// or a script gets nothing here.
import type { RlmEvent } from "../core/types.ts";
import { groupDigits } from "../core/numbers.ts";

/** One line of a terminal that each update replaces. */
export interface StatusLine {
  show(text: string): void;
  /** Erases the line, before the answer or a message is printed. */
  clear(): void;
}

/** A status line on a terminal: carriage return and erase-line, cut to the terminal's width. */
export function terminalLine(write: (s: string) => void, columns: () => number | undefined): StatusLine {
  let shown = false;
  return {
    show(text) {
      const width = Math.max(20, (columns() || 80) - 1); // a pseudo-terminal may report 0 columns
      write(`\r\x1b[K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
      shown = true;
    },
    clear() {
      if (shown) write("\r\x1b[K");
      shown = false;
    },
  };
}

const RENDER_EVERY_MS = 150;

/** Follows a run's events and says on the status line where it is. */
export class RunProgress {
  private turn = 0;
  private direct = false;
  private subcalls = 0;
  private running = 0;
  private tokens = 0;
  private firstTokenAt: number | null = null;
  private lastRender = 0;
  private doing = "";

  constructor(
    private readonly line: StatusLine,
    private readonly maxTurns: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A step before the run: "loading the model…", "starting Python…". */
  stage(text: string): void {
    this.line.show(`rlm: ${text}`);
  }

  readonly event = (e: RlmEvent): void => {
    if (e.depth > 0) {
      if (e.type === "turn-started") this.render(true);
      return;
    }
    switch (e.type) {
      case "preparing":
        this.doing = e.step === "model" ? "waiting for the model" : e.step === "python" ? "starting Python" : "loading the documents";
        break;
      case "run-mode":
        this.direct = e.mode === "direct";
        break;
      case "turn-started":
        this.turn = e.turn + 1;
        this.tokens = 0;
        this.firstTokenAt = null;
        this.doing = "reading the prompt";
        break;
      case "token":
        this.tokens += 1;
        this.firstTokenAt ??= this.now();
        this.doing = `writing · ${groupDigits(this.tokens)} tokens${this.speed()}`;
        return this.render(false);
      case "turn-finished": {
        const seconds = e.durationMs / 1000;
        const rate = seconds > 0 ? ` at ${(e.usage.completionTokens / seconds).toFixed(1)} tokens/s` : "";
        this.doing = `wrote ${groupDigits(e.usage.completionTokens)} tokens${rate}`;
        break;
      }
      case "cell-started":
        this.doing = `running code (cell ${e.cell + 1})`;
        break;
      case "subcall-started":
        this.subcalls += 1;
        this.running += 1;
        break;
      case "subcall-finished":
        this.running = Math.max(0, this.running - 1);
        break;
      default:
        return;
    }
    this.render(true);
  };

  /** A writer that erases the line before each message, so a message never shares it. */
  around(write: (s: string) => void): (s: string) => void {
    return (s) => {
      this.line.clear();
      write(s);
    };
  }

  /** Erases the line: the answer or a message follows. */
  done(): void {
    this.line.clear();
  }

  private speed(): string {
    const seconds = this.firstTokenAt === null ? 0 : (this.now() - this.firstTokenAt) / 1000;
    return seconds >= 1 ? ` · ${(this.tokens / seconds).toFixed(1)} tokens/s` : "";
  }

  private render(always: boolean): void {
    const at = this.now();
    if (!always && at - this.lastRender < RENDER_EVERY_MS) return;
    this.lastRender = at;
    const where = this.direct ? "one direct call" : this.turn ? `turn ${this.turn}/${this.maxTurns}` : "";
    const calls = this.subcalls
      ? `${groupDigits(this.subcalls)} sub-call${this.subcalls === 1 ? "" : "s"}${this.running ? ` (${this.running} running)` : ""}`
      : "";
    this.line.show(`rlm: ${[where, this.doing, calls].filter(Boolean).join(" · ")}`);
  }
}
