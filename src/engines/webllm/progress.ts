// Turning WebLLM's load reports into states a person understands. WebLLM reports
// {progress, timeElapsed, text}; `progress` restarts at 0 in every phase, and only the text says
// which phase it is (lib/index.js of 0.2.86, fetchTensorCacheInternal and the shader loader):
//   "Start to fetch params"
//   "Fetching param cache[i/N]: X MB fetched. P% completed, T secs elapsed. It can take a while…"
//   "Loading model from cache[i/N]: X MB loaded. P% completed, T secs elapsed."
//   "Loading GPU shader modules[i/N]: P% completed, T secs elapsed."
//   "Finish loading on WebGPU - <adapter>"
// After a download, WebLLM still goes through "Loading model from cache" (it copies the cached
// shards to the GPU), so "from cache" means "no download happened", decided over the whole load.

export type LoadPhase = "starting" | "downloading" | "loading-from-cache" | "compiling-shaders" | "ready" | "other";

export interface RawProgressReport {
  progress: number;
  timeElapsed: number;
  text: string;
}

export interface ParsedProgress {
  phase: LoadPhase;
  shard?: { index: number; count: number };
  /** Bytes fetched or loaded so far in this phase (WebLLM rounds to whole MB, so approximate). */
  loadedBytes?: number;
  /** Total bytes of the weights, derived from loaded / progress. */
  totalBytes?: number;
  /** 0–100 within the phase. */
  percent: number;
  seconds?: number;
  /** The adapter name from "Finish loading on …". */
  gpuLabel?: string;
}

/** What the worker sends for each WebLLM report. */
export interface LoadProgressReport extends RawProgressReport {
  parsed: ParsedProgress;
}

const MB = 1024 * 1024;
const SHARD_RE =
  /^(Fetching param cache|Loading model from cache)\[(\d+)\/(\d+)\]:\s*([\d.]+)\s*MB (?:fetched|loaded)\.\s*(\d+)% completed,\s*(\d+) secs elapsed/;
const SHADER_RE = /^Loading GPU shader modules\[(\d+)\/(\d+)\]:\s*(\d+)% completed,\s*(\d+) secs elapsed/;
const FINISH_RE = /^Finish loading on (.*)$/s;

function clampPercent(p: number): number {
  return Math.max(0, Math.min(100, p));
}

export function parseProgressText(report: RawProgressReport): ParsedProgress {
  const text = report.text.trim();
  const fallbackPercent = clampPercent(Math.round((Number.isFinite(report.progress) ? report.progress : 0) * 100));
  const shard = SHARD_RE.exec(text);
  if (shard) {
    const loadedBytes = Number(shard[4]) * MB;
    const ratio = report.progress;
    const parsed: ParsedProgress = {
      phase: shard[1] === "Fetching param cache" ? "downloading" : "loading-from-cache",
      shard: { index: Number(shard[2]), count: Number(shard[3]) },
      loadedBytes,
      percent: clampPercent(Number(shard[5])),
      seconds: Number(shard[6]),
    };
    // The ratio is exact (bytes / total); the MB figure is rounded up, so this is close, not exact.
    if (ratio > 0 && ratio <= 1) parsed.totalBytes = Math.round(loadedBytes / ratio);
    return parsed;
  }
  const shader = SHADER_RE.exec(text);
  if (shader) {
    return {
      phase: "compiling-shaders",
      shard: { index: Number(shader[1]), count: Number(shader[2]) },
      percent: clampPercent(Number(shader[3])),
      seconds: Number(shader[4]),
    };
  }
  const finish = FINISH_RE.exec(text);
  if (finish) return { phase: "ready", percent: 100, gpuLabel: finish[1]!.trim() };
  if (/^Start to fetch params/.test(text)) return { phase: "starting", percent: 0 };
  return { phase: "other", percent: fallbackPercent };
}

/** The load state shown to the user. */
export interface LoadStatus {
  phase: LoadPhase;
  /** 0–100 within the current phase. */
  percent: number;
  loadedBytes?: number;
  totalBytes?: number;
  /** Download speed, from successive reports. */
  bytesPerSecond?: number;
  /** Estimated seconds until the download ends. */
  secondsLeft?: number;
  /** True while no download has been seen: the weights come from the browser cache. */
  fromCache: boolean;
  /** One line for the UI, e.g. "Downloading: 45% (1.1 GB of 2.4 GB, 12 MB/s, about 2 min left)". */
  message: string;
}

/** Reports older than this do not count toward the speed (the rate changes over a long download). */
const SPEED_WINDOW_MS = 10_000;
/** Below this span the rate is noise (shards arrive in bursts of four). */
const MIN_SPEED_SPAN_MS = 500;

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= MB) return `${Math.round(bytes / MB)} MB`;
  return `${Math.max(0, Math.round(bytes / 1024))} KB`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  const h = Math.floor(seconds / 3600);
  return `${h} h ${Math.round((seconds - h * 3600) / 60)} min`;
}

/** Keeps what one load has reported so far and derives speed and time left. Feed it every report. */
export class LoadProgressTracker {
  private samples: Array<{ at: number; bytes: number }> = [];
  private sawDownload = false;
  private last: LoadStatus = { phase: "starting", percent: 0, fromCache: true, message: "Preparing the model…" };

  get status(): LoadStatus {
    return this.last;
  }

  /** `now` is a millisecond clock (Date.now() or performance.now()); passed in for tests. */
  update(report: RawProgressReport & { parsed?: ParsedProgress }, now: number): LoadStatus {
    const parsed = report.parsed ?? parseProgressText(report);
    if (parsed.phase === "downloading") this.sawDownload = true;
    const status: LoadStatus = { phase: parsed.phase, percent: parsed.percent, fromCache: !this.sawDownload, message: "" };
    if (parsed.loadedBytes !== undefined) status.loadedBytes = parsed.loadedBytes;
    if (parsed.totalBytes !== undefined) status.totalBytes = parsed.totalBytes;
    if (parsed.phase === "downloading" && parsed.loadedBytes !== undefined) {
      this.samples.push({ at: now, bytes: parsed.loadedBytes });
      this.samples = this.samples.filter((s) => now - s.at <= SPEED_WINDOW_MS);
      const first = this.samples[0]!;
      const span = now - first.at;
      if (span >= MIN_SPEED_SPAN_MS && parsed.loadedBytes > first.bytes) {
        status.bytesPerSecond = ((parsed.loadedBytes - first.bytes) * 1000) / span;
        if (parsed.totalBytes !== undefined) {
          status.secondsLeft = Math.max(0, parsed.totalBytes - parsed.loadedBytes) / status.bytesPerSecond;
        }
      } else if (this.last.bytesPerSecond !== undefined && this.last.phase === "downloading") {
        status.bytesPerSecond = this.last.bytesPerSecond;
        if (parsed.totalBytes !== undefined) {
          status.secondsLeft = Math.max(0, parsed.totalBytes - parsed.loadedBytes) / status.bytesPerSecond;
        }
      }
    }
    status.message = describeStatus(status, parsed);
    this.last = status;
    return status;
  }
}

function describeStatus(s: LoadStatus, parsed: ParsedProgress): string {
  switch (s.phase) {
    case "starting":
      return "Checking the model cache…";
    case "downloading": {
      const parts: string[] = [];
      if (s.loadedBytes !== undefined && s.totalBytes !== undefined) {
        parts.push(`${formatBytes(s.loadedBytes)} of ${formatBytes(s.totalBytes)}`);
      }
      if (s.bytesPerSecond !== undefined) parts.push(`${formatBytes(s.bytesPerSecond)}/s`);
      if (s.secondsLeft !== undefined) parts.push(`about ${formatDuration(s.secondsLeft)} left`);
      return `Downloading the model: ${s.percent}%${parts.length ? ` (${parts.join(", ")})` : ""}`;
    }
    case "loading-from-cache":
      return s.fromCache
        ? `Loading the model from the browser cache (no download needed): ${s.percent}%`
        : `Moving the downloaded model to the GPU: ${s.percent}%`;
    case "compiling-shaders":
      return `Preparing GPU shaders: ${s.percent}%`;
    case "ready":
      return parsed.gpuLabel ? `Model ready (${parsed.gpuLabel})` : "Model ready";
    default:
      return "Loading the model…";
  }
}
