// The REPL sandbox, attacked from inside: the built app in Chromium, a document holding a
// secret, and a scripted root model whose every turn is one attempt to get that document to a
// canary server on this machine. Any request reaching the canary is a leak.
//
// A worker of the page (Firefox, WebKit) has two walls: the Content-Security-Policy its script
// is served with, and lockDown(), which deletes network globals and string compilation after
// boot. In Chromium the worker runs in a sandboxed frame (an opaque origin in a process of its
// own) whose document carries its own policy, and has lockDown() too. The full attack list runs
// against the app as shipped (vite preview: Chromium, so the frame), then against each wall
// alone, for the page's worker and for the frame's; a run with no walls is the positive control
// that proves a leak would show, and a run on a server that sends no headers at all (GitHub
// Pages) checks that the service worker adds the policy. Also: the CSP header is really on the built worker script, and replies that
// Python forges on the worker's message channel are dropped by the main thread. (What the page
// renders from the model is checked in render-exfil.test.ts.)
//
// Run: npm run build && npx vitest run --project e2e tests/e2e/sandbox-attacks.test.ts
// (SANDBOX_REPORT=1 prints every attack's verdict line.)
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REPL_WORKER_CSP } from "../../src/security/csp.ts";
import { repl } from "../fixtures/scripted-server.ts";
import { startStack } from "./harness.ts";
import { useStack, useCanary } from "./stack.ts";
import { ATTACKS, PLANTED, attackCell, prelude, type Attack } from "./sandbox/attacks.ts";
import { QuestionScripts, ask, lastStatus, openApp, turnOutputs, uploadText, type AppPage } from "./sandbox/drive.ts";
import { proveCanaryReachable, secretDocument } from "./sandbox/checks.ts";
import { FORGERY_KINDS, installForgery, victimCell } from "./sandbox/forgeries.ts";
import { startVariantServer, type VariantOptions } from "./sandbox/variant-server.ts";
import { expectNothingFor } from "./waits.ts";

const DIST_ASSETS = new URL("../../dist/assets/", import.meta.url).pathname;

const scripts = new QuestionScripts();
let questionCount = 0;

// Enough turns for every attack plus the prelude and FINAL; a window large enough that no turn
// is ever dropped from the conversation (turn numbers must stay aligned with the script).
const RUN_PARAMS = { maxIterations: String(ATTACKS.length + 10), contextWindow: "131072" };

/** Listens where a worker could try to reach the page directly. */
async function listenForBroadcasts(page: Page): Promise<void> {
  await page.evaluate(
    (names) => {
      const got: unknown[] = [];
      (window as unknown as { __broadcasts: unknown[] }).__broadcasts = got;
      for (const n of names) new BroadcastChannel(n).onmessage = (e) => got.push([n, e.data]);
    },
    [...PLANTED.broadcastChannels],
  );
}

interface Verdict {
  attack: Attack;
  /** The REPL output the root model received for this attack's turn. */
  out: string;
  /** The attack's own verdict line, or what it printed instead. */
  line: string;
}

/** Uploads the secret and asks one question whose turns are the attacks. */
async function runAttacksIn(opened: AppPage, attacks: Attack[], label: string): Promise<{ verdicts: Verdict[]; secret: string }> {
  const secret = `SECRET-${randomBytes(8).toString("hex")}`;
  const tag = `[attacks-${++questionCount}]`;
  scripts.set(tag, [
    repl(prelude(canary.url, canary.wsUrl), "First some helpers."),
    ...attacks.map((a) => repl(attackCell(a), `Attack: ${a.name}.`)),
    repl('FINAL("done")', "Finished."),
  ]);
  const { page } = opened;
  await proveCanaryReachable(page, canary);
  await listenForBroadcasts(page);
  await uploadText(page, "memo.txt", secretDocument(secret));
  await ask(page, `${tag} What is in the memo?`, "done", 120_000);
  expect(await lastStatus(page)).toBe("Answered");
  const outputs = turnOutputs(stack.server, tag);
  expect(outputs.length, "every scripted turn ran").toBe(attacks.length + 1);
  expect(outputs[0]).toContain("PRELUDE-OK secret-found");
  const verdicts = attacks.map((attack, i) => {
    const out = outputs[i + 1] ?? "";
    const line = out.split("\n").find((l) => l.includes(attack.name) && /^(BLOCKED|SENT|LEAK-ATTEMPT-OK) /.test(l));
    return { attack, out, line: line ?? `(no verdict) ${out.slice(0, 300)}` };
  });
  if (process.env.SANDBOX_REPORT) console.log(`--- ${label}\n${verdicts.map((v) => v.line).join("\n")}`);
  return { verdicts, secret };
}

/** Where Python runs: the sandboxed frame (Chromium's default) or a worker of the page (Firefox and WebKit's). */
type Where = "frame" | "page";
const WHERE_PARAMS: Record<Where, Record<string, string>> = {
  frame: { ...RUN_PARAMS, replFrame: "1" },
  page: { ...RUN_PARAMS, replFrame: "0" },
};

/** The frame exists exactly when Python is meant to run in it. */
async function expectRunsIn(page: Page, where: Where): Promise<void> {
  expect(await page.locator('iframe[title="Python sandbox"]').count()).toBe(where === "frame" ? 1 : 0);
}

/** Opens the app at `appUrl` and runs the attacks in it. */
async function runAttacks(
  appUrl: string,
  attacks: Attack[],
  label: string,
  where: Where,
  serviceWorkers: "allow" | "block" = "block",
): Promise<{ verdicts: Verdict[]; app: AppPage; secret: string }> {
  const opened = await openApp(stack.browser, appUrl, stack.server, WHERE_PARAMS[where], { serviceWorkers });
  try {
    const result = await runAttacksIn(opened, attacks, label);
    await expectRunsIn(opened.page, where);
    return { ...result, app: opened };
  } catch (err) {
    await opened.close();
    throw err;
  }
}

/** Every attack failed inside the worker, and said so. */
function expectAllBlocked(verdicts: Verdict[], skip: (a: Attack) => boolean = () => false): void {
  for (const { attack, out, line } of verdicts) {
    if (skip(attack)) continue;
    expect(out, attack.name).not.toContain("LEAK-ATTEMPT-OK");
    if (attack.outcome === "blocked") {
      expect(out, attack.name).toContain(`BLOCKED ${attack.name}:`);
      if (attack.error) expect(line, attack.name).toMatch(attack.error);
    } else {
      expect(out, attack.name).toMatch(new RegExp(`^(SENT|BLOCKED) ${escapeRegExp(attack.name)}:`, "m"));
    }
  }
}

/** Python's timers fire 1.5 s after their cell and every 2 s: the canary must stay silent past them. */
async function expectNoLeak(): Promise<void> {
  await expectNothingFor(3000, () => expect(canary.hits(), `requests reached the canary:\n${canary.describe()}`).toBe(0));
}

async function expectNothingPlanted(page: Page): Promise<void> {
  const databases = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name ?? ""));
  expect(databases).not.toContain(PLANTED.indexedDb);
  expect(databases).not.toContain(PLANTED.idbfsMount);
  expect(await page.evaluate(() => (window as unknown as { __broadcasts: unknown[] }).__broadcasts)).toEqual([]);
}

/**
 * Every attack against a variant of the app with some of its walls: none gets through (but those
 * `skip` says the remaining wall does not cover), nothing reaches the canary, nothing is planted.
 */
async function expectVariantHolds(
  walls: Parameters<typeof startVariantServer>[0],
  label: string,
  where: Where,
  skip?: (a: Attack) => boolean,
): Promise<void> {
  const variant = await startVariantServer(walls);
  const { verdicts, app: opened } = await runAttacks(variant.url, ATTACKS, label, where);
  try {
    expectAllBlocked(verdicts, skip);
    await expectNoLeak();
    await expectNothingPlanted(opened.page);
  } finally {
    await opened.close();
    await variant.close();
  }
}

const stack = useStack(() => startStack({ root: scripts.root, sub: "sub-model reply", contextWindow: 131072 }));
const canary = useCanary();

describe("the REPL worker's Content-Security-Policy (built app, vite preview)", () => {
  it("is sent with the built worker script, and the page loads that very script", async () => {
    const workers = readdirSync(DIST_ASSETS).filter((f) => /^repl\.worker-[\w-]+\.js$/.test(f));
    expect(workers).toHaveLength(1);
    const name = workers[0]!;
    const res = await fetch(`${stack.app.url}assets/${name}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expect(res.headers.get("content-security-policy")).toBe(REPL_WORKER_CSP);
    expect(res.headers.get("cross-origin-embedder-policy")).toBe("require-corp");
    // The policy forbids what the escapes need: no unsafe-eval, nothing but our own origin.
    expect(REPL_WORKER_CSP).not.toMatch(/'unsafe-eval'|'unsafe-inline'|\*|data:|blob:|https?:/);
    expect(REPL_WORKER_CSP).toMatch(/connect-src 'self'/);
    expect(REPL_WORKER_CSP).toMatch(/worker-src 'none'/);
    // The main bundle starts exactly this file (not some other copy without the header).
    const mains = readdirSync(DIST_ASSETS).filter((f) => /^index-[\w-]+\.js$/.test(f));
    expect(mains.some((m) => readFileSync(`${DIST_ASSETS}${m}`, "utf8").includes(name))).toBe(true);
    // The page itself does not get the worker's policy (it would break the page).
    const page = await fetch(stack.app.url);
    expect(page.headers.get("content-security-policy")).toBeNull();
  });
});

describe("model-written Python cannot send `context` out of the REPL worker", () => {
  it(`as shipped (Chromium: the sandboxed frame, its policy + lockDown): ${ATTACKS.length} attacks, nothing reaches the canary, and the app still works`, async () => {
    const { verdicts, app: opened } = await runAttacks(stack.app.url, ATTACKS, "as shipped", "frame", "allow");
    const { page, errors } = opened;
    try {
      expectAllBlocked(verdicts);
      await expectNoLeak();
      await expectNothingPlanted(page);
      // The sub-call went to the configured model server, with the URL only as a model name.
      expect(stack.server.requests.some((r) => !r.isRoot && r.model.startsWith(canary.url))).toBe(true);

      // The page is responsive and the REPL still answers a normal question.
      expect(await page.evaluate(() => new Promise<number>((r) => requestAnimationFrame(() => r(1 + 1))))).toBe(2);
      const again = "[sandbox-alive]";
      scripts.set(again, [repl('print("ALIVE", len(context), "SECRET-" in context)'), repl('FINAL("still works")')]);
      await ask(page, `${again} Still there?`, "still works", 60_000);
      expect(turnOutputs(stack.server, again)[0]).toMatch(/ALIVE \d+ True/);
      expect(await lastStatus(page)).toBe("Answered");

      await expectNothingFor(1000, () => expect(canary.hits(), `requests reached the canary:\n${canary.describe()}`).toBe(0));
      expect(errors.filter((e) => e.startsWith("pageerror"))).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 150_000);

  it("a worker of the page (Firefox, WebKit): the CSP alone (lockDown removed) stops every network attack", async () => {
    const variant = await startVariantServer({ workerCsp: true, lockDown: false });
    // Storage and BroadcastChannel are not requests: only lockDown() covers them, so they are not
    // run against the policy alone (in the page's worker nothing here would check what they did).
    const requests = ATTACKS.filter((a) => a.cspDoesNotCover !== true);
    const { verdicts, app: opened } = await runAttacks(variant.url, requests, "CSP only", "page");
    try {
      expectAllBlocked(verdicts);
      await expectNoLeak();
    } finally {
      await opened.close();
      await variant.close();
    }
  }, 150_000);

  it("a worker of the page: lockDown alone (no CSP header, as on a host that drops it) stops every attack", async () => {
    await expectVariantHolds({ workerCsp: false, lockDown: true }, "lockDown only", "page");
  }, 150_000);

  it("a worker of the page: positive control, with neither wall the same attacks do reach the canary", async () => {
    await expectPositiveControl({ workerCsp: false, lockDown: false }, "page");
  }, 90_000);

  it("the sandboxed frame: its policy alone (lockDown removed) stops every attack, and nothing reaches the page's storage", async () => {
    // The page's worker script keeps its CSP header, but no worker of the page runs here.
    // Storage and BroadcastChannel are not requests: in the frame they belong to its opaque
    // origin, so whatever they do, the page and every later session must see nothing.
    await expectVariantHolds({ workerCsp: true, lockDown: false }, "frame policy only", "frame", (a) => a.cspDoesNotCover === true);
  }, 150_000);

  it("the sandboxed frame: positive control, without its policy and lockDown the same attacks do reach the canary", async () => {
    await expectPositiveControl({ workerCsp: true, lockDown: false, frameCsp: false }, "frame");
  }, 90_000);

  it("a worker of the page, on a host that sends no headers at all (GitHub Pages): the service worker adds the CSP", async () => {
    // lockDown removed, so whatever stops the escapes here is the policy the service worker added.
    const variant = await startVariantServer({ workerCsp: false, lockDown: false, isolation: false });
    const opened = await openApp(stack.browser, variant.url, stack.server, WHERE_PARAMS.page, { serviceWorkers: "allow" });
    const workerScripts: Array<{ fromServiceWorker: boolean; csp: string | undefined }> = [];
    opened.page.on("response", (r) => {
      if (/\/assets\/repl\.worker-[\w-]+\.js$/.test(new URL(r.url()).pathname)) {
        workerScripts.push({ fromServiceWorker: r.fromServiceWorker(), csp: r.headers()["content-security-policy"] });
      }
    });
    try {
      // The first visit is not isolated; the app reloads itself once the service worker controls it.
      await opened.page.waitForFunction(() => crossOriginIsolated && !!navigator.serviceWorker.controller, null, { timeout: 30_000 });
      await expect.poll(() => opened.page.locator("header.top").innerText(), { timeout: 30_000 }).toContain("Python ready");
      const chosen = ATTACKS.filter((a) =>
        ["Function constructor via js.setTimeout.constructor", "dynamic import() of a URL via run_js", "js.fetch"].includes(a.name),
      );
      expect(chosen).toHaveLength(3);
      const { verdicts } = await runAttacksIn(opened, chosen, "service worker adds the CSP");
      expectAllBlocked(verdicts);
      // The browser's own CSP error, not lockDown's stand-in: the header was there and enforced.
      for (const v of verdicts.filter((v) => v.attack.error)) expect(v.line).toMatch(/Content Security Policy/);
      await expectNoLeak();
      expect(workerScripts.at(-1)).toEqual({ fromServiceWorker: true, csp: REPL_WORKER_CSP });
    } finally {
      await opened.close();
      await variant.close();
    }
  }, 120_000);
});

describe("the main thread drops what Python forges on the worker's message channel", () => {
  it.each(["page", "frame"] as const)(
    "forged Comlink replies to a pending request (worker of the %s): no crash, nothing rendered, the REPL recovers",
    async (where) => {
      const mark = `INJECTED-${randomBytes(6).toString("hex")}`;
      const tag = `[forgeries-${where}]`;
      scripts.set(tag, [
        ...FORGERY_KINDS.flatMap((kind) => [
          repl(installForgery(kind, mark, canary.url), `Forge: ${kind}.`),
          repl(victimCell(kind), "Next."),
        ]),
        repl('FINAL("forgery-done")', "Finished."),
      ]);
      const opened = await openApp(stack.browser, stack.app.url, stack.server, WHERE_PARAMS[where], { serviceWorkers: "block" });
      const { page, errors } = opened;
      try {
        await uploadText(page, "memo.txt", secretDocument(`SECRET-${randomBytes(8).toString("hex")}`));
        await ask(page, `${tag} Anything in there?`, "forgery-done", 120_000);
        expect(await lastStatus(page)).toBe("Answered");

        const outputs = turnOutputs(stack.server, tag);
        expect(outputs).toHaveLength(FORGERY_KINDS.length * 2);
        if (process.env.SANDBOX_REPORT) {
          console.log(FORGERY_KINDS.map((k, i) => `${k}: ${(outputs[2 * i + 1] ?? "").split("\n")[1] ?? ""}`).join("\n"));
        }
        FORGERY_KINDS.forEach((kind, i) => {
          expect(outputs[2 * i], kind).toContain(`LISTENING ${kind}`);
          const victim = outputs[2 * i + 1] ?? "";
          if (where === "page") {
            // The forged reply arrived first and changed nothing: the cell's result is taken from
            // the worker's private port only, so the next cell gets its real one. A reply that
            // breaks Comlink itself (a rejection) makes the client rebuild the worker, and the
            // model is told so in the app's own words (WorkerRestarted).
            const rejects = kind === "unknown-handler" || kind === "throw-handler";
            expect(victim, kind).toMatch(rejects ? new RegExp(`VICTIM ${kind}|WorkerRestarted`) : new RegExp(`VICTIM ${kind}`));
          } else {
            // In the frame the page talks to the worker over a port Python never sees: the
            // worker's own "message" events carry nothing, what Python posts goes to the frame,
            // which ignores it, and the next cell gets its real result.
            expect(victim, kind).toContain(`VICTIM ${kind}`);
          }
          // Only the forged Error's message is quoted back (as text, see below).
          if (kind !== "throw-handler") expect(victim, kind).not.toContain(mark);
        });

        // The answer is the real one; forged HTML never became elements anywhere in the page.
        const answer = page.getByRole("region", { name: "Answer", exact: true }).last();
        expect((await answer.locator(".markdown").innerText()).trim()).toBe("forgery-done");
        const markedText = await page.evaluate((m) => {
          const found: string[] = [];
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.textContent?.includes(m)) found.push(n.textContent);
          return found;
        }, mark);
        for (const text of markedText) expect(text, "the marker only ever appears next to its markup, as text").toMatch(/<(img|b)\b/);
        expect(await page.locator(`img[src*=":${canary.port}"]`).count()).toBe(0);
        expect(await page.locator("b", { hasText: mark }).count()).toBe(0);

        // The REPL is back and usable.
        await expect.poll(() => page.locator("header.top").innerText(), { timeout: 30_000 }).toContain("Python ready");
        const again = "[forgeries-alive]";
        scripts.set(again, [repl('print("ALIVE", len(context))'), repl('FINAL("recovered")')]);
        await ask(page, `${again} Still there?`, "recovered", 60_000);
        expect(turnOutputs(stack.server, again)[0]).toMatch(/ALIVE \d+/);

        expect(canary.hits(), `requests reached the canary:\n${canary.describe()}`).toBe(0);
        expect(errors.filter((e) => e.startsWith("pageerror"))).toEqual([]);
      } finally {
        await opened.close();
      }
    },
    150_000,
  );
});

/** Two attacks known to work without walls must reach the canary, or the suite could not see a leak. */
async function expectPositiveControl(walls: VariantOptions, where: Where): Promise<void> {
  const variant = await startVariantServer(walls);
  const chosen = ATTACKS.filter((a) => a.name === "js.fetch" || a.name === "dynamic import() of a URL via run_js");
  expect(chosen).toHaveLength(2);
  const { verdicts, app: opened, secret } = await runAttacks(variant.url, chosen, `no walls (${where})`, where);
  try {
    for (const { attack, out } of verdicts) expect(out, attack.name).toContain(`LEAK-ATTEMPT-OK ${attack.name}`);
    const paths = canary.requests.map((r) => decodeURIComponent(r.path));
    expect(paths.some((p) => p.startsWith("/fetch?") && p.includes(secret))).toBe(true);
    expect(paths.some((p) => p.startsWith("/dynamic-import.js?") && p.includes(secret))).toBe(true);
  } finally {
    canary.reset();
    await opened.close();
    await variant.close();
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
