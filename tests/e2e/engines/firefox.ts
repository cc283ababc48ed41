// Firefox ESR through puppeteer-core over WebDriver BiDi: Debian's own build, nothing downloaded.
//
// Preferences: none beyond puppeteer's automation defaults are needed. Checked on Firefox ESR
// 153: 127.0.0.1 counts as a secure context, so service workers register and COOP/COEP make the
// page cross-origin isolated (SharedArrayBuffer is exposed); module workers are on by default
// (dom.workers.modules); JSPI is on by default (WebAssembly.Suspending exists), so the REPL uses
// it; WebGPU is off on Linux (navigator.gpu is undefined).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer, { type Browser, type BrowserContext, type ElementHandle, type Page } from "puppeteer-core";
import { HandlePage } from "./handle-page.ts";
import { fillElement, markTarget, pageExpression } from "./page-side.ts";
import { waitUntilClickable } from "./wait.ts";
import type { EngineBrowser, EnginePage, FileSpec, PageOptions, Target } from "./types.ts";

export const FIREFOX = process.env.FIREFOX_PATH ?? "/usr/bin/firefox-esr";

class FirefoxPage extends HandlePage<ElementHandle<Element>> implements EnginePage {
  readonly engine = "firefox" as const;
  private readonly seen: string[] = [];
  private marks = 0;
  private readonly uploads = mkdtempSync(join(tmpdir(), "rlm-ff-upload-"));

  constructor(
    private readonly context: BrowserContext,
    private readonly page: Page,
  ) {
    super(page);
    page.on("pageerror", (e) => this.seen.push(`pageerror: ${e instanceof Error ? e.message : String(e)}`));
    page.on("console", (m) => {
      if (m.type() === "error") this.seen.push(`console: ${m.text()}`);
    });
  }

  async click(target: Target) {
    // A toast over the button would take the click: wait for a clear path, then click through
    // a locator, which also waits until the element stops moving.
    await waitUntilClickable(this, target);
    const selector = (await this.page.evaluate(pageExpression(markTarget, { target, mark: String(++this.marks) }))) as string | null;
    if (!selector) throw new Error(`No element for ${JSON.stringify(target)}`);
    await this.page.locator(selector).click();
  }
  async fill(target: Target, text: string) {
    if (!(await this.page.evaluate(pageExpression(fillElement, { target, text }))))
      throw new Error(`No element for ${JSON.stringify(target)}`);
  }
  async setInputFiles(target: Target, files: FileSpec[]) {
    // BiDi's input.setFiles takes paths, so the bytes go through files of the same names.
    const dir = mkdtempSync(join(this.uploads, "set-"));
    const paths = files.map((f) => {
      const path = join(dir, f.name);
      writeFileSync(path, f.buffer);
      return path;
    });
    await ((await this.element(target)) as ElementHandle<HTMLInputElement>).uploadFile(...paths);
  }
  async setOffline(offline: boolean) {
    try {
      await this.page.setOfflineMode(offline);
      return true;
    } catch {
      return false;
    }
  }
  async screenshot(path: string) {
    await this.page.screenshot({ path: path as `${string}.png`, fullPage: true });
  }
  async errors() {
    return this.seen.slice();
  }
  async close() {
    await this.context.close();
    rmSync(this.uploads, { recursive: true, force: true });
  }
}

export async function launchFirefox(): Promise<EngineBrowser> {
  const browser: Browser = await puppeteer.launch({ browser: "firefox", executablePath: FIREFOX, headless: true });
  return {
    engine: "firefox",
    version: `Firefox ${(await browser.version()).replace(/^firefox\//i, "")}`,
    async newPage(options: PageOptions = {}) {
      // A BiDi user context: its own cookies, storage and service workers, like a new profile.
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport(options.viewport ?? { width: 1280, height: 860 });
      return new FirefoxPage(context, page);
    },
    close: () => browser.close(),
  };
}
