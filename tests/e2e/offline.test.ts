// Offline after one visit, isolation on hosts that cannot set headers, and new versions that
// wait for the person: the service worker in real Chromium against the built app.
import { cpSync, mkdtempSync, readdirSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repl as code, gate, startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { serveStatic } from "../fixtures/static-server.ts";
import { documentInput, launch, newPage, openaiUrl, waitForServiceWorker } from "./harness.ts";

const dist = new URL("../../dist/", import.meta.url).pathname;
let browser: Browser;
let model: ScriptedServer;

beforeAll(async () => {
  browser = await launch();
  model = await startScriptedServer({ contextWindow: 8192, root: [code("FINAL(context.strip().upper())")] });
});
afterAll(async () => {
  await browser?.close();
  await model?.close();
});

const ISOLATION = { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp" };

async function pythonReady(page: Page) {
  await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 90_000 });
}

/** A private copy of dist/, so a test can publish a "new version" of it. */
function copyOfDist(): string {
  const dir = mkdtempSync(join(tmpdir(), "rlm-dist-"));
  cpSync(dist, dir, { recursive: true });
  return dir;
}

describe("offline", () => {
  it("after one visit the page, Python and documents work offline, and a local endpoint still answers", async () => {
    const site = await serveStatic(copyOfDist(), ISOLATION);
    const { context, page, errors } = await newPage(browser);
    try {
      await page.goto(openaiUrl(site.url, model.baseUrl));
      await pythonReady(page);
      await waitForServiceWorker(page);
      await page.getByText("Ready to work offline").waitFor({ timeout: 90_000 });

      // The whole network goes away: the app, Python and documents still work.
      await context.setOffline(true);
      await page.reload();
      await pythonReady(page);
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      await documentInput(page).setInputFiles({ name: "offline.txt", mimeType: "text/plain", buffer: Buffer.from("written offline") });
      await page.locator(".docs .name", { hasText: "offline.txt" }).waitFor();
      await context.setOffline(false);

      // The site is gone for good, but a model server on this machine is up: ask.
      await site.close();
      await page.reload();
      await pythonReady(page);
      await page.getByRole("textbox", { name: "Question" }).fill("Shout it");
      await page.getByRole("button", { name: "Ask", exact: true }).click();
      await page.getByRole("region", { name: "Answer", exact: true }).last().getByText("WRITTEN OFFLINE").waitFor({ timeout: 60_000 });
      expect(errors.filter((e) => !/Failed to load resource|net::ERR/.test(e))).toEqual([]);
    } finally {
      await context.close();
      await site.close().catch(() => undefined);
    }
  });

  it("a host that sends no headers gets isolation and the REPL's sandbox policy from the service worker", async () => {
    const root = copyOfDist();
    const site = await serveStatic(root); // no COOP/COEP, no CSP
    const { context, page } = await newPage(browser);
    try {
      await page.goto(site.url);
      await waitForServiceWorker(page);
      // The page reloads itself once into isolation.
      await page.waitForFunction(() => crossOriginIsolated, undefined, { timeout: 60_000 });
      await pythonReady(page);
      const worker = readdirSync(join(root, "assets")).find((f) => /^repl\.worker-.*\.js$/.test(f));
      expect(worker).toBeTruthy();
      const csp = await page.evaluate(async (path) => (await fetch(path)).headers.get("content-security-policy"), `/assets/${worker}`);
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("'wasm-unsafe-eval'");
    } finally {
      await context.close();
      await site.close();
    }
  });

  it("announces a new version and applies it only when asked, never during a run", async () => {
    const root = copyOfDist();
    const site = await serveStatic(root, ISOLATION);
    const { context, page } = await newPage(browser);
    try {
      // The question's answer waits until the test has seen the banner during the run: a fixed
      // delay could run out first on a busy machine, and the run would be over.
      const bannerSeen = gate();
      model.scripts.root = (req) =>
        req.firstUser.includes("slow question") ? { text: code("FINAL('slow done')"), after: bannerSeen.opened } : code("FINAL('ok')");
      await page.goto(openaiUrl(site.url, model.baseUrl));
      await pythonReady(page);
      await waitForServiceWorker(page);
      await documentInput(page).setInputFiles({ name: "v.txt", mimeType: "text/plain", buffer: Buffer.from("v") });
      await page.locator(".docs .name", { hasText: "v.txt" }).waitFor();
      // Publish a new version, then start a question before the page notices.
      appendFileSync(join(root, "sw.js"), "\n// a new release\n");
      await page.getByRole("textbox", { name: "Question" }).fill("slow question");
      await page.getByRole("button", { name: "Ask", exact: true }).click();
      await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.update());
      const banner = page.getByRole("status").filter({ hasText: "A new version of the app is ready" });
      await banner.waitFor({ timeout: 60_000 });
      const wait = banner.getByRole("button", { name: "Reload after this question" });
      expect(await wait.isDisabled()).toBe(true);
      bannerSeen.open();
      await page.getByRole("region", { name: "Answer", exact: true }).last().getByText("slow done").waitFor({ timeout: 60_000 });
      const before = await page.evaluate(() => performance.timeOrigin);
      await banner.getByRole("button", { name: "Reload now" }).click();
      // The page reloads into the new version.
      await page.waitForFunction((t) => performance.timeOrigin !== t, before, { timeout: 60_000 });
      await pythonReady(page);
      expect(await page.getByText("A new version of the app is ready").count()).toBe(0);
    } finally {
      await context.close();
      await site.close();
    }
  });
});
