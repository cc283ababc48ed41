// A conversation about one set of documents: questions share a REPL, so variables survive from
// one question to the next and the model sees what was asked and answered before.
import type { ChatEngine } from "../engines/types.ts";
import type { HistoryEntry, Repl } from "../repl/types.ts";
import { runRlm, type ChildReplFactory } from "./loop.ts";
import { runMetadata, toJsonl } from "./trajectory.ts";
import type { IterationRecord, RlmConfig, RlmEventListener, RlmResult, RunMetadataRecord } from "./types.ts";

export interface RlmSessionDeps {
  repl: Repl;
  rootEngine: ChatEngine;
  subEngine?: ChatEngine;
  createChildRepl?: ChildReplFactory;
}

export interface AskOptions {
  signal?: AbortSignal;
  onEvent?: RlmEventListener;
}

export class RlmSession {
  readonly history: HistoryEntry[] = [];
  readonly iterations: IterationRecord[] = [];
  private running = false;

  constructor(
    private readonly deps: RlmSessionDeps,
    public config: RlmConfig,
  ) {}

  get busy(): boolean {
    return this.running;
  }

  async ask(question: string, options: AskOptions = {}): Promise<RlmResult> {
    if (this.running) throw new Error("A question is already running in this session. Wait for it or press Stop.");
    this.running = true;
    try {
      await this.deps.repl.beginQuestion(this.history);
      const result = await runRlm({
        question,
        repl: this.deps.repl,
        rootEngine: this.deps.rootEngine,
        ...(this.deps.subEngine ? { subEngine: this.deps.subEngine } : {}),
        config: this.config,
        previous: this.history,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
        ...(this.deps.createChildRepl ? { createChildRepl: this.deps.createChildRepl } : {}),
      });
      const index = this.history.length;
      for (const it of result.iterations) this.iterations.push({ ...it, question_index: index });
      if (result.answer) this.history.push({ question, answer: result.answer });
      return result;
    } finally {
      this.running = false;
    }
  }

  metadata(): RunMetadataRecord {
    return runMetadata(this.deps.rootEngine, this.deps.subEngine ?? this.deps.rootEngine, this.config);
  }

  /** Every question's iterations, in the official visualizer's JSONL format. */
  exportJsonl(): string {
    return toJsonl(this.metadata(), this.iterations);
  }
}
