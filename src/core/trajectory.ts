// What a run exports, owned once for the page, the command line and the benchmark: trajectories
// as JSONL in the official rlm visualizer's schema (rlm-harness.md §4: a metadata line that
// names no key or credential, then one line per iteration, numbered by question, the answer's
// sources on each question's last line) and answered runs as a chat fine-tuning dataset.
// Records are snapshots, never live aliases.
import type { ChatEngine } from "../engines/types.ts";
import type { RankedSource } from "./evidence.ts";
import type { IterationRecord, RlmConfig, RunMetadataRecord } from "./types.ts";
import { openAiSampling } from "./sampling.ts";

type EngineLabel = Pick<ChatEngine, "model" | "backend" | "contextWindow">;

export function runMetadata(root: EngineLabel, sub: EngineLabel, config: RlmConfig): RunMetadataRecord {
  return {
    type: "metadata",
    timestamp: new Date().toISOString(),
    root_model: root.model,
    max_depth: config.maxDepth,
    max_iterations: config.maxIterations,
    backend: root.backend,
    // Never keys or URLs with credentials: only what describes the run.
    backend_kwargs: {
      model_name: root.model,
      context_window: root.contextWindow,
      ...openAiSampling(config.sampling),
    },
    environment_type: "pyodide",
    environment_kwargs: {
      cell_timeout_s: config.cellTimeoutMs / 1000,
      max_subcalls: config.maxSubcalls,
    },
    other_backends: sub === root || sub.model === root.model ? null : [sub.model],
  };
}

export function toJsonl(metadata: RunMetadataRecord, iterations: readonly IterationRecord[]): string {
  return [metadata, ...iterations].map((record) => JSON.stringify(record)).join("\n") + "\n";
}

/** One question's run as the exports take it: an RlmResult, or the page's record of one, alike. */
export interface ExportedRun {
  readonly iterations: readonly IterationRecord[];
  /** The answer's ranked sources. */
  readonly sources?: readonly RankedSource[];
}

/**
 * The visualizer's JSONL for the runs of one or more questions. Each turn says which question it
 * belongs to (`question_index`, counting the runs that have turns: iteration numbers restart per
 * question), and the ranked sources ride on each question's last line (`answer_sources`, a field
 * the visualizer ignores).
 */
export function trajectoryJsonl(metadata: RunMetadataRecord, runs: readonly ExportedRun[]): string {
  return toJsonl(
    metadata,
    runs
      .filter((run) => run.iterations.length)
      .flatMap((run, i) =>
        run.iterations.map((it, j) => ({
          ...it,
          question_index: i,
          ...(j === run.iterations.length - 1 && run.sources?.length ? { answer_sources: [...run.sources] } : {}),
        })),
      ),
  );
}

/**
 * One {"messages": [...]} line per answered run: the conversation the root model saw on its last
 * turn plus the reply that submitted the answer — the usual chat SFT format.
 */
export function fineTuneJsonl(runs: ReadonlyArray<ExportedRun & { readonly status: string }>): string {
  const lines: string[] = [];
  for (const run of runs) {
    if (run.status !== "answered") continue;
    const last = run.iterations.at(-1);
    if (!last || last.final_answer === null) continue;
    lines.push(JSON.stringify({ messages: [...last.prompt, { role: "assistant", content: last.response }] }));
  }
  return lines.length ? `${lines.join("\n")}\n` : "";
}

/** Parses our own export back (for tests and for importing a saved run). */
export function parseJsonl(text: string): { metadata: RunMetadataRecord | null; iterations: IterationRecord[] } {
  let metadata: RunMetadataRecord | null = null;
  const iterations: IterationRecord[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as { type?: string };
    if (record.type === "metadata") metadata = record as RunMetadataRecord;
    else iterations.push(record as IterationRecord);
  }
  return { metadata, iterations };
}
