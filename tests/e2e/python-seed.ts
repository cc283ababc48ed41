// Python starts warm in a fresh browser context: the app's Python snapshot, made once per build
// and put into each new context's Cache Storage before the app's first page loads (issue 38).
//
// Why: every test opens the app in a fresh context (no storage shared between tests), so every
// test paid a first visit's Python start: a full boot, a snapshot made from it, a fresh
// interpreter restored from that, and the snapshot stored. Measured on this 2-core machine
// (2026-11-29, nearly idle): 6.7-7.4 CPU-seconds to "Python ready" in a fresh context, 2.5-2.8
// with the snapshot seeded (1.1-1.3 in a context that already had one), across 100+ contexts a
// run. The product path a seeded context takes is a returning visitor's: find the stored
// snapshot, check it, restore it. Tests of the first visit itself ask for `python: "cold"`.
//
// How: the snapshot is read once out of a context that made it (Cache Storage
// "rlm-python-snapshot", the entry's URL names the runtime) and kept under .cache/, keyed by the
// build's entry files, so both lanes of `npm test` and every file reuse it. A context is seeded on
// its first navigation to an app server of startApp(): a document of the app's origin that runs
// none of the app (its icon) fetches the bytes from a local server and puts them into Cache
// Storage, then the test's navigation goes on. Should any of this fail, the test runs on a cold
// start and a line says why: slower, never wrong.
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { waitUntil } from "./waits.ts";

/** The product's Cache Storage name for the Python snapshot (src/repl/snapshot-store.ts). */
const SNAPSHOT_CACHE = "rlm-python-snapshot";
/**
 * A document of the app's origin that runs none of the app: the seeding runs in it. A real file
 * the app server sends (a routed page would count as a public site, and Chromium's local network
 * access rules would then refuse its fetch from 127.0.0.1).
 */
const SEED_PATH = "/icon.svg";
const ROOT = new URL("../../", import.meta.url).pathname;
const CACHE_DIR = join(ROOT, ".cache", "e2e-python-snapshot");

/**
 * Marks the entry a test put there. The app replaces an entry only by one it made, and drops one
 * it rejects, so the mark still there once Python is ready means the app restored from it.
 */
export const SEEDED_HEADER = "x-e2e-seeded";

/** RLM_E2E_PYTHON=cold: every test starts Python as a first visit does (the suite as it was). */
export const PYTHON_START_ENV = "RLM_E2E_PYTHON";

/** How a test's Python starts: "warm" (the default) seeds the snapshot, "cold" is a first visit. */
export type PythonStart = "warm" | "cold";

interface SnapshotEntry {
  /** The Cache Storage request URL the app looks up (it names the runtime and its version). */
  url: string;
  headers: Record<string, string>;
  file: string;
}

/** App origins served by startApp() in this process, with the build folder each serves. */
const appOrigins = new Map<string, string>();
/** One snapshot per build folder for this process: made or read once. */
const entries = new Map<string, Promise<SnapshotEntry>>();
let bytesServer: Promise<{ url: string; server: Server }> | null = null;
let served = 0;

/** How many times this process has handed a context the snapshot's bytes (for the seeding's own test). */
export function snapshotsServed(): number {
  return served;
}

export function registerAppOrigin(url: string, outDir: string): void {
  appOrigins.set(new URL(url).origin, join(ROOT, outDir));
}

export function forgetAppOrigin(url: string): void {
  appOrigins.delete(new URL(url).origin);
}

/**
 * Seeds Python's snapshot into `page`'s context on its first navigation to an app origin (see
 * the file's comment). Later navigations, reloads and other pages of the context find it there.
 */
export function seedPythonOnFirstVisit(browser: Browser, context: BrowserContext, page: Page): void {
  const goto = page.goto.bind(page);
  const seeded = new Set<string>();
  page.goto = async (url: string, options?: Parameters<Page["goto"]>[1]) => {
    const origin = new URL(url).origin;
    const dist = appOrigins.get(origin);
    if (dist && !seeded.has(origin)) {
      seeded.add(origin);
      await seed(browser, context, origin, dist).catch((err: unknown) => {
        console.warn(`e2e: Python starts cold in this test (the snapshot was not seeded: ${String(err)})`);
      });
    }
    return goto(url, options);
  };
}

/**
 * In a page of its own, closed after: the test's page keeps its history, and the console errors
 * it watches (the icon's document asks for a favicon the app does not have) are not its own.
 */
async function seed(browser: Browser, context: BrowserContext, origin: string, dist: string): Promise<void> {
  const entry = await snapshotFor(browser, origin, dist);
  const server = await serveBytes();
  const page = await context.newPage();
  try {
    await page.goto(`${origin}${SEED_PATH}`);
    await page.evaluate(
      async ({ cacheName, from, url, headers }) => {
        const response = await fetch(from);
        if (!response.ok) throw new Error(`the snapshot's bytes: HTTP ${response.status}`);
        await (await caches.open(cacheName)).put(url, new Response(await response.blob(), { headers }));
      },
      {
        cacheName: SNAPSHOT_CACHE,
        from: `${server.url}${encodeURIComponent(entry.file)}`,
        url: entry.url,
        headers: { ...entry.headers, [SEEDED_HEADER]: "1" },
      },
    );
  } finally {
    await page.close();
  }
}

/** The build's snapshot: from .cache/ when this build made one before, else made now. */
function snapshotFor(browser: Browser, origin: string, dist: string): Promise<SnapshotEntry> {
  let entry = entries.get(dist);
  if (!entry) {
    entry = readOrMake(browser, origin, dist);
    entries.set(dist, entry);
  }
  return entry;
}

/** Keyed by the build's entry files: their asset names carry content hashes, so a new build is a new key. */
function buildKey(dist: string): string {
  const hash = createHash("sha256");
  for (const name of ["index.html", "repl-sandboxed.worker.js", "sw.js"]) {
    const path = join(dist, name);
    hash.update(existsSync(path) ? readFileSync(path) : name);
  }
  return hash.digest("hex").slice(0, 16);
}

async function readOrMake(browser: Browser, origin: string, dist: string): Promise<SnapshotEntry> {
  const key = buildKey(dist);
  const meta = join(CACHE_DIR, `${key}.json`);
  if (existsSync(meta)) return JSON.parse(readFileSync(meta, "utf8")) as SnapshotEntry;
  const made = await makeSnapshot(browser, origin);
  mkdirSync(CACHE_DIR, { recursive: true });
  const file = `${key}.bin`;
  // Written under a temporary name and renamed: the other lane may read or write it meanwhile.
  const tmp = `.${process.pid}.${Date.now()}`;
  writeFileSync(join(CACHE_DIR, file + tmp), made.bytes);
  renameSync(join(CACHE_DIR, file + tmp), join(CACHE_DIR, file));
  const entry: SnapshotEntry = { url: made.url, headers: made.headers, file };
  writeFileSync(meta + tmp, JSON.stringify(entry));
  renameSync(meta + tmp, meta);
  return entry;
}

/** A first visit in a context of its own, until the app has stored its snapshot; its bytes. */
async function makeSnapshot(browser: Browser, origin: string): Promise<{ url: string; headers: Record<string, string>; bytes: Buffer }> {
  const context = await browser.newContext({ serviceWorkers: "block" });
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    // Generous: a first boot on a loaded machine takes tens of seconds. An entry shows in keys()
    // while its body is still being written, and match() finds it only once it is whole. (Not
    // waitForFunction: it takes the promise an async predicate returns for a truthy answer.)
    const whole = async () =>
      page.evaluate(async (cacheName) => {
        const cache = await caches.open(cacheName);
        for (const request of await cache.keys()) if (await cache.match(request)) return true;
        return false;
      }, SNAPSHOT_CACHE);
    await waitUntil(whole, { timeout: 180_000, what: "the app to store its Python snapshot", interval: 1000 });
    // Read by the Request that keys() gives, in one step: the app may replace the entry meanwhile.
    const { url, headers, base64 } = await page.evaluate(async (cacheName) => {
      const cache = await caches.open(cacheName);
      for (const request of await cache.keys()) {
        const response = await cache.match(request);
        if (!response) continue;
        const bytes = new Uint8Array(await response.arrayBuffer());
        let text = "";
        for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return { url: request.url, headers: Object.fromEntries(response.headers.entries()), base64: btoa(text) };
      }
      throw new Error("the app's snapshot entry went away while it was read");
    }, SNAPSHOT_CACHE);
    return { url, headers, bytes: Buffer.from(base64, "base64") };
  } finally {
    await context.close();
  }
}

/** Serves .cache/e2e-python-snapshot/ to the seeding pages (any origin may read it: CORS). */
function serveBytes(): Promise<{ url: string; server: Server }> {
  bytesServer ??= new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      const name = decodeURIComponent((req.url ?? "/").slice(1));
      const path = join(CACHE_DIR, name);
      if (name.includes("/") || !name.endsWith(".bin") || !existsSync(path)) return void res.writeHead(404).end();
      served++;
      // CORS and CORP: the seeding document is cross-origin to this server and may be under COEP.
      res.writeHead(200, {
        "Content-Type": "application/octet-stream",
        "Access-Control-Allow-Origin": "*",
        "Cross-Origin-Resource-Policy": "cross-origin",
      });
      createReadStream(path).pipe(res);
    });
    server.unref(); // lives as long as the test process, and never keeps it alive
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/`, server });
    });
  });
  return bytesServer;
}
