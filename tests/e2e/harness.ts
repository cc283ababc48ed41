// Shared pieces of the browser tests: the built app served by `vite preview` (same headers as
// production), Debian's Chromium through playwright-core, and page-error collection.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import { preview, type PreviewServer } from "vite";
import { repl } from "../fixtures/scripted-server.ts";
import { PYTHON_START_ENV, forgetAppOrigin, registerAppOrigin, seedPythonOnFirstVisit, type PythonStart } from "./python-seed.ts";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const BASE_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
/** The two viewports the layout tests shoot: a laptop and a phone. */
export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export const WEBGPU_ARGS = [
  "--enable-unsafe-webgpu",
  "--enable-features=Vulkan",
  "--use-vulkan=swiftshader",
  "--use-webgpu-adapter=swiftshader",
];

export async function startApp(port = 0): Promise<{ url: string; close: () => Promise<void> }> {
  const root = new URL("../../", import.meta.url).pathname;
  // APP_DIST: serve another build (a benchmark may be using dist/ meanwhile).
  const outDir = process.env.APP_DIST ?? "dist";
  if (!existsSync(`${root}${outDir}/index.html`)) throw new Error("Build the app first: npm run build");
  const server: PreviewServer = await preview({
    root,
    logLevel: "error",
    build: { outDir },
    // Loads vite.config.ts without writing a bundled copy into node_modules/.vite-temp.
    configLoader: "runner",
    preview: { port, host: "127.0.0.1", strictPort: false },
  });
  const address = server.httpServer.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  const url = `http://127.0.0.1:${actualPort}/`;
  registerAppOrigin(url, outDir);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        forgetAppOrigin(url);
        server.httpServer.close(() => resolve());
      }),
  };
}

export async function launch(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, ...extraArgs], headless: true });
}

/** Collects uncaught page errors and console errors so a test can assert there were none. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  return errors;
}

/**
 * Tests set the app up through a settings link (openaiUrl), which the page only proposes: this
 * confirms the proposal as a person would, whenever its dialog is in the way of an action.
 */
export async function acceptLinkSettings(page: Page): Promise<void> {
  await page.addLocatorHandler(page.getByRole("dialog", { name: "Settings from a link" }), async (dialog) => {
    const apply = dialog.getByRole("button", { name: "Apply these settings" });
    if (await apply.count()) await apply.click();
    else await dialog.getByRole("button", { name: "Keep my settings" }).click();
  });
}

export async function newPage(
  browser: Browser,
  options: Parameters<Browser["newContext"]>[0] = {},
  { linkSettings = "accept", python = "warm" }: { linkSettings?: "accept" | "manual"; python?: PythonStart } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true, ...options });
  const page = await context.newPage();
  // A returning visitor's Python start (tests/e2e/python-seed.ts); "cold" for tests of a first visit.
  if (python === "warm" && process.env[PYTHON_START_ENV] !== "cold") seedPythonOnFirstVisit(browser, context, page);
  if (linkSettings === "accept") await acceptLinkSettings(page);
  return { context, page, errors: watchErrors(page) };
}

/**
 * Waits until the last question's run has ended, and returns its exchange. A run out of turns
 * with no answer may first ask whether the harness should read the document itself (the
 * fallback, issue 28 §3) when that would pass the preset's limits: the person says "Stop here",
 * so nothing more is spent.
 */
export async function settledAnswer(page: Page, timeout: number): Promise<Locator> {
  const exchange = page.locator("article.exchange").last();
  const done = exchange.locator('section.answer[aria-busy="false"]');
  const choice = exchange.getByTestId("fallback-choice");
  await done.or(choice).first().waitFor({ timeout });
  if (await choice.isVisible()) await choice.getByRole("button", { name: "Stop here" }).click();
  await done.waitFor({ timeout });
  return exchange;
}

/**
 * Blocks every request that would leave this machine (anything but 127.0.0.1, blob: and data:)
 * and records it: a test asserts the returned list stays empty.
 */
export async function blockOutside(context: BrowserContext): Promise<string[]> {
  const outside: string[] = [];
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname !== "127.0.0.1" && url.protocol !== "blob:" && url.protocol !== "data:") {
      outside.push(url.href);
      return route.abort();
    }
    return route.continue();
  });
  return outside;
}

/**
 * The page URL that points the app at the scripted model server. mode=rlm: the tests script the
 * RLM loop over small documents, which auto mode would answer in one direct call (pass
 * `mode: "auto"` to test that).
 */
export function openaiUrl(appUrl: string, baseUrl: string, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ backend: "openai", baseUrl, model: "root-model", subModel: "sub-model", mode: "rlm", ...extra });
  return `${appUrl}?${params}`;
}

/** The usual stack of a browser test: a scripted model server, the built app, and Chromium. */
export interface Stack {
  server: import("../fixtures/scripted-server.ts").ScriptedServer;
  app: { url: string; close: () => Promise<void> };
  browser: Browser;
  close(): Promise<void>;
}

/** `browserArgs`: extra Chromium flags for this file's browser (e.g. a smaller JavaScript heap). */
export async function startStack(
  serverOptions: import("../fixtures/scripted-server.ts").ScriptedServerOptions = { contextWindow: 8192 },
  browserArgs: string[] = [],
): Promise<Stack> {
  const { startScriptedServer } = await import("../fixtures/scripted-server.ts");
  const server = await startScriptedServer(serverOptions);
  const app = await startApp();
  const browser = await launch(browserArgs);
  return {
    server,
    app,
    browser,
    async close() {
      await browser.close();
      await app.close();
      await server.close();
    },
  };
}

/** What the scripted model answers to one question: a root turn's text, or a reply with a delay or a hang. */
export type QuestionRoute = (
  req: import("../fixtures/scripted-server.ts").ScriptedRequest,
) => string | import("../fixtures/scripted-server.ts").ScriptedReply;

/**
 * The usual stack, with a model that answers each question by its route: the route whose key
 * starts the question ("Question: <key>…"), else FINAL(unknown question). Tests add routes to
 * the map as they go; sub-calls answer "sub reply".
 */
export async function startRoutedStack(routes: Map<string, QuestionRoute>): Promise<Stack> {
  const stack = await startStack();
  stack.server.scripts.root = (req) => {
    for (const [q, fn] of routes) if (req.firstUser.startsWith(`Question: ${q}`)) return fn(req);
    return "FINAL(unknown question)";
  };
  stack.server.scripts.sub = "sub reply";
  return stack;
}

/** A route that runs `first` on turn 0, then hangs on the next turn until the person stops the run. */
export function hangAfter(first: string): QuestionRoute {
  return (req) => (req.turn === 0 ? repl(first) : { text: "", hang: true });
}

/** A route for a run that is stopped and then continued: as hangAfter(first), and `after` once the run continues. */
export function stopThenContinue(first: string, after: string): QuestionRoute {
  const stopped = hangAfter(first);
  return (req) => (req.lastUser.includes("now continues") ? repl(after) : stopped(req));
}

/** Waits until the run's progress line is at turn `turn` (the earlier turns are done). */
export async function turnShown(page: Page, turn: number, timeout = 30_000): Promise<void> {
  await page
    .getByTestId("run-progress")
    .getByText(new RegExp(`turn ${turn}/`))
    .waitFor({ timeout });
}

/**
 * Opens an exchange's steps if they are closed. They open with the run and stay open after the
 * answer (issue 15), so a test that wants them must not toggle them shut.
 */
export async function openSteps(button: import("playwright-core").Locator): Promise<void> {
  if ((await button.getAttribute("aria-expanded")) !== "true") await button.click();
}

/**
 * A line for a scripted cell that the page shows once Python has reached it: a sub-call, listed
 * under its cell as answered when the reply is back. A cell's "running…" says only that the cell
 * was sent, not that Python is executing it (see `subcallAnswered`).
 */
export const REACHED_LINE = 'llm_query("reached this line")\n';

/** Waits until the newest exchange shows a sub-call answered: its cell's code got that far. */
export async function subcallAnswered(page: Page, timeout = 60_000): Promise<void> {
  await page
    .locator("article.exchange")
    .last()
    .locator(".subcall summary", { hasText: "llm_query", hasNotText: "running…" })
    .first()
    .waitFor({ timeout });
}

/** Waits until the app's service worker is active and controls the page (so a reload offline is served from it). */
export async function waitForServiceWorker(page: Page, timeout = 90_000): Promise<void> {
  await page.waitForFunction(
    async () => {
      const reg = await navigator.serviceWorker.getRegistration();
      return !!reg?.active && !!navigator.serviceWorker.controller;
    },
    undefined,
    { timeout },
  );
}

/**
 * The page's document picker (the hidden file input in the Documents region). Never reach it by
 * `getByLabel("Document")`: that matches any label containing the word, such as the Settings
 * dialog's "When the model cannot drive a document…" select, so a test failed whenever the dialog
 * was still open (issue 38). A lint rule (eslint.config.js) keeps the unscoped form out.
 */
export function documentInput(page: Page): Locator {
  return page.locator("#doc-input");
}

/** Adds a text document through the page's picker and waits until it is listed. */
export async function uploadText(page: import("playwright-core").Page, name: string, content: string): Promise<void> {
  await documentInput(page).setInputFiles({ name, mimeType: "text/plain", buffer: Buffer.from(content) });
  await page.locator(".docs .name", { hasText: name }).first().waitFor({ timeout: 60_000 });
}

/** Types a question into the question box and presses Ask. */
export async function askQuestion(page: import("playwright-core").Page, question: string): Promise<void> {
  await page.getByRole("textbox", { name: "Question" }).fill(question);
  await page.getByRole("button", { name: "Ask", exact: true }).click();
}

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Serious and critical axe-core violations on the page as it is, one line each. */
export async function axeProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(ctx: unknown, o: unknown): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe;
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.join(" | ")}`);
}
