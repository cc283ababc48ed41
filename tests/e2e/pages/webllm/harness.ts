// Starts the WebLLM test page (Vite, this folder's config) and a system Chromium, with or
// without a software WebGPU adapter, and blocks every request that leaves the machine.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { build, createServer, preview } from "vite";

const CONFIG = fileURLToPath(new URL("./vite.config.ts", import.meta.url));

const BASE_ARGS = ["--headless=new", "--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
/** SwiftShader's software adapter: WebGPU works, without shader-f16. */
const WEBGPU_ARGS = ["--enable-unsafe-webgpu", "--enable-features=Vulkan", "--use-vulkan=swiftshader", "--use-webgpu-adapter=swiftshader"];

export interface PageServer {
  url: string;
  /** Only for "preview": the built files, name → contents (to check what went where). */
  assets: Map<string, string>;
  close(): Promise<void>;
}

/**
 * "dev" serves the sources through Vite's dev server; "preview" builds the page first (as the
 * app will be built) and serves the result, so the bundled worker is what runs.
 */
export async function startPageServer(mode: "dev" | "preview"): Promise<PageServer> {
  if (mode === "dev") {
    const server = await createServer({ configFile: CONFIG, server: { port: 0, strictPort: false } });
    await server.listen();
    const url = server.resolvedUrls?.local[0];
    if (!url) throw new Error("the Vite test server has no local URL");
    return { url, assets: new Map(), close: () => server.close() };
  }
  const outDir = mkdtempSync(join(tmpdir(), "webllm-page-"));
  await build({ configFile: CONFIG, build: { outDir } });
  const assetsDir = join(outDir, "assets");
  const assets = new Map(readdirSync(assetsDir).map((f) => [f, readFileSync(join(assetsDir, f), "utf8")]));
  const server = await preview({ configFile: CONFIG, build: { outDir }, preview: { port: 0, strictPort: false } });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error("the Vite preview server has no local URL");
  return {
    url,
    assets,
    close: async () => {
      await server.close();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}

export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Requests to other hosts that were blocked (dedicated-worker requests included). */
  blocked: string[];
  /** Console lines from the page and its workers. */
  console: string[];
  /** Uncaught page errors. */
  pageErrors: string[];
  close(): Promise<void>;
}

export async function openPage(url: string, options: { webgpu: boolean }): Promise<BrowserSession> {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [...BASE_ARGS, ...(options.webgpu ? WEBGPU_ARGS : [])],
  });
  const context = await browser.newContext();
  const origin = new URL(url).origin;
  const blocked: string[] = [];
  // No internet here anyway; blocking makes the failure the same everywhere (and fast).
  await context.route(
    (u) => u.origin !== origin,
    (route) => {
      blocked.push(route.request().url());
      return route.abort("internetdisconnected");
    },
  );
  const page = await context.newPage();
  const consoleLines: string[] = [];
  const pageErrors: string[] = [];
  page.on("console", (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("worker", (w) => w.on("console", (m) => consoleLines.push(`worker ${m.type()}: ${m.text()}`)));
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById("status")?.textContent === "ready", undefined, { timeout: 30_000 });
  return {
    browser,
    context,
    page,
    blocked,
    console: consoleLines,
    pageErrors,
    close: () => browser.close(),
  };
}
