// Builds and serves the WebLLM generation test page, serves the WebLLM fixture's files, and starts
// Firefox ESR with WebGPU on Mesa's lavapipe (a software Vulkan adapter with shader-f16), with
// every request that would leave the machine sent to a local proxy that records and refuses it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { build, preview } from "vite";
import { serveStatic, type StaticServer } from "../../../fixtures/static-server.ts";
import { FIREFOX } from "../../engines/firefox.ts";

const CONFIG = fileURLToPath(new URL("./vite.config.ts", import.meta.url));
const PROJECT = fileURLToPath(new URL("../../../../", import.meta.url));

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

/** The page as a build (the bundled worker is what runs), served with cross-origin isolation. */
export async function startRunPage(): Promise<PageServer> {
  execFileSync(process.execPath, [join(PROJECT, "scripts/copy-pyodide.mjs")], { stdio: "inherit" });
  const outDir = mkdtempSync(join(tmpdir(), "webllm-run-page-"));
  await build({ configFile: CONFIG, build: { outDir } });
  const server = await preview({ configFile: CONFIG, build: { outDir }, preview: { port: 0, strictPort: false } });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error("the Vite preview server has no local URL");
  return {
    url,
    close: async () => {
      await server.close();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}

/** The fixture's files, readable from the page's origin (CORS, and CORP for its COEP). */
export function serveFixture(root: string): Promise<StaticServer> {
  return serveStatic(root, { "Access-Control-Allow-Origin": "*", "Cross-Origin-Resource-Policy": "cross-origin" });
}

/** A proxy that answers every request with 403 and remembers where it was going. */
export interface RefusingProxy {
  port: number;
  seen: string[];
  close(): Promise<void>;
}

export async function startRefusingProxy(): Promise<RefusingProxy> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? "");
    res.writeHead(403).end("blocked by the test: nothing may leave the machine");
  });
  server.on("connect", (req, socket: Socket) => {
    seen.push(`CONNECT ${req.url ?? ""}`);
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface FirefoxSession {
  browser: Browser;
  page: Page;
  console: string[];
  close(): Promise<void>;
}

export async function openFirefox(url: string, proxyPort: number): Promise<FirefoxSession> {
  const browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: FIREFOX,
    headless: true,
    // A model load or a question takes minutes on a software adapter; waits are bounded by the test.
    protocolTimeout: 0,
    extraPrefsFirefox: {
      // WebGPU is off on Linux by default; these give Mesa's lavapipe (Debian's mesa-vulkan-drivers).
      "dom.webgpu.enabled": true,
      "gfx.webgpu.ignore-blocklist": true,
      "gfx.webgpu.force-enabled": true,
      // Everything not on 127.0.0.1 goes to the refusing proxy (loopback is never proxied).
      "network.proxy.type": 1,
      "network.proxy.http": "127.0.0.1",
      "network.proxy.http_port": proxyPort,
      "network.proxy.ssl": "127.0.0.1",
      "network.proxy.ssl_port": proxyPort,
      "network.proxy.share_proxy_settings": true,
      "network.proxy.no_proxies_on": "",
    },
  });
  const page = await browser.newPage();
  const lines: string[] = [];
  page.on("console", (m) => lines.push(`${m.type()}: ${m.text()}`));
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById("status")?.textContent === "ready", { timeout: 60_000 });
  return { browser, page, console: lines, close: () => browser.close() };
}
