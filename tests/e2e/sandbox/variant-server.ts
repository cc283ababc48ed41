// Serves the built app (dist/) with the production headers, but lets a test take the REPL
// worker's walls away. A worker of the page has two: the Content-Security-Policy on its script,
// and the lockDown() that deletes network globals after boot. A worker of Chromium's sandboxed
// frame has its own lockDown() (in its own script) and the frame's policy (a <meta> in the
// frame's document, which the page's bundle writes); an opaque origin gives it no storage
// either way. Running the attacks against each variant shows what each wall stops on its own,
// and a variant with no walls is a positive control: an attack that is known to work there must
// reach the canary, or the suite could not see a leak.
//
// Not Playwright's route.fulfill: Chromium treats a response made up by the test as coming from
// a public address, and Local Network Access then blocks the worker's requests to 127.0.0.1 for
// a reason that has nothing to do with the walls under test.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { extname, join, normalize } from "node:path";
import { SANDBOXED_WORKER_FILE } from "../../../src/repl/messages.ts";
import { REPL_WORKER_CSP } from "../../../src/security/csp.ts";

export interface VariantOptions {
  /** Send the worker script's CSP header (as production must). */
  workerCsp: boolean;
  /** Keep lockDown() (the worker's afterBoot hook), in the page's worker and the frame's. */
  lockDown: boolean;
  /** Keep the sandboxed frame's own Content-Security-Policy (default true). */
  frameCsp?: boolean;
  /** Break the hash by which the frame's policy allows its script, so the frame never runs (default false). */
  frameScriptBlocked?: boolean;
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

/**
 * The built worker's entry: `createReplWorker({runtimeFiles: ..., afterBoot: () => lockDown(), ...})`,
 * which the minifier writes `afterBoot:()=>Yt()` (or `afterBoot:Yt` where it can drop the arrow).
 */
const AFTER_BOOT = /afterBoot:(?:\(\)=>[\w$]+\(\)|[\w$]+)(?=[,}])/;
/** What makes the frame document's <meta> a policy (src/repl/sandbox-frame.ts). */
const FRAME_CSP = 'http-equiv="Content-Security-Policy"';
/** How that policy allows the frame's own script. */
const FRAME_SCRIPT_HASH = "script-src 'sha256-";

export async function startVariantServer(options: VariantOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const dist = new URL("../../../dist/", import.meta.url).pathname;
  const workerName = readdirSync(`${dist}assets`).find((f) => /^repl\.worker-[\w-]+\.js$/.test(f));
  if (!workerName) throw new Error("No built REPL worker in dist/assets: run npm run build.");
  const replaced = new Map<string, string>();
  const rewrite = (path: string, change: (body: string) => string) =>
    replaced.set(path, change(replaced.get(path) ?? readFileSync(`${dist}${path.slice(1)}`, "utf8")));
  const withoutLockDown = (body: string) => {
    if (!AFTER_BOOT.test(body)) throw new Error("A built REPL worker no longer has an `afterBoot:` hook this test can remove.");
    return body.replace(AFTER_BOOT, "afterBoot:void 0");
  };
  if (!options.lockDown) {
    rewrite(`/assets/${workerName}`, withoutLockDown);
    rewrite(`/${SANDBOXED_WORKER_FILE}`, withoutLockDown);
  }
  const frameWriter = () => {
    const main = readdirSync(`${dist}assets`).find(
      (f) => /^index-[\w-]+\.js$/.test(f) && readFileSync(`${dist}assets/${f}`, "utf8").includes(FRAME_CSP),
    );
    if (!main) throw new Error("The built page no longer writes the sandboxed frame's policy as this test expects.");
    return `/assets/${main}`;
  };
  if (options.frameCsp === false) rewrite(frameWriter(), (body) => body.replace(FRAME_CSP, 'http-equiv="x-no-policy"'));
  if (options.frameScriptBlocked) {
    rewrite(frameWriter(), (body) => {
      if (!body.includes(FRAME_SCRIPT_HASH))
        throw new Error("The built page no longer allows the frame's script by hash as this test expects.");
      return body.replace(FRAME_SCRIPT_HASH, `${FRAME_SCRIPT_HASH}not-`);
    });
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
    if (path === `/assets/${workerName}` && options.workerCsp) headers["Content-Security-Policy"] = REPL_WORKER_CSP;
    body = replaced.get(path) ?? body;
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
