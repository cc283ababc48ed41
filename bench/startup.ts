// Time from page load to a ready Python REPL, in Chromium, cold (new browser context: empty
// HTTP cache, no service worker) and warm (reload in the same context):
//   - the real app (production build, `vite preview`): navigation start → the "Python ready" chip;
//   - baseline, same browser and run: a page whose module worker only runs loadPyodide();
//   - the project's REPL client alone (worker + Pyodide + Python runtime), no UI: where the app
//     runs it (Chromium: a worker of the sandboxed frame, in a process of its own), and in a
//     worker of the page itself (frame off), to show what the frame costs.
// All times are performance.now() in the page, i.e. milliseconds since navigation start.
// Then, in the warm REPL page (issue 11, "a fresh sandbox is cheap"): one more REPL started in
// the loaded page, as a new session would get, timed from createBrowserRepl() to ready, with the
// page's compiled Module + the snapshot, the snapshot only, and neither (a full boot), and in the
// sandboxed frame; and the memory each idle sandbox adds to Chromium's renderer processes (the
// frame's process included).
//
// Run: node --import tsx bench/startup.ts [--write] [--runs=5] [--dist=dist]
// No JSPI flag needed (nothing runs Pyodide in Node).
import type { BrowserContext, Page } from "playwright-core";
import { startBenchPages } from "./browser/server.ts";
import { startBuiltApp } from "./lib/app-server.ts";
import type { ExtraKind } from "./browser/boot.ts";
import { chromiumRssReader, launchChromium } from "./lib/chromium.ts";
import { MB } from "./lib/peak.ts";
import { Report, load, spread, spreadOf, today } from "./lib/report.ts";
import { machine, summarize } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({ dist: { type: "string" }, runs: { type: "string", number: "whole" } });
const RUNS = args.runs ?? 5;

/**
 * Installed before any page script: notes when the app first shows a chip and when it says
 * "Python ready". A string, not a function: tsx would wrap a function's inner helpers in
 * `__name(...)` calls that do not exist in the page.
 */
const WATCH_CHIPS = `(() => {
  const check = () => {
    const chips = document.querySelectorAll(".chip");
    if (chips.length && window.__uiAt === undefined) window.__uiAt = performance.now();
    for (const el of chips) {
      if (el.textContent && el.textContent.includes("Python ready")) {
        window.__pythonReadyAt = performance.now();
        return true;
      }
    }
    return false;
  };
  const observer = new MutationObserver(() => {
    if (check()) observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true, characterData: true });
})();`;

interface Sample {
  readyAt: number;
  /** App: first chip on screen. Boot pages: time spent inside the worker. */
  detailMs: number | null;
  swControlled?: boolean;
  /** REPL pages: how Python started (restored, made-snapshot, plain). */
  path?: string | null;
}

async function appLoad(page: Page, go: () => Promise<unknown>): Promise<Sample> {
  await go();
  await page.waitForFunction(() => (window as unknown as { __pythonReadyAt?: number }).__pythonReadyAt !== undefined, undefined, {
    timeout: 120_000,
    polling: 100,
  });
  return page.evaluate(() => {
    const w = window as unknown as { __uiAt?: number; __pythonReadyAt: number };
    return { readyAt: w.__pythonReadyAt, detailMs: w.__uiAt ?? null, swControlled: navigator.serviceWorker?.controller != null };
  });
}

async function bootPageLoad(page: Page, go: () => Promise<unknown>): Promise<Sample> {
  await go();
  await page.waitForFunction(() => window.bootResult !== undefined, undefined, { timeout: 120_000, polling: 100 });
  const r = await page.evaluate(() => window.bootResult!);
  if ("error" in r) throw new Error(`boot page failed: ${r.error}`);
  return { readyAt: r.readyAt, detailMs: r.workerMs, path: r.path };
}

const EXTRA_KINDS: ExtraKind[] = ["frame", "module+snapshot", "snapshot", "none"];
interface Extra {
  ms: number;
  path: string | null;
  usedModule: boolean;
}
const extras: Record<string, Extra[]> = {};

/** One more REPL of each kind in the loaded page, in a rotating order (a busy machine hits each alike). */
async function extraRepls(page: Page, run: number): Promise<void> {
  for (let i = 0; i < EXTRA_KINDS.length; i++) {
    const kind = EXTRA_KINDS[(i + run) % EXTRA_KINDS.length]!;
    const result = await page.evaluate((k) => window.extraRepl!(k), kind);
    (extras[kind] ??= []).push(result);
  }
}

/** Renderer RSS added per idle sandbox: N more REPLs kept running in a warm REPL page. */
interface SandboxMemory {
  perSandboxMb: number;
  beforeMb: number;
  afterMb: number;
  /** All Chromium processes: the frame's files live as Blobs in the browser process. */
  totalPerSandboxMb: number;
}

async function memoryPerSandbox(kind: ExtraKind, count: number): Promise<SandboxMemory> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    // The page's first REPL in its own worker: a framed kind then pays for the frame's process too.
    const url = `${pages.url}boot.html?mode=repl&frame=0`;
    await bootPageLoad(page, () => page.goto(url));
    await bootPageLoad(page, () => page.reload());
    const settle = () => new Promise((r) => setTimeout(r, 2000));
    await settle();
    const read = chromiumRssReader();
    const before = read();
    await page.evaluate(([k, n]) => window.idleRepls!(k, n), [kind, count] as const);
    await settle();
    const after = read();
    return {
      perSandboxMb: (after.renderers - before.renderers) / count / MB,
      beforeMb: before.renderers / MB,
      afterMb: after.renderers / MB,
      totalPerSandboxMb: (after.total - before.total) / count / MB,
    };
  } finally {
    await context.close();
  }
}

/** Waits (up to 60 s) for the app's service worker to finish installing and take over. */
async function serviceWorkerSettled(page: Page): Promise<boolean> {
  return page.evaluate(async () => {
    if (!("serviceWorker" in navigator)) return false;
    const timeout = new Promise<false>((r) => setTimeout(() => r(false), 60_000));
    return Promise.race([navigator.serviceWorker.ready.then(() => true), timeout]);
  });
}

const report = new Report("startup");
const app = await startBuiltApp(args.dist);
const pages = await startBenchPages();
const browser = await launchChromium();
report.line(`Machine: ${machine()}, Chromium ${browser.version()} (headless). Date: ${today()}. Load average at start: ${load()}.`);

type Variant = "app" | "pyodide" | "repl" | "repl-page";
const variants: Record<Variant, { url: string; measure: (page: Page, go: () => Promise<unknown>) => Promise<Sample> }> = {
  pyodide: { url: `${pages.url}boot.html?mode=pyodide`, measure: bootPageLoad },
  repl: { url: `${pages.url}boot.html?mode=repl`, measure: bootPageLoad },
  "repl-page": { url: `${pages.url}boot.html?mode=repl&frame=0`, measure: bootPageLoad },
  app: { url: app.url, measure: appLoad },
};
const samples: Record<string, Sample[]> = {};
const push = (key: string, s: Sample) => (samples[key] ??= []).push(s);
let swSettled = 0;
const IDLE_SANDBOXES = 3;
const memoryRows: Array<[ExtraKind, number, SandboxMemory]> = [];
/** The frame's process is paid once: one framed sandbox alone shows it, three spread it. */
const MEMORY_CASES: Array<[ExtraKind, number]> = [
  ["frame", 1],
  ["frame", IDLE_SANDBOXES],
  ["module+snapshot", IDLE_SANDBOXES],
  ["snapshot", IDLE_SANDBOXES],
  ["none", IDLE_SANDBOXES],
];
try {
  for (let run = 0; run < RUNS; run++) {
    // Interleaved, so slow phases of a busy machine hit every variant alike.
    for (const name of ["pyodide", "repl", "repl-page", "app"] as Variant[]) {
      const v = variants[name];
      const context: BrowserContext = await browser.newContext();
      try {
        const page = await context.newPage();
        if (name === "app") await page.addInitScript({ content: WATCH_CHIPS });
        push(`${name}/cold`, await v.measure(page, () => page.goto(v.url)));
        if (name === "app" && (await serviceWorkerSettled(page))) swSettled += 1;
        push(`${name}/warm`, await v.measure(page, () => page.reload()));
        if (name === "repl") await extraRepls(page, run);
      } finally {
        await context.close();
      }
    }
    console.error(`run ${run + 1}/${RUNS} done (load ${load()})`);
  }
  for (const [kind, count] of MEMORY_CASES) memoryRows.push([kind, count, await memoryPerSandbox(kind, count)]);
} finally {
  await browser.close();
  await pages.close();
  await app.close();
}

const median = (key: string) => summarize(samples[key]!.map((s) => s.readyAt)).median;
report.line();
report.table([
  "page load → Python ready (ms)",
  "median",
  "p10–p90",
  "runs",
  "× bare loadPyodide (same cache state)",
  "inside the worker / UI shown: median (ms)",
]);
const labels: Record<Variant, string> = {
  pyodide: "bare `loadPyodide()` in a module worker (baseline)",
  repl: "REPL client alone (`createBrowserRepl().start()`, as the app: in the sandboxed frame)",
  "repl-page": "REPL client alone, in a worker of the page (frame off)",
  app: 'the app: "Python ready" chip',
};
for (const cache of ["cold", "warm"]) {
  for (const name of ["pyodide", "repl", "repl-page", "app"] as Variant[]) {
    const key = `${name}/${cache}`;
    const s = spread(samples[key]!.map((x) => x.readyAt));
    const ratio = (median(key) / median(`pyodide/${cache}`)).toFixed(2);
    const details = samples[key]!.map((x) => x.detailMs).filter((x): x is number => x !== null);
    const detail = details.length ? `${spread(details).median} (${name === "app" ? "UI shown" : "in worker"})` : "–";
    report.row([`${labels[name]}, ${cache}`, s.median, s.range, s.n, `${ratio}×`, detail]);
  }
}
const warmControlled = samples["app/warm"]!.filter((s) => s.swControlled).length;
const paths = (key: string) => {
  const counts = new Map<string, number>();
  for (const s of samples[key] ?? []) counts.set(String(s.path), (counts.get(String(s.path)) ?? 0) + 1);
  return [...counts].map(([p, n]) => `${p} ${n}/${samples[key]!.length}`).join(", ");
};
report.line();
report.line(
  `How the REPL page's Python started: in the frame, cold ${paths("repl/cold")}, warm ${paths("repl/warm")}; ` +
    `in the page's worker, cold ${paths("repl-page/cold")}, warm ${paths("repl-page/warm")}.`,
);

const bareWarm = median("pyodide/warm");
const extraLabels: Record<ExtraKind, string> = {
  frame: "in the sandboxed frame (Chromium's default: the frame's compiled Module + snapshot)",
  "module+snapshot": "page's compiled Module + snapshot (what the app does from the 2nd worker on)",
  snapshot: "snapshot only",
  none: "neither: full boot (snapshots off)",
};
report.line();
report.table([
  "a new REPL in the already-loaded page → ready (ms)",
  "median",
  "p10–p90",
  "runs",
  "× bare loadPyodide, warm page load",
  "started as",
]);
for (const kind of EXTRA_KINDS) {
  const list = extras[kind] ?? [];
  const s = spread(list.map((e) => e.ms));
  const ratio = (summarize(list.map((e) => e.ms)).median / bareWarm).toFixed(2);
  const how = [...new Set(list.map((e) => `${e.path}${e.usedModule ? " + Module" : ""}`))].join(", ");
  report.row([extraLabels[kind], s.median, s.range, s.n, `${ratio}×`, how]);
}
report.line();
report.table([
  "idle sandbox",
  "renderers' RSS added per sandbox (MB)",
  "renderers before → after (MB)",
  "all Chromium RSS added per sandbox (MB)",
  "sandboxes",
]);
for (const [kind, count, m] of memoryRows) {
  report.row([
    extraLabels[kind],
    spreadOf([m.perSandboxMb]).median,
    `${Math.round(m.beforeMb)} → ${Math.round(m.afterMb)}`,
    spreadOf([m.totalPerSandboxMb]).median,
    count,
  ]);
}
report.line();
report.line(
  `Cold = a new browser context (empty HTTP cache, no service worker). Warm = reload in the same context; for the app ` +
    `the service worker was ready before the reload in ${swSettled}/${RUNS} runs and controlled ${warmControlled}/${RUNS} warm loads ` +
    "(its precache served the files). Times are performance.now() in the page at the moment Python was ready (app: a " +
    "MutationObserver installed before page scripts sees the chip text change).",
);
report.line(`Load average at the end: ${load()}.`);
if (args.write) {
  report.save();
  report.saveJson("", { samples, extras, memory: memoryRows });
}
process.exit(0);
