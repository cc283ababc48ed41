// The set-up every browser test file repeated: start a stack (scripted model server, built app,
// Chromium) before its tests, close it after them, and open the app pointed at the server.
// Apart from harness.ts because this registers vitest hooks, and bench scripts import harness.ts
// outside vitest.
import type { Page } from "playwright-core";
import { useHooked, useHookedParts } from "../fixtures/hooked.ts";
import { startCanaryServer, type CanaryServer } from "../fixtures/canary-server.ts";
import {
  askQuestion,
  blockOutside,
  launch,
  newPage,
  openaiUrl,
  startApp,
  startRoutedStack,
  startStack,
  uploadText,
  type QuestionRoute,
  type Stack,
} from "./harness.ts";

/** A stack that a test file's hooks bring up and take down; its parts are there once the file's tests run. */
export interface UsedStack {
  readonly server: Stack["server"];
  readonly app: Stack["app"];
  readonly browser: Stack["browser"];
  /** Opens the app pointed at the scripted server (with more URL settings) and waits until Python is ready. */
  open(page: Page, extra?: Record<string, string>, timeout?: number): Promise<void>;
  /** A new page (newPage's context options) with the app opened as `open(page, extra)` leaves it: how most browser tests begin. */
  openPage(options?: Parameters<typeof newPage>[1], extra?: Record<string, string>): Promise<OpenedPage>;
}

/** A page of its own context, and the errors the page has thrown so far (watchErrors). */
export type OpenedPage = Awaited<ReturnType<typeof newPage>>;

/** Not yet up (or already down): a test used the stack outside the file's tests and hooks. */
export class StackNotUpError extends Error {
  constructor() {
    super("The test stack is not up: use it inside a test or a hook registered after useStack(), not at the top of the file");
  }
}

/**
 * Registers beforeAll/afterAll that start the stack (`start`, by default the usual stack) and
 * close it, and returns getters for its parts. Hooks a file registers after this call run after
 * the stack is up, so they may script its server.
 */
export function useStack(start: () => Promise<Stack> = () => startStack(), setupTimeout?: number): UsedStack {
  const up = useHooked(
    start,
    (stack) => stack.close(),
    () => new StackNotUpError(),
    setupTimeout,
  );
  const open: UsedStack["open"] = async (page, extra = {}, timeout = 60_000) => {
    await page.goto(openaiUrl(up().app.url, up().server.baseUrl, extra));
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout });
  };
  return {
    get server() {
      return up().server;
    },
    get app() {
      return up().app;
    },
    get browser() {
      return up().browser;
    },
    open,
    async openPage(options, extra) {
      const opened = await newPage(up().browser, options);
      await open(opened.page, extra);
      return opened;
    },
  };
}

/** The built app and Chromium, for a file that needs no scripted model server (or brings its own). */
export interface UsedApp {
  readonly app: Stack["app"];
  readonly browser: Stack["browser"];
}

/** Like useStack, without the scripted server: starts the app and Chromium before the file's tests and closes them after. */
export function useAppAndBrowser(setupTimeout?: number): UsedApp {
  return useHookedParts(
    async () => {
      const [app, browser] = await Promise.all([startApp(), launch()]);
      return { app, browser };
    },
    async (parts) => {
      await parts.browser.close();
      await parts.app.close();
    },
    () => new StackNotUpError(),
    setupTimeout,
  );
}

/** A Chromium of its own for the describe block it is called in (e.g. with `WEBGPU_ARGS`), closed after the block. */
export function useBrowser(extraArgs: string[] = []): { readonly browser: Stack["browser"] } {
  return useHookedParts(
    async () => ({ browser: await launch(extraArgs) }),
    (parts) => parts.browser.close(),
    () => new StackNotUpError(),
  );
}

/**
 * A canary server (the attacker's endpoint, which must never be reached) for the file's tests,
 * started after the hooks registered before this call and closed after the tests. The value
 * forwards every read to the running server, so a file keeps writing `canary.requests`.
 */
export function useCanary(): CanaryServer {
  return useHookedParts(
    () => startCanaryServer(),
    (canary) => canary.close(),
    () => new StackNotUpError(),
  );
}

/** The usual stack whose root model answers each question by its route (set by the file's tests). */
export function useRoutedStack(): { readonly routes: Map<string, QuestionRoute>; readonly stack: UsedStack } {
  const routes = new Map<string, QuestionRoute>();
  return { routes, stack: useStack(() => startRoutedStack(routes)) };
}

/**
 * A fresh page on the app pointed at the stack's scripted server in `auto` mode, with requests
 * that leave the machine blocked (and listed in `outside`), the text uploaded and the question asked.
 */
export async function askInFreshPage(stack: UsedStack, file: { name: string; text: string }, question: string) {
  const opened = await newPage(stack.browser);
  const outside = await blockOutside(opened.context);
  await opened.page.goto(openaiUrl(stack.app.url, stack.server.baseUrl, { mode: "auto" }));
  await uploadText(opened.page, file.name, file.text);
  await askQuestion(opened.page, question);
  return { ...opened, outside };
}
