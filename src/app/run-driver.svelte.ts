// Runs one exchange of the open session to its end: the view follows the run's events, the
// exchange is saved as it grows, Stop aborts it, a comparison answer runs beside it, and the run's
// question about the fallback waits in the exchange for the person's choice. Apart from the
// controller, which decides what to ask (a question, a fresh try, a Continue).
import type { RankedSource } from "../core/evidence.ts";
import type { FallbackAsker } from "../core/fallback-cost.ts";
import type { ResumeRun } from "../core/resume.ts";
import type { RlmSession } from "../core/session.ts";
import type { HistoryEntry } from "../repl/types.ts";
import type { StoredDocument } from "../store/index.ts";
import { documentSource } from "./documents.ts";
import type { SessionLibrary } from "./library.svelte.ts";
import { applyEvent, applyResult, type Exchange } from "./run-view.ts";
import type { Settings } from "./settings.ts";
import type { SessionView } from "./session-view.svelte.ts";

/** How `drive` runs an exchange: a Continue, a fresh try's history, something to do first. */
export interface RunHow {
  resume?: ResumeRun;
  history?: HistoryEntry[];
  first?: () => Promise<void>;
}

export interface RunHost {
  view: SessionView;
  settings(): Settings;
  library(): SessionLibrary;
  /** An answer's sources, to prepare for the viewer while the person reads. */
  answered(sources: readonly RankedSource[]): void;
}

export class RunDriver {
  /** Runs waiting for the person's choice about the fallback, by exchange: the answer settles them. */
  private readonly choices = new Map<string, (read: boolean) => void>();
  private abort: AbortController | null = null;

  constructor(private readonly host: RunHost) {}

  /**
   * Runs one exchange to its end, saving it as it grows; Stop aborts it. `resume`: Continue;
   * `history`: a fresh try's (the answers before the question it retries); `first`: before the run.
   */
  async drive(session: RlmSession, exchange: Exchange, how: RunHow = {}): Promise<void> {
    const { view } = this.host;
    const saver = this.host.library().exchangeSaver(view.record!.id, () => $state.snapshot(exchange) as Exchange);
    this.abort = new AbortController();
    view.running = true;
    view.stopping = false;
    try {
      await how.first?.();
      await saver.now(); // a reload right away still finds the question (marked as cut off)
      await this.run(session, exchange, this.abort.signal, saver.soon, how);
    } finally {
      await saver.now(); // the final state, whatever happened: a failed start stays "Failed"
      view.running = false;
      view.stopping = false;
      this.abort = null;
    }
  }

  stop(): void {
    if (!this.abort) return;
    this.host.view.stopping = true;
    this.abort.abort();
  }

  /** The person's answer to a run's question about the fallback (read the document, or stop here). */
  answerFallback(exchangeId: string, read: boolean): void {
    this.choices.get(exchangeId)?.(read);
  }

  private async run(session: RlmSession, exchange: Exchange, signal: AbortSignal, changed: () => void, how: RunHow): Promise<void> {
    const { resume, history } = how;
    const question = exchange.question;
    const compare =
      this.host.settings().compare && !resume ? this.runCompare(session, exchange, question, signal, changed) : Promise.resolve();
    const result = await session.ask(question, {
      signal,
      ...(resume ? { resume } : {}),
      ...(history ? { history } : {}),
      confirmFallback: this.fallbackAsker(exchange, changed),
      onEvent: (event) => {
        applyEvent(exchange, event);
        changed();
      },
    });
    applyResult(exchange, result);
    this.host.answered(result.sources ?? []);
    await compare;
  }

  /**
   * How a run asks the person about the fallback: the question goes into the running exchange
   * (the page shows it with its two buttons) and the run waits for `answerFallback`, or Stop.
   */
  private fallbackAsker(exchange: Exchange, changed: () => void): FallbackAsker {
    return (question, signal) =>
      new Promise<boolean>((resolve) => {
        const settle = (read: boolean) => {
          signal.removeEventListener("abort", stopped);
          this.choices.delete(exchange.id);
          delete exchange.fallbackQuestion;
          changed();
          resolve(read);
        };
        const stopped = () => settle(false);
        signal.addEventListener("abort", stopped, { once: true });
        this.choices.set(exchange.id, settle);
        exchange.fallbackQuestion = question;
        changed();
      });
  }

  /** The answer from the documents' text alone, beside the run, when the settings ask to compare. */
  private async runCompare(
    session: RlmSession,
    exchange: Exchange,
    question: string,
    signal: AbortSignal,
    changed: () => void,
  ): Promise<void> {
    exchange.compare = { status: "running", answer: "" };
    const view = exchange.compare;
    // The page's documents are always Blobs (only the CLI gives files by path). They are read
    // from their bytes, not from Python, which the run beside this one is using.
    const stored: StoredDocument[] = session.documents.flatMap((d) => ("data" in d ? [{ sessionId: "", path: d.path, blob: d.data }] : []));
    try {
      const direct = await session.directAnswer(question, documentSource(stored, this.host.view.record?.documents ?? []), {
        signal,
        onToken: (t) => {
          view.answer += t;
          changed();
        },
      });
      const { answer, durationMs, usage, shownChars, totalChars } = direct;
      Object.assign(view, { status: "done", answer, durationMs, usage, shownChars, totalChars });
    } catch (err) {
      view.status = "failed";
      view.error = signal.aborted ? "Stopped." : err instanceof Error ? err.message : String(err);
    }
    changed();
  }
}
