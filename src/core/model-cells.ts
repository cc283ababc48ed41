// Runs the model's cells for the loop: each one recorded under its turn, its sub-calls routed to
// it, its time counted without the sub-calls', Stop honoured after a grace. Also remembers what
// the cells leave behind that the next turn needs: the model's variables, and whether the
// helpers know the sub-model's limits yet.
import type { CellResult } from "../repl/protocol.ts";
import type { Repl } from "../repl/types.ts";
import type { Budgets } from "./budgets.ts";
import { blockRecord } from "./records.ts";
import { configureHelpers, helperLimits } from "./repl-probes.ts";
import { CALLS_LIMITED_HELPER } from "./repl-vocabulary.ts";
import { stoppedAfterGrace, type StopSignal } from "./stop.ts";
import type { Emit, SharedRunState, SubcallRouter } from "./subcalls.ts";
import type { IterationRecord, RlmConfig, SubcallRecord } from "./types.ts";

export interface CellsHost {
  repl: Repl;
  config: RlmConfig;
  budgets: Budgets;
  router: SubcallRouter;
  shared: SharedRunState;
  stop: StopSignal;
  emit: Emit;
}

export class ModelCells {
  /** The model's variables after its last cell. */
  variables: string[] = [];
  private helpersConfigured = false;

  constructor(private readonly host: CellsHost) {}

  /** One cell of `turn`, added to its record. */
  async run(code: string, turn: number, record: IterationRecord): Promise<CellResult> {
    await this.configureHelpersFor(code);
    const records: SubcallRecord[] = [];
    const result = await this.runCell(code, turn, record.code_blocks.length, records);
    record.code_blocks.push(blockRecord(code, result, records));
    this.variables = Object.keys(result.locals);
    // A rebuilt worker forgets the helpers' limits.
    if (result.error === "WorkerRestarted") this.helpersConfigured = false;
    return result;
  }

  /** Messages the REPL dropped as malformed during the turn: kept on its record and announced. */
  attachDroppedMessages(record: IterationRecord): void {
    const dropped = this.host.repl.takeProtocolErrors?.() ?? [];
    if (!dropped.length) return;
    record.dropped_messages = dropped;
    for (const message of dropped) this.host.emit({ type: "notice", message });
  }

  /**
   * search() and map_query() learn the sub-model's limits before the first cell that calls them
   * (a run that never does costs no extra cell). If it fails the helpers keep their 4K-sized
   * defaults: the cell itself will say what is wrong with Python.
   */
  private async configureHelpersFor(code: string): Promise<void> {
    if (this.helpersConfigured || !CALLS_LIMITED_HELPER.test(code)) return;
    this.helpersConfigured = true;
    const { repl, budgets, config } = this.host;
    await configureHelpers(repl, helperLimits(budgets, config.maxSubcalls)).catch(() => undefined);
  }

  private async runCell(code: string, turn: number, cell: number, records: SubcallRecord[]): Promise<CellResult> {
    const { router, emit, repl, config, stop, shared } = this.host;
    router.current = { turn, cell, records };
    emit({ type: "cell-started", turn, cell, code });
    const started = Date.now();
    try {
      const running = repl.runCell(code, { timeoutMs: config.cellTimeoutMs });
      const result = await Promise.race([running, stoppedAfterGrace(stop.signal)]);
      emit({ type: "cell-finished", turn, cell, result });
      return result;
    } finally {
      const inSubcalls = records.reduce((s, r) => s + r.execution_time * 1000, 0);
      shared.usage.addTime("replMs", Date.now() - started - inSubcalls);
      router.current = null;
    }
  }
}
