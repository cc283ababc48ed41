// The page's side of an OpenAI-compatible endpoint: is it there and does it offer the chosen model
// (the chip is green only then), and the connected engines for a run.
import type { EngineHost, EngineLabel, HostContext } from "../../app/engine-host.ts";
import type { EngineStatus } from "../descriptor.ts";
import { EngineError, EngineHttpError, EngineUnreachableError, meansModelUnavailable } from "../errors.ts";
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

/** What asking the endpoint for its models found. */
type Check =
  | { ok: true; window: number | undefined }
  /** `definite`: a question would fail the same way (unreachable, refused key, model not offered), so none is sent. */
  | { ok: false; error: Error; definite: boolean };

/** The chip's words for why the endpoint cannot answer. */
function briefFor(err: unknown): string {
  if (err instanceof EngineUnreachableError) return "not reachable";
  if (err instanceof EngineHttpError && (err.status === 401 || err.status === 403)) return "key refused";
  if (err instanceof ModelNotOfferedError) return "model not offered";
  return "not available";
}

class ModelNotOfferedError extends EngineError {
  override name = "ModelNotOfferedError";
}

export class OpenAIHost implements EngineHost {
  status = $state<EngineStatus>({ state: "idle", label: "" });
  readonly available = true;
  readonly unavailableReason = "";
  /** The endpoint's window as its server reports it. */
  knownWindow = $state<number | undefined>();

  private connected: { key: string; root: ChatEngine; sub: ChatEngine } | null = null;
  /** The settings the last run's engines were made for: their calls report only while these hold. */
  private runKey = "";
  private checks = 0;
  /** The settings the status is about: another endpoint or model starts from "not checked". */
  private statusKey = "";
  /** The last failed call of each role, until a call of that role answers or the endpoint is checked again. */
  private failedCalls: Partial<Record<"root" | "sub", string>> = {};

  constructor(private readonly ctx: HostContext) {
    this.status = { state: "idle", label: this.label() };
    this.statusKey = this.key();
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
    // Another endpoint or model is not known to work yet; any other setting (an effort, the theme)
    // leaves what is known about this one as it is.
    if (this.statusKey !== this.key() && this.status.state !== "loading") this.setStatus({ state: "idle", label: this.label() });
  }

  private setStatus(status: EngineStatus): void {
    this.status = status;
    this.statusKey = this.key();
  }

  /**
   * Asks the endpoint for its models (GET /models): the chip turns green only for a server that
   * answers and lists the chosen model (and the sub-call model). Before this, a server refusing
   * connections showed the same chip as a working one until a question failed (issue 15).
   */
  async probe(): Promise<void> {
    if (this.own().model.trim()) await this.check();
  }

  /** The check behind the status, for the chip and before a run: never throws, sets the status unless settings changed meanwhile. */
  private async check(): Promise<Check> {
    const s = this.own();
    const model = s.model.trim();
    const subModel = s.subModel.trim();
    const check = ++this.checks;
    const key = this.key();
    const label = this.label();
    if (this.status.state === "idle" || this.status.state === "error") this.setStatus({ state: "connecting", label });
    const current = () => check === this.checks && key === this.key();
    const failed = (error: Error, definite: boolean): Check => {
      if (current()) {
        this.connected = null; // the next question connects afresh instead of reusing a dead engine
        this.setStatus({ state: "error", label, message: error.message, canReload: false, brief: briefFor(error) });
      }
      return { ok: false, error, definite };
    };
    let models: Awaited<ReturnType<typeof listServerModels>>;
    try {
      models = await listServerModels(s.baseUrl, apiKeyFor(s) || undefined);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      // A server without a model list (404) or with an odd one may still answer questions.
      const definite =
        err instanceof EngineUnreachableError || (err instanceof EngineHttpError && (err.status === 401 || err.status === 403));
      return failed(error, definite);
    }
    const offered = (id: string) => !models.length || models.some((m) => m.id === id);
    const missing = [model, subModel].find((id) => id && !offered(id));
    if (missing) {
      const list = models
        .slice(0, 5)
        .map((m) => m.id)
        .join(", ");
      const what = missing === model ? "the model" : "the sub-call model";
      return failed(
        new ModelNotOfferedError(
          `The server at ${hostOf(s.baseUrl)} does not offer ${what} ${missing} (it lists ${list}). Open Settings and pick one of its models.`,
        ),
        true,
      );
    }
    const window = s.contextWindow || models.find((m) => m.id === model)?.contextWindow;
    if (current()) {
      this.knownWindow = window;
      this.failedCalls = {};
      this.setStatus({ state: "ready", label, detail: this.readyDetail(window) });
    }
    return { ok: true, window };
  }

  private readyDetail(window: number | undefined): string {
    return window ? `reachable · ${window.toLocaleString("en-US")}-token window` : "reachable";
  }

  /**
   * The engines for a run. The endpoint is asked first, as for the chip: a question is not sent to
   * a server that cannot take it, and "connected" is said only of one that answered. (The engine
   * used to be built on a guess when the server did not answer, and the chip turned green.)
   */
  async forRun(): Promise<{ root: ChatEngine; sub: ChatEngine }> {
    const s = this.own();
    const key = this.key();
    if (this.connected?.key === key) {
      this.runKey = key;
      return this.connected;
    }
    if (!s.model.trim()) {
      throw new EngineError("No model is set for the OpenAI-compatible endpoint. Open Settings and enter the model name.");
    }
    const checked = await this.check();
    if (!checked.ok && checked.definite) throw checked.error;
    const window = (checked.ok ? checked.window : undefined) ?? (s.contextWindow || undefined);
    const root = new OpenAIEngine({
      baseUrl: s.baseUrl,
      model: s.model.trim(),
      // Only a key saved for this endpoint's origin (never one saved for another host).
      ...(apiKeyFor(s) ? { apiKey: apiKeyFor(s) } : {}),
      // The window the person set, else the server's; else the engine's default, as before.
      ...(window ? { contextWindow: window } : {}),
      stream: s.stream,
    });
    const sub = s.subModel.trim() ? root.withModel(s.subModel.trim()) : root;
    const engines = { key, root, sub };
    this.runKey = key;
    // An endpoint that did not answer its model list is asked again next time (it may be up by then).
    if (checked.ok) this.connected = engines;
    return engines;
  }

  reportCall(role: "root" | "sub", failure: unknown): void {
    if (this.runKey !== this.key()) return; // another endpoint or model was chosen meanwhile
    if (failure !== null) {
      // One request turned down (too long, rate-limited) says nothing against the endpoint.
      if (!meansModelUnavailable(failure)) return;
      const s = this.own();
      const sub = s.subModel.trim();
      const prefix = role === "sub" && sub && sub !== s.model.trim() ? `The sub-call model ${sub}: ` : "";
      this.failedCalls[role] = prefix + (failure as Error).message;
      this.connected = null; // check the endpoint again before the next question
      this.setStatus({ state: "error", label: this.label(), message: this.failedCalls[role], canReload: false, brief: briefFor(failure) });
      return;
    }
    delete this.failedCalls[role];
    // The other role's failure still stands (a sub-call model the server lacks, under a working root).
    if (this.failedCalls.root ?? this.failedCalls.sub) return;
    if (this.status.state !== "ready") this.setStatus({ state: "ready", label: this.label(), detail: this.readyDetail(this.knownWindow) });
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
