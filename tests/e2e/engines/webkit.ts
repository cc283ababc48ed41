// WebKitGTK (the engine of Safari and GNOME Web) through Debian's WebKitWebDriver, which starts
// MiniBrowser; both need a display, so the driver runs under xvfb-run. Each page is its own
// WebDriver session, i.e. its own MiniBrowser with an ephemeral profile.
//
// What the automation cannot do here: emulate the network (setOffline returns false; tests take
// the site away instead), or report page errors (a collector is installed after each load).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fillElement, findTarget, installErrorCollector, pageExpression, takeCollectedErrors } from "./page-side.ts";
import { waitUntil } from "../waits.ts";
import { waitUntilClickable } from "./wait.ts";
import type { EngineBrowser, EnginePage, FileSpec, PageOptions, Target } from "./types.ts";
import { WebDriverSession, isElementRef, type ElementRef } from "./webdriver.ts";

export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER_PATH ?? "/usr/bin/WebKitWebDriver";
export const XVFB_RUN = process.env.XVFB_RUN_PATH ?? "/usr/bin/xvfb-run";

/** Runs a page-side function and hands back its result or its error, over the async endpoint. */
const ASYNC_WRAPPER = `const done = arguments[arguments.length - 1];
Promise.resolve().then(() => EXPR).then(
  (value) => done({ ok: true, value: value === undefined ? null : value }),
  (error) => done({ ok: false, error: String((error && error.stack) || error) }));`;

class WebKitPage implements EnginePage {
  readonly engine = "webkit" as const;
  private readonly seen: string[] = [];
  private readonly uploads = mkdtempSync(join(tmpdir(), "rlm-wk-upload-"));
  constructor(private readonly session: WebDriverSession) {}

  private async element(target: Target): Promise<ElementRef> {
    const el = await this.session.executeSync(`return ${pageExpression(findTarget, target)};`);
    if (!isElementRef(el)) throw new Error(`No element for ${JSON.stringify(target)}`);
    return el;
  }

  private async afterLoad() {
    // Best effort: on a busy machine WebKit's driver can time out a script while the page is
    // still starting; a later try (or the next load) installs the collector.
    await waitUntil(() => this.session.executeSync(`${pageExpression(installErrorCollector, null)}; return true;`), {
      timeout: 3_000,
      interval: 1_000,
      what: "the page to take the error collector",
    }).catch(() => undefined);
  }

  private async collect() {
    const taken = await this.session.executeSync(`return ${pageExpression(takeCollectedErrors, null)};`).catch(() => []);
    if (Array.isArray(taken)) this.seen.push(...taken.map(String));
  }

  async goto(url: string) {
    await this.collect();
    await this.session.navigate(url);
    await this.afterLoad();
  }
  async reload() {
    await this.collect();
    await this.session.refresh();
    await this.afterLoad();
  }
  async evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R> {
    const script = ASYNC_WRAPPER.replace("EXPR", () => pageExpression(fn as (arg: never) => unknown, arg));
    const result = (await this.session.executeAsync(script)) as { ok: boolean; value?: R; error?: string };
    if (!result.ok) throw new Error(`In the page: ${result.error}`);
    return result.value as R;
  }
  async click(target: Target) {
    // WebDriver refuses a click on an obscured element (a toast on top): wait, as a person would.
    await waitUntilClickable(this, target);
    await this.session.click(await this.element(target));
  }
  async fill(target: Target, text: string) {
    const ok = await this.session.executeSync(`return ${pageExpression(fillElement, { target, text })};`);
    if (!ok) throw new Error(`No element for ${JSON.stringify(target)}`);
  }
  async setInputFiles(target: Target, files: FileSpec[]) {
    // WebDriver sets a file input by "typing" the paths, one per line.
    const dir = mkdtempSync(join(this.uploads, "set-"));
    const paths = files.map((f) => {
      const path = join(dir, f.name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.buffer);
      return path;
    });
    await this.session.sendKeys(await this.element(target), paths.join("\n"));
  }
  async setOffline() {
    return false;
  }
  async screenshot(path: string) {
    writeFileSync(path, Buffer.from(await this.session.screenshot(), "base64"));
  }
  async errors() {
    await this.collect();
    return this.seen.slice();
  }
  async close() {
    await this.session.delete().catch(() => undefined);
    rmSync(this.uploads, { recursive: true, force: true });
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForDriver(url: string, driver: ChildProcess): Promise<void> {
  let exited = false;
  await waitUntil(
    async () => {
      exited = driver.exitCode !== null;
      return exited || (await fetch(`${url}/status`).then((r) => r.ok));
    },
    { timeout: 30_000, interval: 200, what: "WebKitWebDriver to start" },
  );
  if (exited) throw new Error(`WebKitWebDriver exited with code ${driver.exitCode}`);
}

/** One WebKitWebDriver under its own Xvfb: the driver allows a single session at a time. */
async function startDriver(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  // Its own process group, so stopping takes Xvfb, the driver and MiniBrowser with it.
  const driver = spawn(XVFB_RUN, ["-a", "-s", "-screen 0 1280x1024x24", WEBKIT_DRIVER, `--port=${port}`], {
    detached: true,
    stdio: "ignore",
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () => {
    try {
      if (driver.pid) process.kill(-driver.pid, "SIGTERM");
    } catch {
      // already gone
    }
  };
  try {
    await waitForDriver(url, driver);
  } catch (err) {
    stop();
    throw err;
  }
  return { url, stop };
}

export async function launchWebKit(): Promise<EngineBrowser> {
  if (!existsSync(WEBKIT_DRIVER)) throw new Error(`${WEBKIT_DRIVER} is missing: apt-get install webkit2gtk-driver`);
  const open = new Set<EnginePage>();
  let version = "WebKitGTK";
  return {
    engine: "webkit",
    get version() {
      return version;
    },
    async newPage(options: PageOptions = {}) {
      const driver = await startDriver();
      let session: WebDriverSession;
      try {
        session = await WebDriverSession.create(driver.url, { "webkitgtk:browserOptions": { args: ["--automation"] } });
        version = `WebKitGTK ${String(session.capabilities.browserVersion ?? "")}`.trim();
        await session.setTimeouts({ script: 300_000, pageLoad: 120_000 });
        await session.setWindowRect(options.viewport ?? { width: 1280, height: 860 }).catch(() => undefined);
      } catch (err) {
        driver.stop();
        throw err;
      }
      const page = new WebKitPage(session);
      const close = page.close.bind(page);
      page.close = async () => {
        open.delete(page);
        await close();
        driver.stop();
      };
      open.add(page);
      return page;
    },
    async close() {
      for (const page of [...open]) await page.close();
    },
  };
}
