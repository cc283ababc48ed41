// The main path in every engine people use: Chromium, Firefox and WebKit (Safari's engine), one
// test body per behaviour, run against the built app and the scripted OpenAI-compatible server.
// A missing engine is skipped with the reason locally; under CI (which installs all three) it
// fails instead.
import { mkdirSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildDocx, buildPdf, zipOf } from "../fixtures/docs/index.ts";
import { between, repl as code, startScriptedServer, type ScriptedRequest, type ScriptedServer } from "../fixtures/scripted-server.ts";
import {
  applyLinkSettings,
  launchEngine,
  missingEngine,
  selectedEngines,
  timeStop,
  waitFor,
  waitForFunction,
  waitForText,
  type EngineBrowser,
  type EngineName,
  type EnginePage,
  type Target,
} from "./engines/index.ts";
import { REACHED_LINE, openaiUrl } from "./harness.ts";
import { startVariantServer } from "./sandbox/variant-server.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

// Python boots slowly in WebKitGTK (its WebAssembly tiers are slower): allow for it.
const BOOT_MS = 150_000;

const at = {
  ready: { css: ".chip", text: "Python ready" },
  question: { css: "textarea#question" },
  ask: { css: "button", text: "Ask", exact: true },
  stop: { css: "button", text: "Stop", exact: true },
  answer: { css: 'section[aria-label="Answer"]', last: true },
  files: { css: 'input[aria-label="Document"]' },
  doc: (name: string): Target => ({ css: ".docs .name", text: name }),
} satisfies Record<string, Target | ((name: string) => Target)>;

let server: ScriptedServer;

/** Root replies chosen by question, so every engine shares one server. */
type Route = (req: ScriptedRequest) => string | { text: string; hang?: boolean };
const routes = new Map<string, Route>();
const route = (question: string, fn: Route) => routes.set(question, fn);

beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 8192 });
  server.scripts.root = (req) => {
    for (const [q, fn] of routes) if (req.firstUser.includes(`Question: ${q}`)) return fn(req);
    return "FINAL(unknown question)";
  };
  server.scripts.sub = (req) => {
    const m = /launch code is ([A-Z]+-\d+)/.exec(between(req.lastUser, "<<", ">>"));
    return m ? `The launch code is ${m[1]}.` : `sub saw ${req.lastUser.length} chars`;
  };
});
afterAll(async () => server?.close());

/**
 * Opens the app through a settings link. The page only proposes a link's settings, so this
 * applies them as a person would (the dialog is modal: nothing else is clickable until then).
 */
async function openApp(page: EnginePage, url: string) {
  await page.goto(url);
  if (new URL(url).search) await applyLinkSettings(page);
  await waitFor(page, at.ready, BOOT_MS);
}

async function ask(page: EnginePage, question: string) {
  await page.fill(at.question, question);
  await waitForFunction(
    page,
    () => !!Array.from(document.querySelectorAll("button")).find((b) => b.textContent?.trim() === "Ask" && !b.disabled),
    undefined,
    {
      what: "the Ask button to be enabled",
    },
  );
  const count = await page.evaluate(
    (q) => Array.from(document.querySelectorAll(".exchange h3")).filter((h) => h.textContent?.trim() === q).length,
    question,
  );
  await page.click(at.ask);
  await waitForFunction(
    page,
    (a) => Array.from(document.querySelectorAll(".exchange h3")).filter((h) => h.textContent?.trim() === a.q).length > a.count,
    { q: question, count },
    { timeout: 10_000, what: `the question "${question}" to be taken` },
  );
}

/** A real drop of a ~1.4 MB text file with one needle, built inside the page. */
function dropNeedleFile(page: EnginePage) {
  return page.evaluate(() => {
    const line = "Nothing to see in this line of the report, just filler text.\n";
    const filler = line.repeat(Math.ceil(1_400_000 / line.length));
    const cut = Math.floor(filler.length * 0.7);
    const file = new File([`${filler.slice(0, cut)}\nThe launch code is ZEBRA-4471.\n${filler.slice(cut)}`], "report.txt", {
      type: "text/plain",
    });
    const dt = new DataTransfer();
    dt.items.add(file);
    for (const type of ["dragenter", "dragover", "drop"]) {
      window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  });
}

route("What is the launch code?", (req) => {
  if (req.turn === 0) {
    return code(
      "import re\nprint(len(context))\nm = re.search(r'launch code', context)\nreply = llm_query('<<' + context[m.start() - 50 : m.end() + 50] + '>> What is the launch code?')\nprint(reply)",
    );
  }
  return code("FINAL(reply)");
});
route("Describe the files", () =>
  code("FINAL(' | '.join(f'{k}:{v.split()[-1]}' for k, v in sorted(context.items()) if k != 'report.txt'))"),
);
route("Remember a number", () => code("kept_value = 41\nFINAL('remembered')"));
route("What did you keep?", () => code("FINAL(kept_value + 1)"));
route("Loop forever please", (req) => (req.turn === 0 ? code(`${REACHED_LINE}while True:\n    pass`) : "FINAL(no)"));
route("Shout it", () => code("FINAL((context['offline.txt'] if isinstance(context, dict) else context).strip().upper())"));
route("Reverse the document", () => code("FINAL(context['race.txt'][::-1] if isinstance(context, dict) else context[::-1])"));

/** Fails under CI when an engine is missing (CI installs all three), else skips with the reason. */
function skipReason(engine: EngineName): string | null {
  const missing = missingEngine(engine);
  if (missing && process.env.CI) throw new Error(`CI must test ${engine}: ${missing}`);
  return missing;
}

describe.each(selectedEngines())("the main path in %s", (engine) => {
  const missing = skipReason(engine);
  // Room for two Python boots per test: WebKit takes minutes on a loaded 2-core machine.
  const test = (name: string, fn: () => Promise<void>) => (missing ? it.skip : it)(name, fn, 3 * BOOT_MS);
  if (missing) it.skip(`${engine} is not installed: ${missing}`, () => undefined);

  let browser: EngineBrowser;
  let page: EnginePage;
  // The built app with the production headers (as vite preview sends them), on a server of this
  // engine's own, so that the last test can take the site away after the visit the others made.
  // A second site for that test cost a second first visit: a full Python boot without a
  // snapshot, 80 s in WebKit on a loaded machine (issue 38).
  let site: { url: string; close: () => Promise<void> };
  beforeAll(async () => {
    if (missing) return;
    site = await startVariantServer({ workerCsp: true, lockDown: true });
    browser = await launchEngine(engine);
    page = await browser.newPage();
    await openApp(page, openaiUrl(site.url, server.baseUrl));
  }, BOOT_MS + 60_000);
  afterAll(async () => {
    await page?.close();
    await browser?.close();
    await site?.close();
  });
  // What the page showed when a test failed, for the person reading the CI log.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== "fail" || !page) return;
    const slug = ctx.task.name.replace(/\W+/g, "-").slice(0, 40);
    await page.screenshot(`${SHOTS}engine-${engine}-FAILED-${slug}.png`).catch(() => undefined);
  });

  test("drop a text file, ask, and get the right answer through a sub-call", async () => {
    await dropNeedleFile(page);
    await waitFor(page, at.doc("report.txt"), 60_000);
    await ask(page, "What is the launch code?");
    expect(await waitForText(page, at.answer, "The launch code is ZEBRA-4471.", 120_000)).toContain("ZEBRA-4471");
    const chip = await page.evaluate(() =>
      Array.from(document.querySelectorAll(".chip"))
        .find((c) => c.textContent?.includes("Python ready"))
        ?.getAttribute("title"),
    );
    expect(chip).toMatch(/^sub-calls via (jspi|sab|service-worker)$/);
    await page.screenshot(`${SHOTS}engine-${engine}-answer.png`);
  });

  test("reads PDF, DOCX and ZIP files into context", async () => {
    await page.setInputFiles(at.files, [
      { name: "paper.pdf", mimeType: "application/pdf", buffer: buildPdf([["First page says apple"], ["Second page says banana"]]) },
      {
        name: "memo.docx",
        mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        buffer: buildDocx(["Word paragraph cherry"]),
      },
      { name: "repo.zip", mimeType: "application/zip", buffer: zipOf({ "repo/README.md": "# elder\n" }) },
    ]);
    // Inside its archive folder the list names it README.md; its Remove button names the path.
    await waitFor(page, { css: 'button[aria-label^="Remove "][aria-label$="repo/README.md"]' }, 60_000);
    await ask(page, "Describe the files");
    const answer = await waitForText(page, at.answer, "memo.docx:cherry", 60_000);
    expect(answer).toContain("paper.pdf:banana");
    expect(answer).toContain("repo/README.md:elder");
  });

  test("a follow-up question uses a variable from the first", async () => {
    await ask(page, "Remember a number");
    await waitForText(page, at.answer, "remembered", 60_000);
    await ask(page, "What did you keep?");
    expect(await waitForText(page, at.answer, /\b42\b/, 60_000)).toContain("42");
  });

  test("Stop ends a runaway run within 2 s (measured in the page)", async () => {
    await ask(page, "Loop forever please");
    // Python is in the loop: the sub-call just before it shows as answered.
    await waitForFunction(
      page,
      () => {
        const last = Array.from(document.querySelectorAll("article.exchange")).at(-1);
        const subcalls = Array.from(last?.querySelectorAll(".subcall summary") ?? []);
        return subcalls.some((s) => s.textContent?.includes("llm_query") && !s.textContent.includes("running…"));
      },
      undefined,
      { timeout: 60_000, what: "the sub-call before the loop to be answered" },
    );
    // From the click on Stop to the run showing "Stopped", timed by the page's own clock.
    expect(await timeStop(page, 10_000)).toBeLessThan(2000);
    // Python comes back for the next question (rebuilt where it could only be killed).
    await waitFor(page, at.ready, BOOT_MS);
  });

  test("a reload restores the session, and a question asked at once waits for the document", async () => {
    await page.setInputFiles(at.files, [{ name: "race.txt", mimeType: "text/plain", buffer: new TextEncoder().encode("drawkcab") }]);
    await waitFor(page, at.doc("race.txt"), 60_000);
    const exchanges = () =>
      page.evaluate(() => Array.from(document.querySelectorAll(".exchange h2, .exchange h3")).map((h) => h.textContent?.trim()));
    const before = await exchanges();
    await page.reload();
    // Asked before Python is ready: the answer must come from the restored document, never
    // from an empty `context`.
    await waitFor(page, at.doc("race.txt"), 60_000);
    await waitForFunction(page, () => document.querySelectorAll(".exchange").length > 0 || null, undefined, {
      what: "the restored questions",
    });
    expect(await exchanges()).toEqual(before);
    await page.screenshot(`${SHOTS}engine-${engine}-restored.png`);
    await ask(page, "Reverse the document");
    expect(await waitForText(page, at.answer, /backward|Failed|Error|empty/, BOOT_MS)).toContain("backward");
    expect((await page.errors()).filter((e) => !/Failed to load resource|net::ERR|NetworkError/.test(e))).toEqual([]);
  });

  // Last, because it takes the site away: the visit is the one the tests above made.
  test("works offline after one visit", async () => {
    // Installed and in control (the "Ready to work offline" toast may be gone by now).
    await waitForFunction(
      page,
      async () => !!(await navigator.serviceWorker.getRegistration())?.active && !!navigator.serviceWorker.controller,
      undefined,
      { timeout: BOOT_MS, what: "the service worker to control the page" },
    );
    // The site goes away for good (and the network too, where the engine can emulate that):
    // the page, Python and documents still work from the service worker's cache.
    await site.close();
    const emulated = await page.setOffline(true);
    try {
      await page.reload();
      await waitFor(page, at.ready, BOOT_MS);
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      await page.setInputFiles(at.files, [
        { name: "offline.txt", mimeType: "text/plain", buffer: new TextEncoder().encode("written offline") },
      ]);
      await waitFor(page, at.doc("offline.txt"), 60_000);
    } finally {
      if (emulated) await page.setOffline(false);
    }
    // A model server on this machine still answers.
    await ask(page, "Shout it");
    await waitForText(page, at.answer, "WRITTEN OFFLINE", 60_000);
  });
});
