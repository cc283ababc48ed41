// Reads a Chrome trace (Playwright browser.startTracing with the devtools.timeline and
// cpu_profiler categories) and explains each main-thread task over a threshold: which trace
// events it spent its time in (script, style, layout, GC...) and which JavaScript functions
// the CPU profiler sampled during it, mapped back to source files through the build's maps.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { TraceMap, originalPositionFor } from "@jridgewell/trace-mapping";

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  id?: string;
  args?: Record<string, unknown>;
}

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

export interface TaskExplanation {
  /** Milliseconds since the first event of the trace. */
  startMs: number;
  durationMs: number;
  /** Trace events by self time (ms), largest first. */
  events: Array<{ name: string; selfMs: number; detail: string }>;
  /** Sampled JS self time by function (ms), mapped to source, largest first. */
  functions: Array<{ where: string; ms: number }>;
  /** Sampled time by the outermost function of our own bundle on the stack. */
  entryPoints: Array<{ where: string; ms: number }>;
  /** Sampled time by the innermost project function (src/ or workers/) on the stack. */
  projectFrames: Array<{ where: string; ms: number }>;
}

/** Maps bundle URLs (…/assets/x.js) to original positions with the .map files in distDir. */
class SourceMaps {
  private maps = new Map<string, TraceMap | null>();
  constructor(private readonly distDir: string) {}

  private mapFor(url: string): TraceMap | null {
    const file = url.replace(/^https?:\/\/[^/]+\//, "").split("?")[0]!;
    if (!this.maps.has(file)) {
      let map: TraceMap | null = null;
      try {
        map = new TraceMap(readFileSync(join(this.distDir, `${file}.map`), "utf8"));
      } catch {
        map = null;
      }
      this.maps.set(file, map);
    }
    return this.maps.get(file)!;
  }

  private described = new Map<CallFrame, string>();

  describe(frame: CallFrame): string {
    let d = this.described.get(frame);
    if (d === undefined) {
      d = this.describeUncached(frame);
      this.described.set(frame, d);
    }
    return d;
  }

  private describeUncached(frame: CallFrame): string {
    const name = frame.functionName || "(anonymous)";
    if (!frame.url) return name;
    const map = this.mapFor(frame.url);
    if (map) {
      const pos = originalPositionFor(map, { line: frame.lineNumber + 1, column: frame.columnNumber });
      if (pos.source) {
        const source = pos.source.replace(/^(\.\.\/)+/, "").replace(/^.*node_modules\//, "node_modules/");
        return `${pos.name ?? name} (${source}:${pos.line})`;
      }
    }
    return `${name} (${frame.url.replace(/^https?:\/\/[^/]+\//, "")}:${frame.lineNumber + 1})`;
  }

  /** True when the frame maps to the project's own source (not node_modules). */
  isProjectSource(frame: CallFrame): boolean {
    return /\((src|workers)\//.test(this.describe(frame));
  }

  isOwnBundle(url: string): boolean {
    return /\/assets\/[^/]+\.js/.test(url);
  }
}

function detailOf(e: TraceEvent): string {
  const data = (e.args?.data ?? e.args?.beginData ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  if (typeof data.functionName === "string" && data.functionName) parts.push(data.functionName);
  if (typeof data.url === "string" && data.url) parts.push(data.url.replace(/^https?:\/\/[^/]+\//, ""));
  if (typeof data.type === "string") parts.push(data.type);
  return parts.join(" ");
}

export function explainLongTasks(tracePath: string, distDir: string, thresholdMs = 50): { tasks: TaskExplanation[]; mainThread: string } {
  const trace = JSON.parse(readFileSync(tracePath, "utf8")) as { traceEvents: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  const maps = new SourceMaps(distDir);
  const t0 = Math.min(...events.filter((e) => e.ts > 0).map((e) => e.ts));

  // The page's main thread: the CrRendererMain that ran the most script.
  const names = new Map<string, string>();
  for (const e of events)
    if (e.ph === "M" && e.name === "thread_name") names.set(`${e.pid}:${e.tid}`, String((e.args as { name?: string })?.name));
  const scriptTime = new Map<string, number>();
  for (const e of events) {
    if (e.ph === "X" && (e.name === "FunctionCall" || e.name === "EvaluateScript" || e.name === "v8.callFunction")) {
      const key = `${e.pid}:${e.tid}`;
      if (names.get(key) === "CrRendererMain") scriptTime.set(key, (scriptTime.get(key) ?? 0) + (e.dur ?? 0));
    }
  }
  const main = [...scriptTime.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!main) return { tasks: [], mainThread: "none found" };
  const onMain = events.filter((e) => `${e.pid}:${e.tid}` === main);

  // CPU profile samples of that thread: (timestamp µs, leaf node id, node table).
  const nodes = new Map<number, { frame: CallFrame; parent?: number }>();
  const samples: Array<{ ts: number; node: number }> = [];
  const profileIds = new Set(events.filter((e) => e.name === "Profile" && `${e.pid}:${e.tid}` === main).map((e) => e.id));
  let clock = 0;
  for (const e of events) {
    if (e.name === "Profile" && profileIds.has(e.id)) clock = Number((e.args?.data as { startTime?: number })?.startTime ?? e.ts);
    if (e.name !== "ProfileChunk" || !profileIds.has(e.id)) continue;
    const data = e.args?.data as {
      cpuProfile?: { nodes?: Array<{ id: number; callFrame: CallFrame; parent?: number }>; samples?: number[] };
      timeDeltas?: number[];
    };
    for (const n of data.cpuProfile?.nodes ?? [])
      nodes.set(n.id, { frame: n.callFrame, ...(n.parent !== undefined ? { parent: n.parent } : {}) });
    const ids = data.cpuProfile?.samples ?? [];
    const deltas = data.timeDeltas ?? [];
    for (let i = 0; i < ids.length; i++) {
      clock += deltas[i] ?? 0;
      samples.push({ ts: clock, node: ids[i]! });
    }
  }
  samples.sort((a, b) => a.ts - b.ts);
  const interval = samples.length > 1 ? (samples[samples.length - 1]!.ts - samples[0]!.ts) / (samples.length - 1) / 1000 : 0;

  const tasks: TaskExplanation[] = [];
  const longTasks = onMain.filter(
    (e) => e.ph === "X" && (e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask") && (e.dur ?? 0) > thresholdMs * 1000,
  );
  for (const task of longTasks) {
    const end = task.ts + task.dur!;
    const inside = onMain.filter((e) => e.ph === "X" && e !== task && e.ts >= task.ts && e.ts + (e.dur ?? 0) <= end && (e.dur ?? 0) > 0);
    // Self time: each event's duration minus its direct children's.
    inside.sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    const self = new Map<TraceEvent, number>();
    const stack: TraceEvent[] = [];
    for (const e of inside) {
      while (stack.length && stack[stack.length - 1]!.ts + (stack[stack.length - 1]!.dur ?? 0) <= e.ts) stack.pop();
      self.set(e, e.dur ?? 0);
      const parent = stack[stack.length - 1];
      if (parent) self.set(parent, self.get(parent)! - (e.dur ?? 0));
      stack.push(e);
    }
    const byName = new Map<string, { selfMs: number; detail: string }>();
    for (const [e, us] of self) {
      const key = e.name;
      const cur = byName.get(key) ?? { selfMs: 0, detail: "" };
      cur.selfMs += us / 1000;
      const d = detailOf(e);
      if (d && !cur.detail.includes(d) && cur.detail.length < 200) cur.detail = cur.detail ? `${cur.detail}; ${d}` : d;
      byName.set(key, cur);
    }
    const fnTime = new Map<string, number>();
    const entryTime = new Map<string, number>();
    const projectTime = new Map<string, number>();
    for (const s of samples) {
      if (s.ts < task.ts || s.ts > end) continue;
      const leaf = nodes.get(s.node);
      if (!leaf) continue;
      const where = leaf.frame.url || leaf.frame.functionName ? maps.describe(leaf.frame) : "(program)";
      fnTime.set(where, (fnTime.get(where) ?? 0) + interval);
      // Walk to the root; remember the outermost frame from our own bundle.
      let outer: CallFrame | null = null;
      for (let n: typeof leaf | undefined = leaf; n; n = n.parent !== undefined ? nodes.get(n.parent) : undefined) {
        if (maps.isOwnBundle(n.frame.url)) outer = n.frame;
      }
      if (outer) {
        const key = maps.describe(outer);
        entryTime.set(key, (entryTime.get(key) ?? 0) + interval);
      }
      for (let n: typeof leaf | undefined = leaf; n; n = n.parent !== undefined ? nodes.get(n.parent) : undefined) {
        if (n.frame.url && maps.isOwnBundle(n.frame.url) && maps.isProjectSource(n.frame)) {
          const key = maps.describe(n.frame);
          projectTime.set(key, (projectTime.get(key) ?? 0) + interval);
          break;
        }
      }
    }
    const top = (m: Map<string, number>) =>
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([where, ms]) => ({ where, ms }));
    tasks.push({
      startMs: (task.ts - t0) / 1000,
      durationMs: task.dur! / 1000,
      events: [...byName.entries()]
        .map(([name, v]) => ({ name, ...v }))
        .sort((a, b) => b.selfMs - a.selfMs)
        .slice(0, 8),
      functions: top(fnTime),
      entryPoints: top(entryTime),
      projectFrames: top(projectTime),
    });
  }
  return { tasks, mainThread: main };
}

/** The .js.map files of a build (for a quick check that maps exist). */
export function hasSourceMaps(distDir: string): boolean {
  try {
    return readdirSync(join(distDir, "assets")).some((f) => f.endsWith(".js.map"));
  } catch {
    return false;
  }
}
