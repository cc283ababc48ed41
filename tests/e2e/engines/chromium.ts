// Chromium through playwright-core, with the flags the rest of the e2e suite uses.
import type { BrowserContext, ElementHandle, Page } from "playwright-core";
import { launch, watchErrors } from "../harness.ts";
import { findTarget, pageExpression } from "./page-side.ts";
import type { EngineBrowser, EnginePage, PageOptions, Target } from "./types.ts";

class ChromiumPage implements EnginePage {
  readonly engine = "chromium" as const;
  constructor(
    private readonly context: BrowserContext,
    private readonly page: Page,
    private readonly seen: string[],
  ) {}

  private async element(target: Target): Promise<ElementHandle<Element>> {
    const handle = (await this.page.evaluateHandle(pageExpression(findTarget, target))).asElement();
    if (!handle) throw new Error(`No element for ${JSON.stringify(target)}`);
    return handle as ElementHandle<Element>;
  }

  async goto(url: string) {
    await this.page.goto(url);
  }
  async reload() {
    await this.page.reload();
  }
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R> {
    return this.page.evaluate(pageExpression(fn as (arg: never) => unknown, arg)) as Promise<R>;
  }
  async click(target: Target) {
    await (await this.element(target)).click();
  }
  async fill(target: Target, text: string) {
    await (await this.element(target)).fill(text);
  }
  async setInputFiles(target: Target, files: Array<{ name: string; mimeType: string; buffer: Uint8Array }>) {
    const input = (await this.element(target)) as ElementHandle<HTMLInputElement>;
    await input.setInputFiles(files.map((f) => ({ name: f.name, mimeType: f.mimeType, buffer: Buffer.from(f.buffer) })));
  }
  async setOffline(offline: boolean) {
    await this.context.setOffline(offline);
    return true;
  }
  async screenshot(path: string) {
    await this.page.screenshot({ path, fullPage: true });
  }
  async errors() {
    return this.seen.slice();
  }
  async close() {
    await this.context.close();
  }
}

export async function launchChromium(): Promise<EngineBrowser> {
  const browser = await launch();
  return {
    engine: "chromium",
    version: `Chromium ${browser.version()}`,
    async newPage(options: PageOptions = {}) {
      const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 860 } });
      const page = await context.newPage();
      return new ChromiumPage(context, page, watchErrors(page));
    },
    close: () => browser.close(),
  };
}
