// The page's side of WebLLM: is there a WebGPU adapter, which model it recommends, what is
// downloaded, and the loaded root (and optional sub-call) engines for a run.
import type { EngineHost, EngineLabel, HostContext } from "../../app/engine-host.ts";
import type { EngineStatus } from "../descriptor.ts";
import { EngineError, meansModelUnavailable } from "../errors.ts";
import type { ChatEngine } from "../types.ts";
import { CATALOG, findCatalogEntry } from "./catalog.ts";
import { chooseVariant, recommendModel, type Recommendation } from "./choice.ts";
import { ModelWorkerClient } from "./client.ts";
import { customModelSpec } from "./custom-model.ts";
import type { WebLLMSettings } from "./descriptor.ts";
import { estimateWebLLMEnginesVramMB, loadWebLLMEngines, type WebLLMEngines } from "./engine.ts";
import { probeGpu } from "./gpu-probe.ts";
import { defaultWindowFor } from "./memory.ts";
import type { LoadStatus } from "./progress.ts";
import { listCachedModels, requestPersistentStorage, storageInfo, type CachedModel, type StorageInfo } from "./storage.ts";
import type { GpuProbe, ModelSpec } from "./types.ts";

export class EngineNotConfiguredError extends EngineError {
  override name = "EngineNotConfiguredError";
}

/** Resolves the models the settings ask for, with the f16 → f32 swap the GPU may need. */
export function resolveLocalModels(
  s: WebLLMSettings,
  probe: GpuProbe | null,
  recommendation: Recommendation | null,
): { root: { spec: ModelSpec; window: number }; sub?: { spec: ModelSpec; window: number }; notes: string[] } {
  const notes: string[] = [];
  const find = (id: string): ModelSpec | undefined => {
    const custom = s.customModels.find((m) => m.id === id);
    if (custom)
      return customModelSpec(
        custom,
        CATALOG.map((e) => e.id),
      );
    return findCatalogEntry(id);
  };
  const pick = (id: string): ModelSpec => {
    const spec = find(id);
    if (!spec) throw new EngineNotConfiguredError(`The model ${id} is not in the catalog. Choose another in Settings.`);
    if (!probe) return spec;
    const choice = chooseVariant(spec, probe);
    if (choice.note) notes.push(choice.note);
    return choice.spec;
  };
  const rootId = s.modelId || recommendation?.entry.id;
  if (!rootId) {
    throw new EngineNotConfiguredError("No local model is chosen. Open Settings and pick one, or use an OpenAI-compatible endpoint.");
  }
  const root = pick(rootId);
  const rootWindow = Math.min(s.contextWindow || defaultWindowFor(root), root.maxContextWindow);
  const result: ReturnType<typeof resolveLocalModels> = { root: { spec: root, window: rootWindow }, notes };
  if (s.subModelId && s.subModelId !== rootId) {
    const sub = pick(s.subModelId);
    result.sub = { spec: sub, window: Math.min(rootWindow, sub.maxContextWindow) };
  }
  return result;
}

export class WebLLMHost implements EngineHost {
  status = $state<EngineStatus>({ state: "idle", label: "" });
  gpu = $state<GpuProbe | null>(null);
  recommendation = $state<Recommendation | null>(null);
  cached = $state<CachedModel[]>([]);
  storage = $state<StorageInfo | null>(null);
  notes = $state<string[]>([]);
  /** Whether `cached` has been read at least once (so "not downloaded" is known, not assumed). */
  cacheKnown = $state(false);
  readonly knownWindow = undefined;
  readonly unavailableReason = "no WebGPU here";

  private local: { key: string; engines: WebLLMEngines } | null = null;
  /** The settings the status is about: a failure stays shown until another model or window is chosen. */
  private statusKey = "";
  /** What the loaded model's status said before a call failed, to say again once a call answers. */
  private readyDetail = "";
  private loading: Promise<WebLLMEngines> | null = null;
  private cacheWorker: ModelWorkerClient | null = null;

  constructor(private readonly ctx: HostContext) {
    this.setStatus({ state: "idle", label: this.label() });
  }

  private setStatus(status: EngineStatus): void {
    this.status = status;
    this.statusKey = this.key();
  }

  get available(): boolean | null {
    return this.gpu ? this.gpu.available : null;
  }

  private own(): WebLLMSettings {
    return this.ctx.settings().webllm;
  }

  private key(): string {
    return JSON.stringify([this.own(), this.recommendation?.entry.id ?? null]);
  }

  label(): string {
    const id = this.own().modelId || this.recommendation?.entry.id;
    if (!id) return this.gpu && !this.gpu.available ? "No WebGPU: use another engine" : "Local model: none chosen";
    return `${findCatalogEntry(id)?.label ?? id} (in browser)`;
  }

  /** The WebGPU adapter and the model recommended for it (no model worker needed). */
  async detect(): Promise<void> {
    try {
      this.gpu = await probeGpu();
      const vram = this.own().userVramGB;
      this.recommendation = recommendModel(this.gpu, vram ? { userVramGB: vram } : {}) ?? null;
    } catch {
      this.gpu = { available: false, reason: "error", detail: "The WebGPU check failed.", deviceMemoryGB: undefined };
    }
    if (this.status.state === "idle") this.setStatus({ state: "idle", label: this.label() });
  }

  async probe(): Promise<void> {
    // The chip says whether the model is downloaded: that needs the cache listing.
    if (this.gpu?.available) await this.refreshCache();
  }

  missing(): string | null {
    if (this.gpu?.available === true && !this.own().modelId && !this.recommendation)
      return "Choose a model first: no local model is chosen.";
    return null;
  }

  settingsChanged(): void {
    if (this.local && this.local.key !== this.key()) {
      // Free the GPU memory of models no longer wanted.
      void this.local.engines.dispose();
      this.local = null;
    }
    // A failure is about the model and window it happened with: choosing an effort or a theme
    // does not make a model that failed to load work (it used to clear the red banner).
    const other = this.statusKey !== this.key();
    if (this.status.state === "idle" || (other && this.status.state !== "loading")) this.setStatus({ state: "idle", label: this.label() });
  }

  /** Lists downloaded models and storage use (loads the model worker, about 6 MB, once). */
  async refreshCache(): Promise<void> {
    try {
      this.cacheWorker ??= ModelWorkerClient.spawn();
      const custom = this.own().customModels.map((m) =>
        customModelSpec(
          m,
          CATALOG.map((e) => e.id),
        ),
      );
      this.cached = await listCachedModels(this.cacheWorker, [...CATALOG, ...custom]);
      this.storage = await storageInfo();
      this.cacheKnown = true;
    } catch (err) {
      this.notes = [`Could not list downloaded models: ${err instanceof Error ? err.message : String(err)}`];
    }
  }

  async deleteCached(model: CachedModel): Promise<void> {
    this.cacheWorker ??= ModelWorkerClient.spawn();
    if (this.local && [this.local.engines.root.model, this.local.engines.sub.model].includes(model.spec.id)) {
      await this.local.engines.dispose();
      this.local = null;
      this.setStatus({ state: "idle", label: this.label() });
    }
    await this.cacheWorker.deleteModel(model.spec.record);
    await this.refreshCache();
  }

  async keepDownloads(): Promise<void> {
    await requestPersistentStorage();
    this.storage = await storageInfo();
  }

  /** How much of the chosen local model is in the browser's cache; undefined until known. */
  download(): "complete" | "partial" | "none" | undefined {
    const id = this.own().modelId || this.recommendation?.entry.id;
    if (!id || !this.cacheKnown) return undefined;
    // The GPU may need the other quantization (q4f16 <-> q4f32): either counts.
    const ids = [id, findCatalogEntry(id)?.twinId];
    const entry = this.cached.find((c) => ids.includes(c.spec.id));
    return !entry ? "none" : entry.complete ? "complete" : "partial";
  }

  /** GPU memory the chosen local models would use together, when it can be estimated. */
  plannedVramMB(local: WebLLMSettings = this.own()): number | undefined {
    try {
      const r = resolveLocalModels(local, this.gpu, this.recommendation);
      return estimateWebLLMEnginesVramMB(
        { model: r.root.spec, contextWindow: r.root.window },
        r.sub ? { model: r.sub.spec, contextWindow: r.sub.window } : undefined,
      );
    } catch {
      return undefined;
    }
  }

  async forRun(): Promise<{ root: ChatEngine; sub: ChatEngine }> {
    const engines = await this.localEngines();
    return { root: engines.root, sub: engines.sub };
  }

  /** Loads (downloading once) the chosen local models; also used by the "Download now" button. */
  async localEngines(): Promise<WebLLMEngines> {
    const key = this.key();
    if (this.local?.key === key) return this.local.engines;
    if (this.loading) return this.loading;
    if (!this.gpu) await this.detect();
    const s = this.own();
    const resolved = resolveLocalModels(s, this.gpu, this.recommendation);
    this.notes = resolved.notes;
    const label = this.label();
    this.setStatus({ state: "loading", label, progress: 0, detail: "Preparing the model…" });
    this.loading = loadWebLLMEngines({
      root: { model: resolved.root.spec, contextWindow: resolved.root.window },
      ...(resolved.sub ? { sub: { model: resolved.sub.spec, contextWindow: resolved.sub.window } } : {}),
      thinking: s.thinking,
      ...(this.ctx.testSeams?.testGrammar ? { testGrammar: this.ctx.testSeams.testGrammar } : {}),
      onProgress: (role, p: LoadStatus) => {
        const prefix = resolved.sub ? (role === "root" ? "Root model: " : "Sub-call model: ") : "";
        this.setStatus({ state: "loading", label, progress: p.percent / 100, detail: prefix + p.message });
      },
    });
    try {
      const engines = await this.loading;
      this.local = { key, engines };
      const vram = engines.vramMB ? ` · about ${(engines.vramMB / 1024).toFixed(1)} GB of GPU memory` : "";
      this.readyDetail = `${engines.root.contextWindow.toLocaleString("en-US")}-token window${vram}`;
      this.setStatus({ state: "ready", label, detail: this.readyDetail });
      void this.refreshCache();
      return engines;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const name = err instanceof Error ? err.name : "";
      this.setStatus({ state: "error", label, message, canReload: name === "GpuDeviceLostError" });
      throw err;
    } finally {
      this.loading = null;
    }
  }

  reportCall(_role: "root" | "sub", failure: unknown): void {
    if (!this.local || this.local.key !== this.key() || this.status.state === "loading") return;
    if (failure === null) {
      if (this.status.state === "error") this.setStatus({ state: "ready", label: this.label(), detail: this.readyDetail });
    } else if (meansModelUnavailable(failure)) {
      const err = failure as Error;
      this.setStatus({ state: "error", label: this.label(), message: err.message, canReload: err.name === "GpuDeviceLostError" });
    }
  }

  async release(): Promise<void> {
    const local = this.local;
    this.local = null;
    await local?.engines.dispose();
  }

  /** After a lost GPU device: load the same models again; the conversation is kept. */
  async reload(): Promise<void> {
    await this.release().catch(() => undefined);
    await this.localEngines();
  }

  describe(): { root: EngineLabel; sub: EngineLabel } | null {
    if (this.local) return { root: this.local.engines.root, sub: this.local.engines.sub };
    const s = this.own();
    const label: EngineLabel = { model: s.modelId, backend: "webllm", contextWindow: s.contextWindow };
    return { root: label, sub: label };
  }
}
