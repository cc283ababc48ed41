import type { ChatUsage } from "../engines/types.ts";
import type { UsageSummary } from "./types.ts";

/** A run's usage before its first call: nothing counted yet. */
export function emptyUsage(): UsageSummary {
  return { models: {}, rootCalls: 0, subcalls: 0, generationMs: 0, replMs: 0, subcallMs: 0, totalMs: 0 };
}

/** Counts tokens per model and time per phase for one question (child runs included). */
export class UsageTracker {
  private readonly started = Date.now();
  private readonly summary: UsageSummary = emptyUsage();

  addCall(model: string, usage: ChatUsage, role: "root" | "sub"): void {
    const m = (this.summary.models[model] ??= { calls: 0, promptTokens: 0, completionTokens: 0 });
    m.calls += 1;
    m.promptTokens += usage.promptTokens;
    m.completionTokens += usage.completionTokens;
    if (role === "root") this.summary.rootCalls += 1;
    else this.summary.subcalls += 1;
  }

  addTime(phase: "generationMs" | "replMs" | "subcallMs", ms: number): void {
    this.summary[phase] += ms;
  }

  snapshot(): UsageSummary {
    return {
      ...this.summary,
      models: Object.fromEntries(Object.entries(this.summary.models).map(([k, v]) => [k, { ...v }])),
      totalMs: Date.now() - this.started,
    };
  }
}

export function totalTokens(usage: UsageSummary): { prompt: number; completion: number } {
  let prompt = 0;
  let completion = 0;
  for (const m of Object.values(usage.models)) {
    prompt += m.promptTokens;
    completion += m.completionTokens;
  }
  return { prompt, completion };
}
