// A small W3C WebDriver (classic) client over fetch: the dozen commands the e2e tests use.
// Chosen over webdriverio/selenium-webdriver because those bring large dependency trees for
// what is plain JSON over HTTP, and WebKitGTK's driver speaks nothing else reliably.

const ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf";

export type ElementRef = { [ELEMENT_KEY]: string };

export class WebDriverError extends Error {
  override name = "WebDriverError";
  constructor(command: string, error: string, message: string) {
    super(`WebDriver ${command} failed (${error}): ${message}`);
  }
}

export class WebDriverSession {
  private constructor(
    private readonly base: string,
    readonly id: string,
    readonly capabilities: Record<string, unknown>,
  ) {}

  static async create(driverUrl: string, capabilities: Record<string, unknown>): Promise<WebDriverSession> {
    const value = (await send(driverUrl, "POST", "/session", { capabilities: { alwaysMatch: capabilities } })) as {
      sessionId: string;
      capabilities: Record<string, unknown>;
    };
    return new WebDriverSession(driverUrl, value.sessionId, value.capabilities);
  }

  command(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<unknown> {
    return send(this.base, method, `/session/${this.id}${path}`, body);
  }

  navigate = (url: string) => this.command("POST", "/url", { url });
  refresh = () => this.command("POST", "/refresh", {});
  setTimeouts = (t: { script?: number; pageLoad?: number; implicit?: number }) => this.command("POST", "/timeouts", t);
  setWindowRect = (rect: { width: number; height: number }) => this.command("POST", "/window/rect", rect);
  executeSync = (script: string, args: unknown[] = []) => this.command("POST", "/execute/sync", { script, args });
  executeAsync = (script: string, args: unknown[] = []) => this.command("POST", "/execute/async", { script, args });
  click = (el: ElementRef) => this.command("POST", `/element/${el[ELEMENT_KEY]}/click`, {});
  clear = (el: ElementRef) => this.command("POST", `/element/${el[ELEMENT_KEY]}/clear`, {});
  sendKeys = (el: ElementRef, text: string) => this.command("POST", `/element/${el[ELEMENT_KEY]}/value`, { text });
  screenshot = async () => String(await this.command("GET", "/screenshot"));
  delete = () => this.command("DELETE", "");
}

export function isElementRef(v: unknown): v is ElementRef {
  return typeof v === "object" && v !== null && typeof (v as Record<string, unknown>)[ELEMENT_KEY] === "string";
}

async function send(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const payload = (await response.json().catch(() => ({}))) as { value?: { error?: string; message?: string } & unknown };
  if (!response.ok) {
    const v = (payload.value ?? {}) as { error?: string; message?: string };
    throw new WebDriverError(`${method} ${path}`, v.error ?? String(response.status), v.message ?? "");
  }
  return payload.value ?? null;
}
