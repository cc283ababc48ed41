// What `rlm` is doing, as one line on a terminal's stderr rewritten in place: the model loading,
// Python starting, which turn of how many, the sub-calls, and the model writing with its speed.
// The README's first --model-file example ran 598 s with nothing on stderr (issue 34 #9). Shown
// only when stderr is a terminal and neither --quiet nor --verbose (its own log) is given; a pipe
// or a script gets nothing here.
import type { RlmEvent } from "../core/types.ts";
import { groupDigits } from "../core/numbers.ts";

/** "312 MB": a model file's size as a download page gives it. */
function megabytes(bytes: number): string {
  return `${groupDigits(Math.round(bytes / 1e6))} MB`;
}

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
  private turnStartedAt = 0;
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

  /** The model file loading: "loading the model · 120 MB of 480 MB". */
  readonly loading = (p: { fraction: number; bytes: number }): void => {
    const at = this.now();
    if (p.fraction < 1 && at - this.lastRender < RENDER_EVERY_MS) return;
    this.lastRender = at;
    this.line.show(`rlm: loading the model · ${megabytes(p.bytes * Math.min(1, p.fraction))} of ${megabytes(p.bytes)}`);
  };

  /**
   * The root reading its prompt, batch by batch: on a processor a long prompt takes minutes
   * before the first token, and "reading 1,536 of 6,210 prompt tokens" says why. Sub-calls read
   * theirs side by side; their count is on the line already.
   */
  readonly prefill = (p: { role: string; readTokens: number; promptTokens: number }): void => {
    if (p.role !== "root" || this.tokens > 0) return;
    this.doing = `reading ${groupDigits(p.readTokens)} of ${groupDigits(p.promptTokens)} prompt tokens`;
    this.render(true);
  };

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
        this.turnStartedAt = this.now();
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
        // Time to the first token is the prompt's reading: on a processor, most of the wait.
        const first = this.firstTokenAt === null ? "" : ` · first after ${((this.firstTokenAt - this.turnStartedAt) / 1000).toFixed(1)} s`;
        this.doing = `wrote ${groupDigits(e.usage.completionTokens)} tokens${rate}${first}`;
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
