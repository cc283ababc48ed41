// Reopening a long session (issue 27 §2): the page before the stored schema read every
// exchange whole, steps and all, to show a session; now it reads each question's record and
// leaves its steps in their own store until they are shown. Both builds open the same session,
// written as a version-1 database (bench/lib/long-session.ts), in fresh Chromium profiles,
// interleaved run by run: a first open (the new build migrates the database then, once), then
// the measured reload, from navigation until every question's answer is on the page.
// Reported: time to every answer shown, main-thread tasks over 50 ms until then (longest and
// total), and the JS heap once shown, as ratios of the new build to the old.
//
// Run: node --import tsx bench/session-reopen.ts --base=<dist of the build before> [--dist=dist]
//      [--runs=5] [--questions=7] [--write]
import type { Browser } from "playwright-core";
import { startBuiltApp } from "./lib/app-server.ts";
import { launchChromium } from "./lib/chromium.ts";
import { INSTALL_OBSERVERS, type Entry } from "./lib/long-tasks.ts";
import { longSession, seedVersion1, type LongSession } from "./lib/long-session.ts";
import { Report, load, spreadOf, today } from "./lib/report.ts";
import { splitExchange, type StoredExchange } from "../src/store/schema.ts";
import { machine, summarize } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({
  base: { type: "string" },
  dist: { type: "string" },
  questions: { type: "string", number: "whole" },
  runs: { type: "string", number: "whole" },
});
const RUNS = args.runs ?? 5;
const QUESTIONS = args.questions ?? 7;
const BASE = args.base;
if (!BASE) throw new Error("--base=<dist of the build before> is required");

interface Sample {
  firstOpenMs: number;
  reopenMs: number;
  longestTaskMs: number;
  longTasksMs: number;
  heapMb: number;
}

async function measure(browser: Browser, url: string, session: LongSession): Promise<Sample> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  try {
    await seedVersion1(page, url, session);
    await page.addInitScript(INSTALL_OBSERVERS);
    const last = `END-${QUESTIONS - 1}`;
    const shown = async () => {
      await page
        .locator("article.exchange")
        .nth(QUESTIONS - 1)
        .getByText(last)
        .waitFor({ timeout: 180_000 });
      return page.evaluate(() => performance.now());
    };
    let t = Date.now();
    await page.goto(url);
    await shown();
    const firstOpenMs = Date.now() - t;
    t = Date.now();
    await page.reload();
    const shownAt = await shown();
    const reopenMs = Date.now() - t;
    const entries = await page.evaluate(() => (window as unknown as { __entries: Entry[] }).__entries);
    const tasks = entries.filter((e) => e.kind === "longtask" && e.start < shownAt).map((e) => e.duration);
    const heapMb = await page.evaluate(
      () => ((performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0) / 2 ** 20,
    );
    return { firstOpenMs, reopenMs, longestTaskMs: Math.max(0, ...tasks), longTasksMs: tasks.reduce((a, b) => a + b, 0), heapMb };
  } finally {
    await context.close();
  }
}

const session = longSession(QUESTIONS);
/** What the new page reads to reopen it: each question's record, not its steps. */
const recordBytes = session.exchanges.reduce((n, e) => n + JSON.stringify(splitExchange(e as unknown as StoredExchange).record).length, 0);
const before = await startBuiltApp(BASE);
const after = await startBuiltApp(args.dist ?? "dist");
const browser = await launchChromium(["--enable-precise-memory-info"]);
const samples: Record<"before" | "after", Sample[]> = { before: [], after: [] };
const loadStart = load();
try {
  for (let run = 0; run < RUNS; run++) {
    // Interleaved, the order alternating: a burst of other work on the machine hits both builds.
    const order: Array<"before" | "after"> = run % 2 ? ["after", "before"] : ["before", "after"];
    for (const which of order) {
      const s = await measure(browser, (which === "before" ? before : after).url, session);
      samples[which].push(s);
      console.log(`${which} #${run + 1}: ${JSON.stringify(s)}`);
    }
  }
} finally {
  await browser.close();
  await before.close();
  await after.close();
}

const report = new Report("session-reopen");
const med = (which: "before" | "after", key: keyof Sample) => summarize(samples[which].map((s) => s[key])).median;
report.line(`<!-- session-reopen -->`);
report.line(
  `Run on ${today()}, ${machine()}, Chromium (Debian), load average ${loadStart} at start, ${load()} at end; ${RUNS} interleaved runs of each build. ` +
    `The session: ${QUESTIONS} questions of 12 turns with 6 sub-calls each, ${(session.bytes / 2 ** 20).toFixed(1)} MB as the old page stored it ` +
    `(all of it read to reopen it); the new page reads ${(recordBytes / 2 ** 10).toFixed(0)} KB of records to reopen it ` +
    `(${(recordBytes / session.bytes).toFixed(3)}×).`,
);
report.line();
report.table(["measure", "before (median, p10–p90)", "after (median, p10–p90)", "after / before"]);
const rows: Array<[string, keyof Sample, number]> = [
  ["reopen: navigation until every answer is shown (ms)", "reopenMs", 0],
  ["reopen: longest main-thread task until then (ms)", "longestTaskMs", 0],
  ["reopen: main-thread tasks over 50 ms until then, total (ms)", "longTasksMs", 0],
  ["reopen: JS heap once shown (MB)", "heapMb", 1],
  ["first open of the old database (the new build migrates it then) (ms)", "firstOpenMs", 0],
];
for (const [label, key, digits] of rows) {
  const b = spreadOf(
    samples.before.map((s) => s[key]),
    digits,
  );
  const a = spreadOf(
    samples.after.map((s) => s[key]),
    digits,
  );
  const ratio = med("before", key) ? `${(med("after", key) / med("before", key)).toFixed(2)}×` : "—";
  report.row([label, `${b.median} (${b.range})`, `${a.median} (${a.range})`, ratio]);
}
if (args.write) {
  console.log(`wrote ${report.save()}`);
  report.saveJson("-samples", samples);
}
