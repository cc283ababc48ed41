// Waiting for the page, the same way in every engine: poll a page function.
import { waitUntil } from "../waits.ts";
import { receivesClicks } from "./page-side.ts";
import type { EnginePage, Target } from "./types.ts";

/** Polls `fn(arg)` in the page until it returns a truthy value, which it returns. */
export async function waitForFunction<R, A = undefined>(
  page: EnginePage,
  fn: (arg: A) => R | Promise<R>,
  arg?: A,
  { timeout = 30_000, what = "a condition" }: { timeout?: number; what?: string } = {},
): Promise<R> {
  // A navigation in progress destroys the context the call ran in: waitUntil tries again.
  return waitUntil(() => page.evaluate(fn, arg as A), { timeout, interval: 150, what: `${what} (${page.engine})` });
}

/**
 * Waits until a click would reach the target, as a person waits for a toast to go away; the
 * drivers without such a check (puppeteer, WebDriver) would click whatever lies on top.
 */
export async function waitUntilClickable(page: Pick<EnginePage, "engine" | "evaluate">, target: Target, timeout = 15_000): Promise<void> {
  await waitForFunction(page as EnginePage, receivesClicks, target, {
    timeout,
    what: `${JSON.stringify(target)} to be clickable (nothing on top of it)`,
  });
}
