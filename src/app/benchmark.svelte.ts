// The Benchmark page's state: the task suites of src/bench run against the model chosen in
// Settings (a local WebLLM model or an endpoint), RLM against direct answering, with progress,
// a summary and charts. Results are kept in this browser, so a run resumes after a reload.
import {
  DEFAULT_SIZES,
  METHOD_LABELS,
  benchCharts,
  describeRemaining,
  estimateRemainingMs,
  latestResults,
  parseResultsJsonl,
  planTasks,
  resultKey,
  resultLine,
  runBench,
  sourceTreeFromZip,
  summarize,
  type BenchMethod,
  type BenchResult,
  type NamedChart,
  type PendingRun,
  type ResultStore,
  type SourceTree,
  type SuiteName,
  type SummaryRow,
} from "../bench/index.ts";
import { createBrowserRepl } from "../repl/browser.ts";
import type { ReplClient } from "../repl/client.ts";
import type { EngineManager } from "./engines.svelte.ts";
import type { RlmConfig } from "../core/types.ts";
import { toRlmConfig, type Settings } from "./settings.ts";

const STORAGE_KEY = "browser-rlm.bench.results";
const CHOICES_KEY = "browser-rlm.bench.choices";

/** Results as JSONL in localStorage: small (a line per task × method) and kept across reloads. */
class LocalResultStore implements ResultStore {
  async load(): Promise<BenchResult[]> {
    return parseResultsJsonl(localStorage.getItem(STORAGE_KEY) ?? "");
  }
  async append(result: BenchResult): Promise<void> {
    localStorage.setItem(STORAGE_KEY, (localStorage.getItem(STORAGE_KEY) ?? "") + resultLine(result));
  }
}

export interface BenchChoices {
  suites: SuiteName[];
  sizes: number[];
  methods: BenchMethod[];
  repeats: number;
  seed: number;
}

const DEFAULT_CHOICES: BenchChoices = {
  suites: ["niah", "oolong"],
  sizes: [28_000, 112_000],
  methods: ["vanilla", "rlm"],
  repeats: 1,
  seed: 1,
};

/** The last choices a run was started with, so a reload resumes the same plan. */
function loadChoices(): BenchChoices {
  try {
    const saved = JSON.parse(localStorage.getItem(CHOICES_KEY) ?? "null") as Partial<BenchChoices> | null;
    return { ...DEFAULT_CHOICES, ...(saved ?? {}) };
  } catch {
    return { ...DEFAULT_CHOICES };
  }
}

export class BenchmarkState {
  choices = $state<BenchChoices>(loadChoices());
  running = $state(false);
  progress = $state<{ done: number; total: number; current: string } | null>(null);
  results = $state<BenchResult[]>([]);
  error = $state<string | null>(null);
  repo = $state<{ name: string; files: number } | null>(null);
  /** Every task × method of the run going now, for the time left. */
  private plan = $state<Array<PendingRun & { key: string }>>([]);
  readonly sizes = DEFAULT_SIZES;

  private tree: SourceTree | null = null;
  private abort: AbortController | null = null;
  private repl: ReplClient | null = null;
  private readonly store = new LocalResultStore();

  constructor(
    private readonly engines: EngineManager,
    private readonly settings: () => Settings,
  ) {
    void this.store.load().then((r) => (this.results = latestResults(r)));
  }

  get summary(): SummaryRow[] {
    return summarize(this.results);
  }

  /**
   * "about 4 min left", from what the finished runs took (src/bench/remaining.ts), or null
   * before one has finished or when nothing is running.
   */
  get timeLeft(): string | null {
    if (!this.running || !this.plan.length) return null;
    const done = new Set(this.results.map((r) => resultKey(r.taskId, r.method)));
    const ms = estimateRemainingMs(
      this.plan.filter((p) => !done.has(p.key)),
      this.results.filter((r) => r.status !== "error"),
    );
    return ms === null ? null : describeRemaining(ms);
  }

  get charts(): NamedChart[] {
    return this.results.length ? benchCharts(this.results) : [];
  }

  async setRepository(file: File): Promise<void> {
    try {
      this.tree = sourceTreeFromZip(new Uint8Array(await file.arrayBuffer()));
      this.repo = { name: file.name.replace(/\.zip$/i, ""), files: Object.keys(this.tree).length };
      this.error = null;
    } catch (err) {
      this.error = `That zip could not be read: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  async run(): Promise<void> {
    if (this.running) return;
    const c = this.choices;
    if (c.suites.includes("code") && !this.tree) {
      this.error = "The code suite needs a repository: add a .zip of one first.";
      return;
    }
    this.running = true;
    this.error = null;
    this.abort = new AbortController();
    localStorage.setItem(CHOICES_KEY, JSON.stringify($state.snapshot(c)));
    try {
      const { root, sub } = await this.engines.forRun();
      const tasks = planTasks({
        suites: c.suites,
        sizes: c.sizes,
        repeats: c.repeats,
        seed: c.seed,
        ...(this.tree && this.repo ? { code: { repo: this.repo.name, tree: this.tree } } : {}),
      });
      this.plan = tasks.flatMap((t) => c.methods.map((method) => ({ key: resultKey(t.id, method), method, size: t.size })));
      this.repl ??= createBrowserRepl();
      const outcome = await runBench({
        tasks,
        methods: c.methods,
        rootEngine: root,
        subEngine: sub,
        repl: this.repl,
        config: benchConfig(this.settings()),
        store: this.store,
        signal: this.abort.signal,
        onProgress: (p) => {
          if (p.type === "planned") this.progress = { done: p.alreadyDone, total: p.total, current: "" };
          if (p.type === "task-started")
            this.progress = { done: p.done, total: p.total, current: `${p.taskId} · ${METHOD_LABELS[p.method]}` };
          if (p.type === "task-finished") {
            this.progress = { done: p.done, total: p.total, current: "" };
            this.results = latestResults([...this.results, p.result]);
          }
        },
      });
      this.results = outcome.results;
      if (outcome.stopped) this.error = "Stopped. Run again to continue where it stopped.";
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    } finally {
      this.running = false;
      this.abort = null;
      this.plan = [];
    }
  }

  stop(): void {
    this.abort?.abort();
  }

  clear(): void {
    localStorage.removeItem(STORAGE_KEY);
    this.results = [];
    this.progress = null;
  }

  resultsJsonl(): string {
    return this.results.map(resultLine).join("");
  }
}

/**
 * The run settings a benchmark uses: the person's, except the fallback's question (issue 28):
 * nobody is there to answer it in the middle of a suite, and a task whose fallback was skipped
 * would score the policy rather than the method. Tasks read as `rlm bench` reads them.
 */
function benchConfig(settings: Settings): RlmConfig {
  const { fallback: _notAskedMidSuite, ...config } = toRlmConfig(settings);
  return config;
}
