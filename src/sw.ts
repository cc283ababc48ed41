/// <reference lib="webworker" />
// The service worker: serves the app, the Python runtime and the workers from the precache so
// the page works offline after one visit, and adds the headers the app depends on to every
// response from our origin. That second job is what makes static hosts that cannot set headers
// (GitHub Pages) work: cross-origin isolation for SharedArrayBuffer, and the sandbox policy on
// the Python REPL worker. Model weights are not touched here: WebLLM keeps them in its own caches.
import { PrecacheController, cleanupOutdatedCaches, type PrecacheEntry } from "workbox-precaching";
import { REPL_WORKER_CSP, isReplWorkerScript } from "./security/csp.ts";
import { SUBCALL_RELAY_PATH, type SubcallRelayAnswer, type SubcallRelayMessage } from "./repl/messages.ts";

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<PrecacheEntry | string> };

const precache = new PrecacheController();
precache.addToCacheList(self.__WB_MANIFEST);
cleanupOutdatedCaches();

self.addEventListener("install", (event) => {
  event.waitUntil(precache.install(event));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      await precache.activate(event);
      // A new version may carry another llama.cpp release: its compat build is fetched afresh.
      await caches.delete(WLLAMA_COMPAT_CACHE);
      // On the first visit take control at once, so the page can reload into isolation.
      await self.clients.claim();
    })(),
  );
});

// The page asks for an update only when no question is running (see src/app/updates.svelte.ts).
self.addEventListener("message", (event) => {
  if ((event.data as { type?: string } | null)?.type === "SKIP_WAITING") void self.skipWaiting();
});

function withHeaders(response: Response, url: URL): Response {
  if (response.type === "opaque" || response.type === "opaqueredirect" || response.status === 0) return response;
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  headers.set("Cross-Origin-Resource-Policy", "same-origin");
  if (isReplWorkerScript(url.pathname)) headers.set("Content-Security-Policy", REPL_WORKER_CSP);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * wllama's compat build (19 MB) runs only where a worker has no SharedArrayBuffer, which our SIMD
 * build needs (WebKitGTK): it is not in the precache every browser installs, but kept here the
 * first time such a browser asks for it, so that browser works offline too, until the next
 * version of the app is activated.
 */
const WLLAMA_COMPAT_CACHE = "rlm-wllama-compat";

async function compatFile(request: Request, url: URL): Promise<Response> {
  const cache = await caches.open(WLLAMA_COMPAT_CACHE);
  const hit = await cache.match(request);
  if (hit) return withHeaders(hit, url);
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone()).catch(() => undefined);
  return withHeaders(response, url);
}

async function respond(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname.startsWith(new URL("wllama/compat/", self.registration.scope).pathname)) return compatFile(request, url);
  const isNavigation = request.mode === "navigate";
  const key = precache.getCacheKeyForURL(isNavigation ? new URL("index.html", self.registration.scope).href : request.url);
  if (key) {
    const cached = await caches.match(key);
    if (cached) return withHeaders(cached, url);
  }
  try {
    return withHeaders(await fetch(request), url);
  } catch (err) {
    const shell = isNavigation ? await precache.matchPrecache("index.html") : undefined;
    if (shell) return withHeaders(shell, url);
    throw err;
  }
}

/**
 * A blocking sub-call from a Python worker in a browser without JSPI or SharedArrayBuffer
 * (WebKitGTK): the worker waits on a synchronous request, which is answered once the page
 * that started that worker has the model's reply. Every page is asked; only the one holding
 * the token answers with a reply, so a reply never reaches another tab's Python.
 */
async function relaySubcall(request: Request, token: string): Promise<Response> {
  const body = await request.text();
  const pages = await self.clients.matchAll({ type: "window" });
  const answers = pages.map(
    (page) =>
      new Promise<string | null>((resolve) => {
        const channel = new MessageChannel();
        channel.port1.onmessage = (e: MessageEvent<SubcallRelayAnswer>) => resolve(e.data?.owned ? String(e.data.reply) : null);
        page.postMessage({ type: "rlm-subcall", token, request: body } satisfies SubcallRelayMessage, [channel.port2]);
      }),
  );
  const reply = await new Promise<string | null>((resolve) => {
    let left = answers.length;
    if (!left) resolve(null);
    for (const a of answers) void a.then((r) => (r !== null ? resolve(r) : --left === 0 && resolve(null)));
  });
  if (reply === null) return new Response("no page holds this sub-call channel", { status: 404 });
  return new Response(reply, { headers: { "Content-Type": "text/plain;charset=UTF-8" } });
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  const relayAt = new URL(SUBCALL_RELAY_PATH, self.registration.scope).pathname;
  if (url.origin === self.location.origin && event.request.method === "POST" && url.pathname.startsWith(relayAt)) {
    event.respondWith(relaySubcall(event.request, url.pathname.slice(relayAt.length)));
    return;
  }
  // Other origins (a model endpoint, model downloads) go straight to the network, untouched.
  if (url.origin !== self.location.origin || event.request.method !== "GET") return;
  event.respondWith(respond(event.request));
});
