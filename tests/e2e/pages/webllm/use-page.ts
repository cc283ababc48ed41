// The set-up both WebLLM page files repeated: serve the test page, open it in Chromium before the
// file's tests, close both after them. Apart from harness.ts because this registers vitest hooks.
import { expect } from "vitest";
import { useHookedParts } from "../../../fixtures/hooked.ts";
import { openPage, startPageServer, type BrowserSession, type PageServer } from "./harness.ts";

export interface UsedWebllmPage {
  readonly server: PageServer;
  readonly session: BrowserSession;
}

/** Not yet up (or already down): a test used the page outside the file's tests and hooks. */
export class WebllmPageNotUpError extends Error {
  constructor() {
    super("The WebLLM test page is not up: use it inside a test or a hook registered after useWebllmPage()");
  }
}

export function useWebllmPage(mode: "dev" | "preview", options: { webgpu: boolean }): UsedWebllmPage {
  return useHookedParts(
    async () => {
      const server = await startPageServer(mode);
      return { server, session: await openPage(server.url, options) };
    },
    async (parts) => {
      await parts.session.close();
      await parts.server.close();
    },
    () => new WebllmPageNotUpError(),
    90_000,
  );
}

/** Loads catalog model `id` in the test page, which must fail with one of the engine's errors; returns that failure. */
export async function failedLoad(used: UsedWebllmPage, id: string) {
  const result = await used.session.page.evaluate((model) => window.webllmTest.load(model), id);
  if (result.ok) throw new Error(`${id} loaded in the test page; the test expects its load to fail`);
  expect(result.isEngineError).toBe(true);
  return result;
}
