// Chromium through playwright-core, with the flags the rest of the e2e suite uses.
import type { BrowserContext, ElementHandle, Page } from "playwright-core";
import { launch, watchErrors } from "../harness.ts";
import { HandlePage } from "./handle-page.ts";
import type { EngineBrowser, EnginePage, PageOptions, Target } from "./types.ts";

class ChromiumPage extends HandlePage<ElementHandle<Element>> implements EnginePage {
  readonly engine = "chromium" as const;
  constructor(
    private readonly context: BrowserContext,
    private readonly page: Page,
    private readonly seen: string[],
  ) {
    super(page);
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

/**
 * A page another harness opened, driven as an EnginePage, so the shared page-side helpers
 * (timeStop, waitForFunction) serve the Chromium-only files too. Its errors() are not watched.
 */
export function asEnginePage(page: Page): EnginePage {
  return new ChromiumPage(page.context(), page, []);
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
