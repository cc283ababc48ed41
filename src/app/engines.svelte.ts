// Which model answers: one host per engine in the registry (src/engines/registry.ts), each built by
// its folder's page.ts; this class asks the chosen one for engines, reports its state, and picks
// an engine that can run when the saved one cannot (WebLLM without WebGPU → llama.cpp on the CPU).
// Nothing here names an engine.
import type { EngineStatus } from "../engines/descriptor.ts";
import { ENGINES, engineDescriptor, type EngineId } from "../engines/registry.ts";
import type { ChatEngine } from "../engines/types.ts";
import type { EngineHost, EngineLabel, HostContext, TestSeams } from "./engine-host.ts";
import { ENGINE_PAGES } from "./engine-pages.ts";
import type { ReadingSpeed } from "./presets.ts";
import { modelView, type ModelView } from "./run-status.ts";
import type { Settings } from "./settings.ts";

export type { EngineStatus };

export class EngineManager {
  readonly hosts: Record<EngineId, EngineHost>;
  /** The engine that last served (its memory is freed when another is chosen). */
  private active: EngineId;

  /** `update` saves new settings (another engine chosen, a model file that became the model). */
  constructor(
    private readonly settings: () => Settings,
    private readonly update: (next: Settings) => void = () => undefined,
    storage: HostContext["storage"] = globalThis.localStorage ?? null,
    testSeams: TestSeams = {},
  ) {
    const ctx: HostContext = { settings, update, storage, testSeams };
    this.hosts = Object.fromEntries(ENGINES.map((e) => [e.id, ENGINE_PAGES[e.id].createHost(ctx)])) as Record<EngineId, EngineHost>;
    this.active = settings().backend;
  }

  /** The chosen engine's host. */
  host(id: EngineId = this.settings().backend): EngineHost {
    return this.hosts[id];
  }

  /** What the banner shows (and the chip, through `view`). */
  get status(): EngineStatus {
    return this.host().status;
  }

  /** The chosen model as the chip and the start's model step show it, from one place. */
  get view(): ModelView {
    const id = this.settings().backend;
    return modelView(this.host().status, id, {
      download: this.host().download(),
      missing: this.missing() !== null,
      available: this.available(id),
    });
  }

  /** Whether an engine can run in this browser (null: not known yet). */
  available(id: EngineId): boolean | null {
    return this.hosts[id].available;
  }

  /** The window the chosen engine is known to have (an endpoint's, once asked). */
  /** How fast the chosen local model reads prompts, when its engine knows (llama.cpp in the page). */
  readingSpeed(): ReadingSpeed | null {
    return this.host().readingSpeed?.() ?? null;
  }

  get knownWindow(): number | undefined {
    return this.host().knownWindow;
  }

  settingsChanged(): void {
    const chosen = this.settings().backend;
    // Settings that name an engine this browser cannot run (a link, an old profile): one that can.
    const fallback = this.fallbackFor(chosen);
    if (fallback) {
      this.update({ ...this.settings(), backend: fallback });
      return;
    }
    if (chosen !== this.active) {
      void this.hosts[this.active].release();
      this.active = chosen;
    }
    this.host().settingsChanged();
    void this.host().probe();
  }

  /**
   * Page start: every engine's cheap checks (is there WebGPU?), then, if the chosen engine cannot
   * run here, the first local one that can (registry order), then the chosen engine's own checks.
   */
  async probe(): Promise<void> {
    await Promise.all(ENGINES.map((e) => this.hosts[e.id].detect().catch(() => undefined)));
    const fallback = this.fallbackFor(this.settings().backend);
    if (fallback) this.update({ ...this.settings(), backend: fallback });
    await this.host().probe();
  }

  /** The first local engine (registry order) that can run when `id` cannot, else null. */
  private fallbackFor(id: EngineId): EngineId | null {
    if (this.hosts[id].available !== false) return null;
    return ENGINES.find((e) => e.local && e.id !== id && this.hosts[e.id].available !== false)?.id ?? null;
  }

  /** Why a question cannot go anywhere yet, or null: the settings first, then the browser. */
  missing(): { message: string; engine: EngineId } | null {
    const id = this.settings().backend;
    const own = (this.settings() as unknown as Record<string, object>)[id]!;
    const message = engineDescriptor(id).missing(own) ?? this.hosts[id].missing();
    return message ? { message, engine: id } : null;
  }

  /**
   * The engines for the next run, connecting or loading as needed. Every call they make reports
   * to their host, so a failed question feeds the status instead of leaving it as it was.
   */
  async forRun(): Promise<{ root: ChatEngine; sub: ChatEngine }> {
    this.active = this.settings().backend;
    const host = this.host();
    const { root, sub } = await host.forRun();
    const watchedRoot = reporting(root, (failure) => host.reportCall("root", failure));
    return { root: watchedRoot, sub: sub === root ? watchedRoot : reporting(sub, (failure) => host.reportCall("sub", failure)) };
  }

  /** After an error the banner offers: load or connect again. */
  reloadModel(): Promise<void> {
    return this.host().reload();
  }

  /** Model files dropped on the page that an engine takes (a .gguf), or null when none does. */
  fileTaker(names: string[]): EngineId | null {
    const taker = ENGINES.find((e) => {
      const kinds = this.hosts[e.id].fileKinds;
      return kinds && names.some((n) => kinds.test(n));
    });
    return taker?.id ?? null;
  }

  /** Model names for trajectory metadata, even before any engine exists. */
  describe(): { root: EngineLabel; sub: EngineLabel } {
    const id = this.settings().backend;
    const known = this.hosts[id].describe();
    if (known) return known;
    const label: EngineLabel = { model: "", backend: id, contextWindow: 0 };
    return { root: label, sub: label };
  }
}

/** The engine with each call's outcome reported (null: it answered); the call itself is unchanged. */
function reporting(engine: ChatEngine, report: (failure: unknown) => void): ChatEngine {
  return {
    // Every property the run reads of an engine passes through (the endpoint's baseUrl says
    // where the fallback's calls would go and whether they are billed).
    get baseUrl() {
      return engine.baseUrl;
    },
    get model() {
      return engine.model;
    },
    get backend() {
      return engine.backend;
    },
    get contextWindow() {
      return engine.contextWindow;
    },
    get maxConcurrency() {
      return engine.maxConcurrency;
    },
    async complete(request, options) {
      try {
        const result = await engine.complete(request, options);
        report(null);
        return result;
      } catch (err) {
        report(err);
        throw err;
      }
    },
  };
}
