// Serves the built app (dist/) with the production headers, but lets a test take one of the
// REPL worker's two walls away: the Content-Security-Policy on its script, or the lockDown()
// that deletes network globals after boot. Running the attacks against each variant shows what
// each wall stops on its own, and the variant with no CSP is the suite's positive control: an
// attack that is known to work there must reach the canary, or the suite could not see a leak.
//
// Not Playwright's route.fulfill: Chromium treats a response made up by the test as coming from
// a public address, and Local Network Access then blocks the worker's requests to 127.0.0.1 for
// a reason that has nothing to do with the walls under test.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { extname, join, normalize } from "node:path";
import { REPL_WORKER_CSP } from "../../../src/security/csp.ts";

export interface VariantOptions {
  /** Send the worker script's CSP header (as production must). */
  workerCsp: boolean;
  /** Keep lockDown() (the worker's afterBoot hook). */
  lockDown: boolean;
  /** Send COOP/COEP (default). Off: a host like GitHub Pages that sets no headers at all. */
  isolation?: boolean;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".zip": "application/zip",
  ".svg": "image/svg+xml",
  ".map": "application/json",
  ".webmanifest": "application/manifest+json",
};

/** The built worker's entry: `createReplWorker({pythonSource: ..., afterBoot: lockDown, ...})`. */
const AFTER_BOOT = /afterBoot:[\w$]+(?=[,}])/;

export async function startVariantServer(options: VariantOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const dist = new URL("../../../dist/", import.meta.url).pathname;
  const workerName = readdirSync(`${dist}assets`).find((f) => /^repl\.worker-[\w-]+\.js$/.test(f));
  if (!workerName) throw new Error("No built REPL worker in dist/assets: run npm run build.");
  let workerBody = readFileSync(`${dist}assets/${workerName}`, "utf8");
  if (!options.lockDown) {
    if (!AFTER_BOOT.test(workerBody)) throw new Error("The built REPL worker no longer has an `afterBoot:` hook this test can remove.");
    workerBody = workerBody.replace(AFTER_BOOT, "afterBoot:void 0");
  }
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? "/").replace(/\?.*$/, ""));
    const file = normalize(join(dist, path === "/" ? "index.html" : path));
    if (!file.startsWith(dist) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      res.writeHead(404).end();
      return;
    }
    let body: Buffer | string = readFileSync(file);
    const headers: Record<string, string> = {
      "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
      "Cache-Control": "no-store",
    };
    if (options.isolation !== false) {
      headers["Cross-Origin-Opener-Policy"] = "same-origin";
      headers["Cross-Origin-Embedder-Policy"] = "require-corp";
    }
    if (path === `/assets/${workerName}`) {
      if (options.workerCsp) headers["Content-Security-Policy"] = REPL_WORKER_CSP;
      body = workerBody;
    }
    res.writeHead(200, headers).end(body);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
