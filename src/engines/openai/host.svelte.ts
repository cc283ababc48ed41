// The page's side of an OpenAI-compatible endpoint: is it there and does it offer the chosen model
// (the chip is green only then), and the connected engines for a run.
import type { EngineHost, EngineLabel, HostContext } from "../../app/engine-host.ts";
import type { EngineStatus } from "../descriptor.ts";
import { EngineError } from "../errors.ts";
import { OpenAIEngine, listServerModels } from "../openai.ts";
import type { ChatEngine } from "../types.ts";
import { apiKeyFor, type OpenAISettings } from "./descriptor.ts";

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export class OpenAIHost implements EngineHost {
  status = $state<EngineStatus>({ state: "idle", label: "" });
  readonly available = true;
  readonly unavailableReason = "";
  /** The endpoint's window as its server reports it. */
  knownWindow = $state<number | undefined>();

  private connected: { key: string; root: ChatEngine; sub: ChatEngine } | null = null;
  private probes = 0;

  constructor(private readonly ctx: HostContext) {
    this.status = { state: "idle", label: this.label() };
  }

  private own(): OpenAISettings {
    return this.ctx.settings().openai;
  }

  private key(): string {
    return JSON.stringify(this.own());
  }

  label(): string {
    const s = this.own();
    return s.model ? `${s.model} @ ${hostOf(s.baseUrl)}` : "OpenAI-compatible: no model set";
  }

  download(): undefined {
    return undefined;
  }

  async detect(): Promise<void> {}

  missing(): null {
    return null;
  }

  settingsChanged(): void {
    if (this.connected && this.connected.key !== this.key()) this.connected = null;
    if (this.status.state !== "loading") this.status = { state: "idle", label: this.label() };
  }

  /**
   * Asks the endpoint for its models (GET /models): the chip turns green only for a server that
   * answers and lists the chosen model. Before this, a server refusing connections showed the
   * same chip as a working one until a question failed (issue 15).
   */
  async probe(): Promise<void> {
    const s = this.own();
    const model = s.model.trim();
    if (!model) return;
    const probe = ++this.probes;
    const key = this.key();
    const label = this.label();
    if (this.status.state === "idle") this.status = { state: "connecting", label };
    const stale = () => probe !== this.probes || key !== this.key();
    try {
      const models = await listServerModels(s.baseUrl, apiKeyFor(s) || undefined);
      if (stale()) return;
      const listed = models.find((m) => m.id === model);
      if (models.length && !listed) {
        const offered = models
          .slice(0, 5)
          .map((m) => m.id)
          .join(", ");
        this.status = {
          state: "error",
          label,
          message: `The server at ${hostOf(s.baseUrl)} does not offer the model ${model} (it lists ${offered}). Open Settings and pick one of its models.`,
          canReload: false,
        };
        return;
      }
      const window = s.contextWindow || listed?.contextWindow;
      this.knownWindow = window;
      if (this.status.state !== "ready")
        this.status = {
          state: "ready",
          label,
          detail: window ? `reachable · ${window.toLocaleString("en-US")}-token window` : "reachable",
        };
    } catch (err) {
      if (stale()) return;
      this.connected = null; // the next question connects afresh instead of reusing a dead engine
      this.status = { state: "error", label, message: err instanceof Error ? err.message : String(err), canReload: false };
    }
  }

  async forRun(): Promise<{ root: ChatEngine; sub: ChatEngine }> {
    const s = this.own();
    const key = this.key();
    if (this.connected?.key === key) return this.connected;
    if (!s.model.trim()) {
      throw new EngineError("No model is set for the OpenAI-compatible endpoint. Open Settings and enter the model name.");
    }
    this.status = { state: "connecting", label: this.label() };
    try {
      const root = await OpenAIEngine.connect({
        baseUrl: s.baseUrl,
        model: s.model.trim(),
        // Only a key saved for this endpoint's origin (never one saved for another host).
        ...(apiKeyFor(s) ? { apiKey: apiKeyFor(s) } : {}),
        ...(s.contextWindow ? { contextWindow: s.contextWindow } : {}),
        stream: s.stream,
      });
      const sub = s.subModel.trim() ? root.withModel(s.subModel.trim()) : root;
      this.connected = { key, root, sub };
      this.knownWindow = root.contextWindow;
      this.status = { state: "ready", label: this.label(), detail: `${root.contextWindow.toLocaleString("en-US")}-token window` };
      return this.connected;
    } catch (err) {
      this.status = { state: "error", label: this.label(), message: err instanceof Error ? err.message : String(err), canReload: false };
      throw err;
    }
  }

  async release(): Promise<void> {
    this.connected = null;
  }

  async reload(): Promise<void> {
    this.connected = null;
    await this.forRun();
  }

  describe(): { root: EngineLabel; sub: EngineLabel } | null {
    if (this.connected) return { root: this.connected.root, sub: this.connected.sub };
    const s = this.own();
    const label: EngineLabel = { model: s.model, backend: "openai", contextWindow: s.contextWindow || 0 };
    return { root: label, sub: label };
  }
}
