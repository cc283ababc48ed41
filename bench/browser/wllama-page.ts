// Driving the llama.cpp bench page (wllama.html) from Node through Playwright: the benchmark
// (bench/wllama.ts) and the agreement test (tests/e2e/llama-wasm-agreement.test.ts) both open it
// with a model and call its API, and must do it the same way to measure and check the same thing.
import type { Page } from "playwright-core";
import type { WllamaBenchApi } from "./wllama-bench.ts";

/** Calls `window.wllamaBench[name](...args)` in the page and returns its result. */
export function callWllamaBench<K extends keyof WllamaBenchApi>(page: Page, name: K, ...args: Parameters<WllamaBenchApi[K]>) {
  return page.evaluate(
    ([n, a]) =>
      (window as unknown as { wllamaBench: Record<string, (...x: unknown[]) => unknown> }).wllamaBench[n as string]!(...(a as unknown[])),
    [name, args] as const,
  ) as Promise<Awaited<ReturnType<WllamaBenchApi[K]>>>;
}

/** Opens the bench page served at `baseUrl`, picks the GGUF at `modelPath` and keeps it in OPFS (nothing loaded yet). */
export async function openWllamaBench(
  page: Page,
  baseUrl: string,
  modelPath: string,
): Promise<Awaited<ReturnType<WllamaBenchApi["store"]>>> {
  await page.goto(`${baseUrl}wllama.html`);
  await page.waitForFunction(() => "wllamaBench" in window);
  await page.locator("#model").setInputFiles(modelPath);
  return callWllamaBench(page, "store");
}
