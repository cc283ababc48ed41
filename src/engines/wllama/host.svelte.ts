// The page's side of the llama.cpp engine: which GGUF models this browser keeps, taking a file the
// person chose or dropped (checked, then kept), and loading the chosen one for a run. Its state is
// reactive ($state) for the Settings view and the header chip.
import type { EngineHost, EngineLabel, HostContext } from "../../app/engine-host.ts";
import type { Settings } from "../../app/settings.ts";
import type { EngineStatus } from "../descriptor.ts";
import { meansModelUnavailable } from "../errors.ts";
import type { ChatEngine } from "../types.ts";
import { WllamaWorkerClient } from "./client.ts";
import { WllamaEngine, type CallRecord } from "./engine.ts";
import { ModelTooBigError, mapWorkerError } from "./errors.ts";
import { defaultWindow, planMemory, type MemoryPlan } from "./memory.ts";
import { ModelFileError, inspectModel, orderParts, type GgufModelInfo, type NamedBlob } from "./model-file.ts";
import { checkTemplateInWorker } from "./template-check.ts";
import { splitPart } from "../gguf/header.ts";
import { CPU_CATALOG, catalogUrl, expectedSpeed, type CatalogModel } from "./catalog.ts";
import { measuredRates } from "./rates.ts";
import type { ReadingSpeed } from "../../app/presets.ts";
import { modelIdFor, type StoredModel } from "./model-store.ts";
import { loadPatiently, loadPatienceMs } from "./patient-load.ts";
import type { WllamaLoadProgress } from "./load-progress.ts";
import type { WllamaAssets, WllamaEnvironment } from "./protocol.ts";
import type { WllamaSettings } from "./settings.ts";
import { NO_SIMD_REASON, hasWasmSimd } from "./simd.ts";
import { wllamaAssets } from "./assets.ts";

/** Where the page serves llama.cpp's wasm: copied from node_modules at build (scripts/copy-wllama.mjs). */
export function pageAssets(): WllamaAssets {
  return wllamaAssets(new URL(`${import.meta.env.BASE_URL}wllama/`, location.href));
}

/** The window a model gets with these settings: the person's choice, else its default. */
export function windowFor(settings: WllamaSettings, info: GgufModelInfo & { totalBytes: number }): number {
  return settings.contextWindow || defaultWindow(info) || 2048;
}

/**
 * Half the cores, at least one (wllama's own default). llama.cpp's threads wait for each other by
 * spinning: with every core busy they stall whenever anything else runs (the page, Python, other
 * programs). On a loaded 2-core machine 2 threads decoded ~15× slower than 1 (bench/RESULTS.md).
 */
export function defaultThreads(cores: number): number {
  return Math.max(1, Math.floor(cores / 2));
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 ** 2).toLocaleString("en-US")} MB`;
}

export class WllamaHost implements EngineHost {
  env = $state<WllamaEnvironment | null>(null);
  models = $state<StoredModel[]>([]);
  modelsKnown = $state(false);
  private hostStatus = $state<"idle" | { loading: number; detail: string } | { ready: string }>("idle");
  /**
   * The model (with its window and threads) that last failed to load, and why: kept across
   * reloads, so a file llama.cpp cannot load is not shown as ready to use after one, nor after
   * another setting (an effort) is changed. Cleared when it loads.
   */
  private loadFailure = $state<{ key: string; message: string } | null>(null);
  /** A call of the loaded model that failed (a stopped worker), for its settings: until the next load or answer. */
  private callFailure = $state<{ key: string; message: string } | null>(null);
  available = $state<boolean | null>(null);
  unavailableReason = "this browser cannot run WebAssembly";
  readonly knownWindow = undefined;
  readonly fileKinds = /\.gguf$/i;
  /** A file being kept: the id it is kept under, its name and how far. */
  storing = $state<{ id: string; name: string; fraction: number } | null>(null);
  /** The copy under way, so a question asked meanwhile waits for the model it chose. */
  private keeping: Promise<StoredModel> | null = null;
  /** Catalog downloads under way (bytes, total when known) and their last error. */
  downloads = $state<Record<string, { bytes: number; total: number | null; error?: string; running: boolean }>>({});
  /** The last question's calls as llama.cpp counted them: prompt tokens, and how many came from its KV cache. */
  lastCalls = $state<CallRecord[]>([]);
  /** Prompt tokens/s llama.cpp last measured here, for the model it measured. */
  private measuredPrefill = $state<{ modelId: string; tokensPerSecond: number } | null>(null);

  private worker: WllamaWorkerClient | null = null;

  constructor(private readonly ctx: HostContext) {
    this.loadFailure = this.readLoadFailure();
  }

  private own(): WllamaSettings {
    return this.ctx.settings().wllama;
  }

  get status(): EngineStatus {
    const label = this.label(this.own());
    const h = this.hostStatus;
    const kept = this.keptNow();
    if (kept) return { state: "loading", label, progress: kept.fraction, detail: `Keeping ${kept.name} in this browser…` };
    if (h !== "idle" && "loading" in h) return { state: "loading", label, progress: h.loading, detail: h.detail };
    const failure = [this.callFailure, this.loadFailure].find((f) => f?.key === this.loadKey());
    if (failure) return { state: "error", label, message: failure.message, canReload: false };
    if (h !== "idle") return { state: "ready", label, detail: h.ready };
    return { state: "idle", label };
  }

  /** The chosen model's copy into this browser, while it runs. */
  private keptNow(): { name: string; fraction: number } | null {
    const s = this.storing;
    return s && s.id === this.own().modelId && !this.find(s.id) ? s : null;
  }

  /** Whether the chosen model file is kept in this browser (a file chosen is kept, not downloaded). */
  download(): "complete" | "none" | undefined {
    const id = this.own().modelId;
    if (!id || !this.modelsKnown) return undefined;
    return this.find(id) ? "complete" : "none";
  }

  /** What a load depends on in the settings: the model, its window and threads. */
  private loadKey(settings: WllamaSettings = this.own()): string {
    return JSON.stringify([settings.modelId, settings.contextWindow, settings.threads]);
  }

  private static readonly FAILURE_KEY = "rlm.wllama.loadFailure";

  private readLoadFailure(): { key: string; message: string } | null {
    try {
      const saved = JSON.parse(this.ctx.storage?.getItem(WllamaHost.FAILURE_KEY) ?? "null") as { key?: unknown; message?: unknown } | null;
      return typeof saved?.key === "string" && typeof saved.message === "string" ? { key: saved.key, message: saved.message } : null;
    } catch {
      return null;
    }
  }

  private rememberLoadFailure(failure: { key: string; message: string } | null): void {
    this.loadFailure = failure;
    try {
      if (failure) this.ctx.storage?.setItem(WllamaHost.FAILURE_KEY, JSON.stringify(failure));
      else this.ctx.storage?.removeItem(WllamaHost.FAILURE_KEY);
    } catch {
      // Storage full or refused: the failure is still shown for this visit.
    }
  }

  reportCall(_role: "root" | "sub", failure: unknown): void {
    if (!this.loaded) return;
    if (failure === null) this.callFailure = null;
    else if (meansModelUnavailable(failure)) this.callFailure = { key: this.loadKey(), message: (failure as Error).message };
  }

  /** llama.cpp needs WebAssembly with SIMD: every build the page serves is compiled with it. */
  async detect(): Promise<void> {
    if (typeof WebAssembly !== "object") {
      this.available = false;
      return;
    }
    this.available = hasWasmSimd();
    if (!this.available) this.unavailableReason = NO_SIMD_REASON;
  }

  /** The models kept in this browser (starts the worker; only once this engine is chosen). */
  async probe(): Promise<void> {
    await this.refresh().catch(() => undefined);
    await this.environment().catch(() => undefined);
  }

  missing(): string | null {
    const id = this.own().modelId;
    if (id && this.modelsKnown && !this.find(id) && this.storing?.id !== id) {
      return "The chosen model file is no longer kept in this browser. Choose the .gguf model file again in Settings.";
    }
    return null;
  }

  settingsChanged(): void {
    // A different model, window or thread count loads on the next question (engineFor's key); a
    // load failure stays shown for the settings it happened with (status compares loadKey).
  }

  async release(): Promise<void> {
    await this.unload();
  }

  async reload(): Promise<void> {
    await this.unload();
    await this.forRun();
  }

  describe(): { root: EngineLabel; sub: EngineLabel } | null {
    const engine = this.loaded?.engine;
    if (engine) return { root: engine, sub: engine };
    const label: EngineLabel = { model: this.label(this.own()), backend: "wllama", contextWindow: this.own().contextWindow };
    return { root: label, sub: label };
  }

  /** A .gguf dropped on the page becomes the model: kept, then chosen. */
  async takeFiles(files: File[], settings: Settings): Promise<Settings> {
    const stored = await this.addFiles(files, settings.wllama);
    return { ...settings, backend: "wllama", wllama: { ...settings.wllama, modelId: stored.id } };
  }
  private loaded: { key: string; engine: WllamaEngine } | null = null;
  private loading: Promise<WllamaEngine> | null = null;

  private client(): WllamaWorkerClient {
    this.worker ??= WllamaWorkerClient.spawn();
    return this.worker;
  }

  /** Ends llama.cpp's worker (a load that hangs in it); the next call starts a fresh one. */
  private endWorker(): void {
    this.worker?.terminate();
    this.worker = null;
  }

  /** What the browser offers llama.cpp (threads, JSPI / compat build), asked of the worker once. */
  async environment(): Promise<WllamaEnvironment> {
    this.env ??= await this.client().environment();
    return this.env;
  }

  async refresh(): Promise<void> {
    this.models = await this.client().listModels();
    this.modelsKnown = true;
  }

  find(id: string): StoredModel | undefined {
    return this.models.find((m) => m.id === id);
  }

  label(settings: WllamaSettings): string {
    const m = this.find(settings.modelId);
    if (!settings.modelId) return "llama.cpp: no model file chosen";
    const keptName = this.storing?.id === settings.modelId ? this.storing.name : undefined;
    return `${m ? (m.info.title ?? m.info.name) : (keptName ?? settings.modelId)} (llama.cpp, CPU)`;
  }

  /** The memory sum for a stored model at the window these settings give it. */
  plan(settings: WllamaSettings, model = this.find(settings.modelId)): MemoryPlan | undefined {
    return model ? planMemory(model.info, windowFor(settings, model.info)) : undefined;
  }

  /**
   * Checks a chosen or dropped .gguf (or a split model's parts) and keeps it in the browser.
   * Refused before anything is kept when it is not a whole GGUF, or cannot fit memory at the
   * window; the stored models and the settings stay as they were.
   */
  async addFiles(files: File[], settings: WllamaSettings): Promise<StoredModel> {
    const keep = this.keep(files, settings);
    this.keeping = keep;
    try {
      return await keep;
    } finally {
      if (this.keeping === keep) this.keeping = null;
    }
  }

  private async keep(files: File[], settings: WllamaSettings): Promise<StoredModel> {
    const parts: NamedBlob[] = files.map((f) => ({ name: f.name, blob: f }));
    const id = keptId(parts);
    this.storing = { id, name: keptName(orderParts(parts)), fraction: 0 };
    try {
      const info = await inspectModel(parts, checkTemplateInWorker);
      const window = settings.contextWindow || defaultWindow(info);
      if (!window) {
        throw new ModelTooBigError(planMemory(info, 2048).arithmetic, info.name);
      }
      const plan = planMemory(info, window);
      if (!plan.fits) throw new ModelTooBigError(plan.arithmetic, info.name);
      const stored = await this.client().storeModel({ id, info, source: "file" }, parts, (bytes, total) => {
        this.storing = { id, name: info.name, fraction: total ? bytes / total : 1 };
      });
      await this.refresh();
      return stored;
    } finally {
      this.storing = null;
    }
  }

  /**
   * A file chosen in Settings is the draft's model at once, before its copy (many seconds for a
   * real model) ends: Save pressed meanwhile keeps the choice. Before, the draft took the model
   * only once kept, so a Save during the copy saved no model and the file came back unchosen.
   * A copy that fails puts back the model chosen before, in the draft and in saved settings.
   */
  async chooseFiles(files: File[], draft: Settings): Promise<StoredModel> {
    const id = keptId(files.map((f) => ({ name: f.name, blob: f })));
    const before = draft.wllama.modelId;
    draft.backend = "wllama";
    draft.wllama.modelId = id;
    try {
      return await this.addFiles(files, draft.wllama);
    } catch (err) {
      if (draft.wllama.modelId === id) draft.wllama.modelId = before;
      const saved = this.ctx.settings();
      if (saved.wllama.modelId === id && !this.find(id)) this.ctx.update({ ...saved, wllama: { ...saved.wllama, modelId: before } });
      throw err;
    }
  }

  /** Downloads (or resumes) a catalog model; the person's settings choose it once it is kept. */
  async downloadCatalog(model: CatalogModel): Promise<StoredModel | null> {
    const prior = (
      await this.client()
        .partialDownloads()
        .catch(() => [])
    ).find((p) => p.id === model.id);
    this.downloads = { ...this.downloads, [model.id]: { bytes: prior?.bytes ?? 0, total: null, running: true } };
    try {
      const stored = await this.client().download(
        { id: model.id, url: catalogUrl(model, this.ctx.testSeams?.catalogBase?.()), fileName: model.fileName },
        (bytes, total) => {
          this.downloads = { ...this.downloads, [model.id]: { bytes, total, running: true } };
        },
      );
      const { [model.id]: _done, ...rest } = this.downloads;
      this.downloads = rest;
      await this.refresh();
      return stored;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const was = this.downloads[model.id];
      this.downloads = {
        ...this.downloads,
        [model.id]: { bytes: was?.bytes ?? 0, total: was?.total ?? null, error: message, running: false },
      };
      return null;
    }
  }

  /**
   * The first-visit panel's download: once kept it becomes the model, unless the person chose
   * another meanwhile (a saved choice is never replaced behind their back).
   */
  async downloadAndChoose(model: CatalogModel): Promise<void> {
    const stored = await this.downloadCatalog(model);
    const saved = this.ctx.settings();
    if (!stored || (saved.wllama.modelId && saved.wllama.modelId !== stored.id)) return;
    this.ctx.update({ ...saved, backend: "wllama", wllama: { ...saved.wllama, modelId: stored.id } });
  }

  cancelDownload(id: string): void {
    void this.client().cancelDownload(id);
  }

  async deleteModel(id: string): Promise<void> {
    if (this.loaded?.key.startsWith(`${id}|`)) await this.unload();
    await this.client().deleteModel(id);
    await this.refresh();
  }

  async unload(): Promise<void> {
    const old = this.loaded;
    this.loaded = null;
    this.hostStatus = "idle";
    await old?.engine.dispose();
  }

  /** The engine for a run: the chosen model, loaded once and kept while the settings stay. */
  async forRun(): Promise<{ root: ChatEngine; sub: ChatEngine }> {
    this.newQuestion();
    const engine = await this.engineFor(this.own());
    return { root: engine, sub: engine };
  }

  private async engineFor(settings: WllamaSettings): Promise<WllamaEngine> {
    // A question asked while its model is still being copied in waits for the copy.
    if (this.keeping && this.storing?.id === settings.modelId) await this.keeping.catch(() => undefined);
    if (!this.modelsKnown) await this.refresh();
    const model = this.find(settings.modelId);
    if (!model) {
      throw new ModelFileError(
        settings.modelId
          ? "The chosen model file is no longer kept in this browser. Choose the .gguf file again in Settings (Model file)."
          : "No model file is chosen. Open Settings and choose a .gguf model file, or drop one on the page.",
      );
    }
    const env = await this.environment();
    const window = windowFor(settings, model.info);
    const threads = settings.threads || (env.crossOriginIsolated ? defaultThreads(env.hardwareConcurrency) : 1);
    const key = `${model.id}|${window}|${threads}`;
    if (this.loaded?.key === key) return this.loaded.engine;
    if (this.loading) return this.loading;
    await this.unload();
    const newEngine = () =>
      new WllamaEngine({
        worker: this.client(),
        modelId: model.id,
        info: model.info,
        contextWindow: window,
        threads,
        assets: pageAssets(),
        // Our build (vendor/llama-wasm): ggml's SIMD128 kernels and a batched prompt GEMM, which
        // wllama's builds lack (docs/llama-wasm-build.md). Every build the page could serve needs
        // WebAssembly SIMD (without it the page says so up front); ours also needs shared memory,
        // and where a worker has none the worker runs wllama's compat build on one thread.
        build: "simd",
        libllama: env.libllama,
        label: model.info.title ?? model.info.name.replace(/\.gguf$/i, ""),
        ...(this.ctx.testSeams?.testGrammar ? { testGrammar: this.ctx.testSeams.testGrammar } : {}),
        onCall: (record) => this.count(record),
      });
    this.hostStatus = { loading: 0, detail: "Starting llama.cpp…" };
    this.callFailure = null;
    const failureKey = this.loadKey(settings);
    // By stage and by bytes ("Reading the model: 3.1 MB of 11 MB"), not a fixed 50 % (issue 34 #2).
    const progress = ({ detail, fraction }: WllamaLoadProgress) => {
      this.hostStatus = { loading: fraction, detail };
    };
    this.loading = (async () => {
      try {
        // A load that hangs is given up with its worker, and tried once more in a fresh one,
        // unless the model was kept only in that worker's memory (no file system here).
        const { engine, outcome } = await loadPatiently(
          () => {
            const engine = newEngine();
            return { loaded: engine.load(progress).then((outcome) => ({ engine, outcome })), abandon: () => this.endWorker() };
          },
          loadPatienceMs(model.totalBytes, !model.visitOnly),
          model.info.name,
          !model.visitOnly,
        );
        this.loaded = { key, engine };
        if (this.loadFailure) this.rememberLoadFailure(null);
        this.hostStatus = {
          ready:
            `${window.toLocaleString("en-US")}-token window · ${outcome.threads} thread${outcome.threads === 1 ? "" : "s"}` +
            `${outcome.relaxedSimd ? " (relaxed SIMD build)" : outcome.simd ? " (SIMD build)" : outcome.compat ? " (compat build)" : ""} · about ${mib(engine.memory.totalBytes)} of memory`,
        };
        return engine;
      } catch (err) {
        const mapped = mapWorkerError(err, { libllama: env.libllama, modelName: model.info.name });
        this.hostStatus = "idle";
        // Stopping a question while the model loads is no failure of the model.
        if (meansModelUnavailable(mapped)) this.rememberLoadFailure({ key: failureKey, message: mapped.message });
        throw mapped;
      } finally {
        this.loading = null;
      }
    })();
    return this.loading;
  }

  /** Starts counting a question's calls afresh (the page shows the last question's cache use). */
  newQuestion(): void {
    this.lastCalls = [];
  }

  private count(record: CallRecord): void {
    this.lastCalls = [...this.lastCalls, record];
    const prefill = measuredRates(this.lastCalls).prefill;
    if (prefill !== null) this.measuredPrefill = { modelId: this.own().modelId, tokensPerSecond: prefill };
  }

  /**
   * How fast the chosen model reads prompts here: what llama.cpp measured in the last question
   * that read one, else the catalog's estimate for a catalog model, else nothing (no guess).
   */
  readingSpeed(): ReadingSpeed | null {
    const id = this.own().modelId;
    if (this.measuredPrefill?.modelId === id) return { tokensPerSecond: this.measuredPrefill.tokensPerSecond, measured: true };
    const listed = CPU_CATALOG.find((m) => m.id === id);
    return listed ? { tokensPerSecond: expectedSpeed(listed).prefill, measured: false } : null;
  }
}

/** The id a model is kept under, known from its files' names and sizes before any byte is read. */
function keptId(parts: NamedBlob[]): string {
  const ordered = orderParts(parts);
  return modelIdFor(
    keptName(ordered),
    ordered.reduce((s, p) => s + p.blob.size, 0),
  );
}

/** The model's name as inspectModel gives it: the file's, or a split model's base name. */
function keptName(parts: NamedBlob[]): string {
  const split = splitPart(parts[0]!.name);
  return split ? `${split.base}.gguf` : parts[0]!.name;
}

export { ModelFileError };
