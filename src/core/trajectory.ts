// Trajectories as JSONL in the official rlm visualizer's schema (rlm-harness.md §4): a
// metadata line, then one line per iteration. Records are snapshots, never live aliases.
import type { ChatEngine } from "../engines/types.ts";
import type { IterationRecord, RlmConfig, RunMetadataRecord } from "./types.ts";

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
      ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
      ...(config.topP !== undefined ? { top_p: config.topP } : {}),
      ...(config.seed !== undefined ? { seed: config.seed } : {}),
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
