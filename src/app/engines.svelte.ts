// Which model answers: builds root and sub engines from the settings (a local WebLLM model or an
// OpenAI-compatible endpoint), keeps them while the settings stay the same, and reports their
// state, GPU and download progress to the page.
import type { ChatEngine } from "../engines/types.ts";
import { OpenAIEngine, listServerModels } from "../engines/openai.ts";
import {
  CATALOG,
  ModelWorkerClient,
  chooseVariant,
  customModelSpec,
  defaultWindowFor,
  estimateWebLLMEnginesVramMB,
  findCatalogEntry,
  listCachedModels,
  loadWebLLMEngines,
  probeGpu,
  recommendModel,
  requestPersistentStorage,
  storageInfo,
  type CachedModel,
  type GpuProbe,
  type LoadStatus,
  type ModelSpec,
  type Recommendation,
  type StorageInfo,
  type WebLLMEngines,
} from "../engines/webllm/index.ts";
import { WllamaHost } from "../engines/wllama/host.svelte.ts";
import { apiKeyFor, type Settings } from "./settings.ts";

export type EngineStatus =
  | { state: "idle"; label: string }
  | { state: "connecting"; label: string }
  | { state: "loading"; label: string; progress: number; detail: string }
  | { state: "ready"; label: string; detail: string }
  | { state: "error"; label: string; message: string; canReload: boolean };

type EngineLabel = Pick<ChatEngine, "model" | "backend" | "contextWindow">;

export class EngineNotConfiguredError extends Error {
  override name = "EngineNotConfiguredError";
}

/** Resolves the models the settings ask for, with the f16 → f32 swap the GPU may need. */
export function resolveLocalModels(
  s: Settings["webllm"],
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

export class EngineManager {
  /** The WebLLM / endpoint state; llama.cpp's comes from its host (see `status`). */
  private baseStatus = $state<EngineStatus>({ state: "idle", label: "No model yet" });
  /** llama.cpp in the page (CPU): its stored GGUF models and the loaded one. */
  readonly wllama = new WllamaHost();
  gpu = $state<GpuProbe | null>(null);
  recommendation = $state<Recommendation | null>(null);
  cached = $state<CachedModel[]>([]);
  storage = $state<StorageInfo | null>(null);
  notes = $state<string[]>([]);
  /** Whether `cached` has been read at least once (so "not downloaded" is known, not assumed). */
  cacheKnown = $state(false);
  /** The endpoint's window as its server reports it (for estimates before any question). */
  endpointWindow = $state<number | undefined>();

  private openai: { key: string; root: ChatEngine; sub: ChatEngine } | null = null;
  private local: { key: string; engines: WebLLMEngines } | null = null;
  private loading: Promise<WebLLMEngines> | null = null;
  private cacheWorker: ModelWorkerClient | null = null;

  /**
   * `choose` switches the saved backend (to llama.cpp when the browser has no WebGPU and the
   * settings still name WebLLM, which cannot run there).
   */
  constructor(
    private readonly settings: () => Settings,
    private readonly choose: (backend: Settings["backend"]) => void = () => undefined,
  ) {
    this.baseStatus = { state: "idle", label: this.label() };
  }

  /** What the header chip and banner show. */
  get status(): EngineStatus {
    if (this.settings().backend !== "wllama") return this.baseStatus;
    const label = this.label();
    const h = this.wllama.status;
    switch (h.state) {
      case "idle":
        return { state: "idle", label };
      case "loading":
        return { state: "loading", label, progress: h.progress, detail: h.detail };
      case "ready":
        return { state: "ready", label, detail: h.detail };
      case "error":
        return { state: "error", label, message: h.message, canReload: false };
    }
  }

  private label(): string {
    const s = this.settings();
    if (s.backend === "wllama") return this.wllama.label(s.wllama);
    if (s.backend === "openai")
      return s.openai.model ? `${s.openai.model} @ ${hostOf(s.openai.baseUrl)}` : "OpenAI-compatible: no model set";
    const id = s.webllm.modelId || this.recommendation?.entry.id;
    if (!id) return this.gpu && !this.gpu.available ? "No WebGPU: use an endpoint" : "Local model: none chosen";
    return `${findCatalogEntry(id)?.label ?? id} (in browser)`;
  }

  private key(): string {
    const s = this.settings();
    if (s.backend === "wllama") return JSON.stringify(["wllama", s.wllama]);
    return JSON.stringify(s.backend === "openai" ? ["openai", s.openai] : ["webllm", s.webllm, this.recommendation?.entry.id ?? null]);
  }

  settingsChanged(): void {
    const key = this.key();
    if (this.openai && this.openai.key !== key) this.openai = null;
    if (this.local && this.local.key !== key) {
      // Free the GPU memory of models no longer wanted.
      void this.local.engines.dispose();
      this.local = null;
    }
    // llama.cpp's memory (the whole model) is freed when another backend is chosen; a change of
    // its own model or window reloads on the next question.
    if (this.settings().backend !== "wllama") void this.wllama.unload();
    else void this.wllama.refresh().catch(() => undefined);
    if (this.baseStatus.state !== "loading") this.baseStatus = { state: "idle", label: this.label() };
    void this.probeEndpoint();
  }

  private endpointProbes = 0;

  /**
   * Asks the endpoint for its models (GET /models): the chip turns green only for a server that
   * answers and lists the chosen model. Before this, a server refusing connections showed the
   * same chip as a working one until a question failed (issue 15).
   */
  async probeEndpoint(): Promise<void> {
    const s = this.settings();
    const model = s.openai.model.trim();
    if (s.backend !== "openai" || !model) return;
    const probe = ++this.endpointProbes;
    const key = this.key();
    const label = this.label();
    if (this.baseStatus.state === "idle") this.baseStatus = { state: "connecting", label };
    const stale = () => probe !== this.endpointProbes || key !== this.key();
    try {
      const models = await listServerModels(s.openai.baseUrl, apiKeyFor(s.openai) || undefined);
      if (stale()) return;
      const listed = models.find((m) => m.id === model);
      if (models.length && !listed) {
        const offered = models
          .slice(0, 5)
          .map((m) => m.id)
          .join(", ");
        this.baseStatus = {
          state: "error",
          label,
          message: `The server at ${hostOf(s.openai.baseUrl)} does not offer the model ${model} (it lists ${offered}). Open Settings and pick one of its models.`,
          canReload: false,
        };
        return;
      }
      const window = s.openai.contextWindow || listed?.contextWindow;
      this.endpointWindow = window;
      if (this.baseStatus.state !== "ready")
        this.baseStatus = {
          state: "ready",
          label,
          detail: window ? `reachable · ${window.toLocaleString("en-US")}-token window` : "reachable",
        };
    } catch (err) {
      if (stale()) return;
      this.openai = null; // the next question connects afresh instead of reusing a dead engine
      this.baseStatus = { state: "error", label, message: err instanceof Error ? err.message : String(err), canReload: false };
    }
  }

  /** Cheap checks (WebGPU adapter, recommendation) so the page can guide the user. */
  async probe(): Promise<void> {
    try {
      this.gpu = await probeGpu();
      this.recommendation =
        recommendModel(this.gpu, this.settings().webllm.userVramGB ? { userVramGB: this.settings().webllm.userVramGB } : {}) ?? null;
    } catch {
      this.gpu = { available: false, reason: "error", detail: "The WebGPU check failed.", deviceMemoryGB: undefined };
    }
    // WebLLM cannot run without WebGPU; llama.cpp on the CPU can, so it becomes the default there.
    if (!this.gpu.available && this.settings().backend === "webllm") this.choose("wllama");
    if (this.settings().backend === "wllama") void this.wllama.refresh().catch(() => undefined);
    if (this.baseStatus.state === "idle") this.baseStatus = { state: "idle", label: this.label() };
    // The chip says whether the local model is downloaded: that needs the cache listing.
    if (this.gpu.available && this.settings().backend === "webllm") void this.refreshCache();
    await this.probeEndpoint();
  }

  /** Lists downloaded models and storage use (loads the model worker, about 6 MB, once). */
  async refreshCache(): Promise<void> {
    try {
      this.cacheWorker ??= ModelWorkerClient.spawn();
      const custom = this.settings().webllm.customModels.map((m) =>
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
      this.baseStatus = { state: "idle", label: this.label() };
    }
    await this.cacheWorker.deleteModel(model.spec.record);
    await this.refreshCache();
  }

  async keepDownloads(): Promise<void> {
    await requestPersistentStorage();
    this.storage = await storageInfo();
  }

  /** How much of the chosen local model is in the browser's cache; undefined until known. */
  localDownload(): "complete" | "partial" | "none" | undefined {
    const id = this.settings().webllm.modelId || this.recommendation?.entry.id;
    if (!id || !this.cacheKnown) return undefined;
    // The GPU may need the other quantization (q4f16 <-> q4f32): either counts.
    const ids = [id, findCatalogEntry(id)?.twinId];
    const entry = this.cached.find((c) => ids.includes(c.spec.id));
    return !entry ? "none" : entry.complete ? "complete" : "partial";
  }

  /** GPU memory the chosen local models would use together, when it can be estimated. */
  plannedVramMB(local: Settings["webllm"] = this.settings().webllm): number | undefined {
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

  /** The engines for the next run, connecting to the endpoint or loading local models. */
  async forRun(): Promise<{ root: ChatEngine; sub: ChatEngine }> {
    const s = this.settings();
    if (s.backend === "openai") return this.openaiEngines(s);
    if (s.backend === "wllama") {
      this.wllama.newQuestion();
      return this.wllama.forRun(s.wllama);
    }
    const engines = await this.localEngines();
    return { root: engines.root, sub: engines.sub };
  }

  private async openaiEngines(s: Settings): Promise<{ root: ChatEngine; sub: ChatEngine }> {
    const key = this.key();
    if (this.openai?.key === key) return this.openai;
    if (!s.openai.model.trim()) {
      throw new EngineNotConfiguredError("No model is set for the OpenAI-compatible endpoint. Open Settings and enter the model name.");
    }
    this.baseStatus = { state: "connecting", label: this.label() };
    try {
      const root = await OpenAIEngine.connect({
        baseUrl: s.openai.baseUrl,
        model: s.openai.model.trim(),
        // Only a key saved for this endpoint's origin (never one saved for another host).
        ...(apiKeyFor(s.openai) ? { apiKey: apiKeyFor(s.openai) } : {}),
        ...(s.openai.contextWindow ? { contextWindow: s.openai.contextWindow } : {}),
        stream: s.openai.stream,
      });
      const sub = s.openai.subModel.trim() ? root.withModel(s.openai.subModel.trim()) : root;
      this.openai = { key, root, sub };
      this.endpointWindow = root.contextWindow;
      this.baseStatus = { state: "ready", label: this.label(), detail: `${root.contextWindow.toLocaleString("en-US")}-token window` };
      return this.openai;
    } catch (err) {
      this.baseStatus = {
        state: "error",
        label: this.label(),
        message: err instanceof Error ? err.message : String(err),
        canReload: false,
      };
      throw err;
    }
  }

  /** Loads (downloading once) the chosen local models; also used by the "Load now" button. */
  async localEngines(): Promise<WebLLMEngines> {
    const key = this.key();
    if (this.local?.key === key) return this.local.engines;
    if (this.loading) return this.loading;
    if (!this.gpu) await this.probe();
    const s = this.settings().webllm;
    const resolved = resolveLocalModels(s, this.gpu, this.recommendation);
    this.notes = resolved.notes;
    const label = this.label();
    this.baseStatus = { state: "loading", label, progress: 0, detail: "Preparing the model…" };
    this.loading = loadWebLLMEngines({
      root: { model: resolved.root.spec, contextWindow: resolved.root.window },
      ...(resolved.sub ? { sub: { model: resolved.sub.spec, contextWindow: resolved.sub.window } } : {}),
      thinking: s.thinking,
      onProgress: (role, p: LoadStatus) => {
        const prefix = resolved.sub ? (role === "root" ? "Root model: " : "Sub-call model: ") : "";
        this.baseStatus = { state: "loading", label, progress: p.percent / 100, detail: prefix + p.message };
      },
    });
    try {
      const engines = await this.loading;
      this.local = { key, engines };
      const vram = engines.vramMB ? ` · about ${(engines.vramMB / 1024).toFixed(1)} GB of GPU memory` : "";
      this.baseStatus = { state: "ready", label, detail: `${engines.root.contextWindow.toLocaleString("en-US")}-token window${vram}` };
      void this.refreshCache();
      return engines;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const name = err instanceof Error ? err.name : "";
      this.baseStatus = { state: "error", label, message, canReload: name === "GpuDeviceLostError" };
      throw err;
    } finally {
      this.loading = null;
    }
  }

  /** After a lost GPU device: load the same models again; the conversation is kept. */
  async reloadModel(): Promise<void> {
    if (this.local) {
      await this.local.engines.dispose().catch(() => undefined);
      this.local = null;
    }
    await this.localEngines();
  }

  /** Model names for trajectory metadata, even before any engine exists. */
  describe(): { root: EngineLabel; sub: EngineLabel } {
    if (this.openai && this.settings().backend === "openai") return { root: this.openai.root, sub: this.openai.sub };
    if (this.local && this.settings().backend === "webllm") return { root: this.local.engines.root, sub: this.local.engines.sub };
    const s = this.settings();
    if (s.backend === "wllama") {
      const label: EngineLabel = { model: this.wllama.label(s.wllama), backend: "wllama", contextWindow: s.wllama.contextWindow };
      return { root: label, sub: label };
    }
    const root: EngineLabel =
      s.backend === "openai"
        ? { model: s.openai.model, backend: "openai", contextWindow: s.openai.contextWindow || 0 }
        : { model: s.webllm.modelId, backend: "webllm", contextWindow: s.webllm.contextWindow };
    return { root, sub: root };
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
