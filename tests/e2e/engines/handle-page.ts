// What the two drivers with element handles (playwright-core for Chromium, puppeteer-core for
// Firefox) do alike: find a target as a handle, navigate, and evaluate a page-side function.
import { findTarget, pageExpression } from "./page-side.ts";
import type { Target } from "./types.ts";

/** The part of a playwright or puppeteer page this base uses: both take expressions as strings. */
export interface HandleDriver {
  goto(url: string): Promise<unknown>;
  reload(): Promise<unknown>;
  evaluate(expression: string): Promise<unknown>;
  evaluateHandle(expression: string): Promise<{ asElement(): unknown }>;
}

export abstract class HandlePage<H> {
  protected constructor(private readonly driver: HandleDriver) {}

  protected async element(target: Target): Promise<H> {
    const handle = (await this.driver.evaluateHandle(pageExpression(findTarget, target))).asElement();
    if (!handle) throw new Error(`No element for ${JSON.stringify(target)}`);
    return handle as H;
  }

  async goto(url: string) {
    await this.driver.goto(url);
  }
  async reload() {
    await this.driver.reload();
  }
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R> {
    return this.driver.evaluate(pageExpression(fn as (arg: never) => unknown, arg)) as Promise<R>;
  }
}
