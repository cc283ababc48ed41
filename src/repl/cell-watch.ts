// What watches one running cell from the host: its time limit (which stands still while Python
// waits for a sub-call), the grace after an interrupt before the worker is killed, Stop asked
// again until it takes, and the worker dying under it. Plus the words for each way a cell ends.
import { CellClock } from "./cell-clock.ts";
import { SANDBOX_CRASHED } from "./messages.ts";
import type { CellResult } from "./protocol.ts";

const INTERRUPT_RESEND_MS = 100;

export const WEDGED = "after the cell it stopped answering: something the cell scheduled kept it busy, or it shut itself down";
export const WEDGED_BEFORE =
  "before this cell could run, the Python worker had stopped answering: something an earlier cell scheduled kept it busy. The cell did not run";

/** The limit counts Python's own time only (cell-clock.ts): say so, or a slow model looks like slow code. */
export function limitText(timeoutMs: number | undefined, what: string): string {
  return `the cell ran past its ${Math.round((timeoutMs ?? 0) / 1000)} s time limit (Python's own time; waiting for sub-calls does not count) ${what}`;
}

/** The cause of a broken runtime, in words a person (and the model) can act on. */
export function crashCause(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  if (/maximum call stack|too much recursion|stack overflow/i.test(text)) {
    return "the code recursed deeper than the browser's stack allows (recursion too deep; do not raise sys.setrecursionlimit)";
  }
  if (/exit(ed)? with code|ExitStatus|Program terminated|exit\(/i.test(text))
    return `the code ended the Python process (${text.slice(0, 120)})`;
  if (text.includes(SANDBOX_CRASHED)) return SANDBOX_CRASHED;
  if (/out of memory|memory\.grow|allocation failed|Array buffer allocation/i.test(text)) return "the Python worker ran out of memory";
  return `the Python worker crashed (${text.slice(0, 200)})`;
}

/**
 * Python cannot tell who raised a KeyboardInterrupt; the host knows whether it interrupted
 * (Stop, or the time limit) or the code raised it itself, and says which.
 */
export function explainInterrupt(
  result: CellResult,
  how: { timedOut: boolean; stopped: boolean; timeoutMs: number | undefined },
): CellResult {
  if (result.error !== "KeyboardInterrupt") return result;
  const cause = how.timedOut
    ? `TimeoutError: ${limitText(how.timeoutMs, "and was stopped")}. Work on smaller pieces.`
    : how.stopped
      ? "KeyboardInterrupt: the person pressed Stop. Variables from earlier cells are kept."
      : "KeyboardInterrupt: the code raised KeyboardInterrupt itself; nothing stopped it from outside.";
  const stderr = result.stderr.replace(/^KeyboardInterrupt: the cell was interrupted\..*\n?/m, "");
  return { ...result, stderr: `${cause}\n${stderr}`, interrupted: how.timedOut || how.stopped };
}

/** What a cell returns when the worker was replaced under it: everything in Python is gone. */
export function restartedResult(why: string): CellResult {
  return {
    stdout: "",
    stderr:
      `WorkerRestarted: ${why}, so the REPL was restarted. All variables were lost; ` +
      "`context` was loaded again. Recreate what you need.\n",
    final_answer: null,
    locals: {},
    execution_time: 0,
    error: "WorkerRestarted",
    interrupted: true,
  };
}

/** What a cell returns when the worker's result did not pass the checks. */
export const MALFORMED_RESULT: CellResult = {
  stdout: "",
  stderr: "ProtocolError: the REPL returned a malformed result, which was dropped.\n",
  final_answer: null,
  locals: {},
  execution_time: 0,
  error: "ProtocolError",
  interrupted: false,
};

export class CellWatch {
  /** Resolves with "kill" once an interrupt's grace has run out. */
  readonly mustKill: Promise<"kill">;
  /** Resolves when the worker died under the cell (it exited, or its thread crashed): no reply will come. */
  readonly gone: Promise<{ gone: string }>;
  readonly clock: CellClock;
  private killTimer: ReturnType<typeof setTimeout> | undefined;
  private resend: ReturnType<typeof setInterval> | undefined;
  private kill!: () => void;
  private lose!: (reason: string) => void;

  constructor(timeoutMs: number | undefined, onTimeout: () => void) {
    this.mustKill = new Promise<"kill">((resolve) => (this.kill = () => resolve("kill")));
    this.gone = new Promise<{ gone: string }>((resolve) => (this.lose = (reason) => resolve({ gone: crashCause(reason) })));
    this.clock = new CellClock(timeoutMs, onTimeout);
  }

  get timedOut(): boolean {
    return this.clock.timedOut;
  }

  /** Kills the worker after `graceMs` unless the cell ends first (the first arming counts). */
  armKill(graceMs: number): void {
    if (this.killTimer === undefined) this.killTimer = setTimeout(this.kill, graceMs);
  }

  /** The worker ended while the cell ran. */
  lost(reason: string): void {
    this.lose(reason);
  }

  /**
   * Raises the interrupt again every INTERRUPT_RESEND_MS until the cell ends (unless `hold()`):
   * once in a few dozen interrupts sent as a cell began, Pyodide consumed the request without
   * raising it, and the loop then ran until the worker was killed, its variables lost. Only while
   * a cell runs: outside one, a request left in the buffer would stop the next cell as it began.
   */
  keepInterrupting(raise: () => void, hold: () => boolean): void {
    this.resend ??= setInterval(() => {
      if (!hold()) raise();
    }, INTERRUPT_RESEND_MS);
  }

  dispose(): void {
    this.clock.dispose();
    clearTimeout(this.killTimer);
    clearInterval(this.resend);
  }
}
