// Per-engine figures for the app itself (production build, `vite preview`, the scripted
// OpenAI-compatible server as the model), in Chromium, Firefox and WebKit, in one run:
//   - page load → "Python ready" (fresh profile), and a bare loadPyodide() page in the same
//     engine as that engine's own baseline;
//   - 100 MB into `context`: a 100 MB text file dropped on the page until a question whose code
//     prints len(context) is answered with the full length;
//   - llm_query round trip: 20 sub-calls timed inside Python (the model server answers at once);
//   - Stop: click to the run showing "Stopped", timed by the page's clock.
// Every figure is also given as a ratio to Chromium's median measured in the same run.
//
// Run: node --import tsx bench/engines.ts [--write] [--runs=3] [--engines=chromium,firefox,webkit]
// Needs a build (npm run build) for the app and builds the bench pages itself.
import { readFileSync, writeFileSync } from "node:fs";
import { startBenchPages } from "./browser/server.ts";
import { load, today } from "./lib/report.ts";
import { fmt, machine, summarize } from "./stats.ts";
import { repl as code, startScriptedServer } from "../tests/fixtures/scripted-server.ts";
import {
  applyLinkSettings,
  launchEngine,
  missingEngine,
  timeStop,
  waitFor,
  waitForFunction,
  type EngineName,
  type EnginePage,
} from "../tests/e2e/engines/index.ts";
import { openaiUrl, startApp } from "../tests/e2e/harness.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({ engines: { type: "string" }, runs: { type: "string", number: "whole" } });
const RUNS = args.runs ?? 3;
const ENGINES = (args.engines?.split(",") ?? ["chromium", "firefox", "webkit"]) as EngineName[];
const BIG_MB = 100;
const SUBCALLS = 20;
const BOOT_MS = 240_000;

type Metric = "boot" | "bare" | "load100" | "roundTrip" | "stop";
type Samples = Record<Metric, number[]>;
const failures: string[] = [];
const LABELS: Record<Metric, string> = {
  boot: "page load → Python ready (ms)",
  bare: "bare loadPyodide() page (ms)",
  load100: `${BIG_MB} MB drop → answer from len(context) (ms)`,
  roundTrip: "llm_query round trip (ms per call)",
  stop: 'Stop → "Stopped" shown (ms)',
};

/** Milliseconds since navigation start at which the app showed "Python ready". */
async function readyAt(page: EnginePage): Promise<number> {
  await page.evaluate(() => {
    const w = window as unknown as { __readyAt?: number };
    const check = () => {
      if (w.__readyAt === undefined && Array.from(document.querySelectorAll(".chip")).some((c) => c.textContent?.includes("Python ready")))
        w.__readyAt = performance.now();
    };
    check();
    new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true });
  });
  return waitForFunction(page, () => (window as unknown as { __readyAt?: number }).__readyAt ?? null, undefined, {
    timeout: BOOT_MS,
    what: "Python ready",
  }) as Promise<number>;
}

/** Asks a question and returns the answer's text and the click → answer time (page clock). */
async function askTimed(
  page: EnginePage,
  question: string,
  expect: string,
  timeout = 300_000,
): Promise<{ ms: number; at: number; text: string }> {
  await page.fill({ css: "textarea#question" }, question);
  await waitForFunction(
    page,
    () => !!Array.from(document.querySelectorAll("button")).find((b) => b.textContent?.trim() === "Ask" && !b.disabled),
    undefined,
    { what: "Ask enabled" },
  );
  const before = await page.evaluate(() => document.querySelectorAll('section[aria-label="Answer"]').length);
  const t0 = await page.evaluate(() => performance.now());
  await page.click({ css: "button", text: "Ask", exact: true });
  const found = await waitForFunction(
    page,
    (a) => {
      const answers = document.querySelectorAll('section[aria-label="Answer"]');
      const text = answers.length > a.before ? (answers[answers.length - 1]!.textContent ?? "") : "";
      return text.includes(a.expect) ? { at: performance.now(), text } : null;
    },
    { before, expect },
    { timeout, what: `an answer containing ${expect}` },
  );
  return { ms: found!.at - t0, at: found!.at, text: found!.text };
}

async function dropBigFile(page: EnginePage): Promise<void> {
  await page.evaluate((mb) => {
    const line = "Nothing to see in this line of the report, just filler text.\n";
    const text = line.repeat(Math.ceil((mb * 1024 * 1024) / line.length)).slice(0, mb * 1024 * 1024);
    const dt = new DataTransfer();
    dt.items.add(new File([text], "big.txt", { type: "text/plain" }));
    for (const type of ["dragenter", "dragover", "drop"])
      window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, BIG_MB);
}

async function stopLatency(page: EnginePage): Promise<number> {
  await page.fill({ css: "textarea#question" }, "Loop forever");
  await page.click({ css: "button", text: "Ask", exact: true });
  await waitForFunction(page, () => document.body.textContent?.includes("running…") || null, undefined, {
    timeout: 60_000,
    what: "the loop to run",
  });
  await new Promise((r) => setTimeout(r, 500));
  return timeStop(page, 30_000);
}

/** One fresh page: boot, then 100 MB, round trip and Stop in it. */
async function appRun(engine: EngineName, url: string, out: Samples): Promise<string> {
  const browser = await launchEngine(engine);
  const page = await browser.newPage();
  try {
    await page.goto(url);
    // The link's settings are only proposed; Python boots behind the dialog meanwhile.
    await applyLinkSettings(page);
    out.boot.push(await readyAt(page));
    const mode = (await page.evaluate(
      () =>
        Array.from(document.querySelectorAll(".chip"))
          .find((c) => c.textContent?.includes("Python ready"))
          ?.getAttribute("title") ?? "",
    )) as string;
    // Each figure on its own: one that fails is reported as such, the others still count.
    const attempt = async (metric: Metric, fn: () => Promise<number>) => {
      try {
        out[metric].push(await fn());
      } catch (err) {
        const seen = await page
          .evaluate(
            () =>
              document.querySelector('section[aria-label="Answer"]:last-of-type, .exchange:last-child')?.textContent?.slice(0, 200) ?? "",
          )
          .catch(() => "");
        failures.push(
          `${engine} ${metric}: ${err instanceof Error ? err.message : String(err)}${seen ? ` (page showed: ${seen.replace(/\s+/g, " ")})` : ""}`,
        );
      }
    };
    await attempt("load100", async () => {
      const t0 = await page.evaluate(() => performance.now());
      await dropBigFile(page);
      await waitFor(page, { css: ".docs .name", text: "big.txt" }, 300_000);
      // Asked as soon as the file is listed; the answer is the full length only once the
      // document is in Python.
      const answered = await askTimed(page, "How long is it?", String(BIG_MB * 1024 * 1024), 240_000);
      return answered.at - t0;
    });
    await attempt("roundTrip", async () => Number(/per call: ([\d.]+)/.exec((await askTimed(page, "Round trips", "per call:")).text)?.[1]));
    await attempt("stop", () => stopLatency(page));
    return `${browser.version}, ${mode}`;
  } finally {
    await page.close();
    await browser.close();
  }
}

/** The same engine's bare baseline: a page whose module worker only runs loadPyodide(). */
async function bareRun(engine: EngineName, url: string, out: Samples): Promise<void> {
  const browser = await launchEngine(engine);
  const page = await browser.newPage();
  try {
    await page.goto(`${url}boot.html?mode=pyodide`);
    const r = await waitForFunction(
      page,
      () => (window as unknown as { bootResult?: { readyAt?: number; error?: string } }).bootResult ?? null,
      undefined,
      { timeout: BOOT_MS, what: "loadPyodide" },
    );
    if (r?.error || r?.readyAt === undefined) throw new Error(`${engine}: bare loadPyodide failed: ${r?.error}`);
    out.bare.push(r.readyAt);
  } finally {
    await page.close();
    await browser.close();
  }
}

function scriptModel(server: Awaited<ReturnType<typeof startScriptedServer>>) {
  server.scripts.root = (req) => {
    if (req.firstUser.includes("Question: How long is it?")) return code("FINAL(str(len(context)))");
    if (req.firstUser.includes("Question: Round trips")) {
      return code(
        `import time\nt = time.perf_counter()\nfor _ in range(${SUBCALLS}):\n    llm_query('ping')\nFINAL('per call: %.2f' % ((time.perf_counter() - t) * 1000 / ${SUBCALLS}))`,
      );
    }
    if (req.firstUser.includes("Question: Loop forever")) return req.turn === 0 ? code("while True:\n    pass") : "FINAL(no)";
    return "FINAL(unknown)";
  };
  server.scripts.sub = "pong";
}

function report(results: Map<EngineName, { samples: Samples; version: string }>): string {
  const base = results.get("chromium")?.samples;
  const lines = [
    `### Per-engine figures (${today()})`,
    "",
    `\`npm run bench:engines\`; ${machine()}; load average at the end ${load()}; ${RUNS} fresh pages per engine; median (p10–p90), and × Chromium's median in the same run.`,
    "",
    `| figure | ${[...results.keys()].join(" | ")} |`,
    `|---|${[...results.keys()].map(() => "---").join("|")}|`,
  ];
  for (const metric of Object.keys(LABELS) as Metric[]) {
    const cells = [...results.values()].map(({ samples }) => {
      const s = samples[metric].filter(Number.isFinite);
      if (!s.length) return "n/a";
      const m = summarize(s);
      const ratio = base?.[metric].length ? ` · ×${(m.median / summarize(base[metric]).median).toFixed(1)}` : "";
      return `${fmt(m.median)} (${fmt(m.p10)}–${fmt(m.p90)})${ratio}`;
    });
    lines.push(`| ${LABELS[metric]} | ${cells.join(" | ")} |`);
  }
  const bootVsBare = [...results.entries()].map(([e, { samples }]) =>
    samples.bare.length && samples.boot.length
      ? `${e} ×${(summarize(samples.boot).median / summarize(samples.bare).median).toFixed(2)}`
      : `${e} n/a`,
  );
  lines.push("", `App ready vs. the same engine's bare loadPyodide(): ${bootVsBare.join(", ")}.`);
  lines.push("", "Engines: " + [...results.entries()].map(([e, r]) => `${e} = ${r.version}`).join("; ") + ".");
  if (failures.length) lines.push("", "Figures that could not be measured:", "", ...failures.map((f) => `- ${f}`));
  return lines.join("\n");
}

async function main() {
  const server = await startScriptedServer({ contextWindow: 32_768 });
  scriptModel(server);
  const app = await startApp();
  const pages = await startBenchPages();
  const results = new Map<EngineName, { samples: Samples; version: string }>();
  try {
    for (const engine of ENGINES) {
      const missing = missingEngine(engine);
      if (missing) {
        console.log(`${engine}: skipped (${missing})`);
        continue;
      }
      const samples: Samples = { boot: [], bare: [], load100: [], roundTrip: [], stop: [] };
      let version = engine as string;
      for (let i = 0; i < RUNS; i++) {
        console.log(`${engine} run ${i + 1}/${RUNS} (load ${load()})`);
        await bareRun(engine, pages.url, samples);
        version = await appRun(engine, openaiUrl(app.url, server.baseUrl), samples);
      }
      results.set(engine, { samples, version });
      console.log(engine, JSON.stringify(samples));
    }
  } finally {
    await pages.close();
    await app.close();
    await server.close();
  }
  const text = report(results);
  console.log(`\n${text}`);
  if (args.write) {
    const path = new URL("./RESULTS.md", import.meta.url);
    const heading = "## Browser engines: Chromium, Firefox, WebKit";
    // Replaces this section (up to the next "## " heading) and keeps every other section.
    const old = readFileSync(path, "utf8");
    const cut = old.indexOf(heading);
    const before = cut >= 0 ? old.slice(0, cut).trimEnd() : old.trimEnd();
    const next = cut >= 0 ? old.indexOf("\n## ", cut + heading.length) : -1;
    const after = next >= 0 ? `\n\n${old.slice(next + 1).trimEnd()}` : "";
    writeFileSync(path, `${before}\n\n${heading}\n\n${text}${after}\n`);
  }
}

await main();
