// Any text a model or a document can produce renders, completely and without freezing the page.
// Hostile markdown arrives the way it would in real use: Python builds it from the document
// (here, from an expression) and submits it with FINAL_VAR, and the model's own prose carries
// more of it into the steps view. Inside the page a PerformanceObserver records every task over
// 50 ms ("longtask"), and the test reports them all; it fails on one that recurs when the same
// answer is shown or read again and is over a loose bound (RECURRING_TASK_SANITY_MS), and on a
// hang when the session is reopened after a reload. Each answer ends with a marker that must be
// on the page, so nothing may swallow the rest of an answer.
//
// Run: npm run build && npx vitest run --project e2e tests/e2e/render-fuzz.test.ts
import { mkdirSync } from "node:fs";
import { loadavg } from "node:os";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { repl } from "../fixtures/scripted-server.ts";
import { documentInput, newPage, openaiUrl, startStack, openSteps } from "./harness.ts";
import { useStack } from "./stack.ts";
import { QuestionScripts } from "./sandbox/drive.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const MB = 1_000_000;
/**
 * Python expressions of about 1 MB each: the hostile answers, and legitimate but dense ones (a
 * table, ordinary markdown) that would be hundreds of thousands of elements formatted whole.
 */
const CASES: Array<{ name: string; python: string }> = [
  {
    name: "prototype-named fence languages",
    python: `"".join(f"\`\`\`{n}\\ncode in {n}\\n\`\`\`\\n" for n in ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf", "isPrototypeOf", "__defineGetter__", "prototype"])`,
  },
  { name: "5,000 nested quotes", python: `"> " * 5000 + "deep inside"` },
  { name: "1,000 nested list levels", python: `"\\n".join("  " * i + "- level " + str(i) for i in range(1000))` },
  { name: "quadratic emphasis _a", python: `"_a" * ${MB / 2}` },
  { name: "quadratic emphasis *a", python: `"*a" * ${MB / 2}` },
  { name: "unbalanced strong", python: `"**" * ${MB / 4} + "a" + "*" * ${MB / 4}` },
  { name: "quadratic links", python: `"[a](" * ${MB / 4}` },
  { name: "open brackets", python: `"[" * ${MB}` },
  { name: "image brackets", python: `"![" * ${MB / 2}` },
  { name: "unclosed HTML in MathML", python: `"<math><mtext><table><mglyph><style><!--" * ${MB / 40}` },
  {
    name: "unclosed HTML in SVG",
    python: `"<svg><foreignObject><style><!--</style><img src=x onerror=alert(1)>" * ${Math.floor(MB / 70)}`,
  },
  { name: "a 1 MB table", python: `"| a | b |\\n|:--|--:|\\n" + "| x *y* | [z](https://example.org) |\\n" * ${MB / 40}` },
  {
    name: "a 1 MB ordinary answer",
    python: `("## Part\\n\\nSome *text* with \`code\`, **bold** and [a link](https://example.org).\\n\\n- one\\n- two\\n\\n\`\`\`python\\nprint('hi')\\n\`\`\`\\n\\n" * ${Math.floor(MB / 120)})`,
  },
  {
    name: "random markdown characters",
    python: `__import__("random").seed(7) or "".join(__import__("random").choice("*_[]()!\`<>#-|\\\\ \\na&;:/") for _ in range(${MB}))`,
  },
];

/** Turn text (the model's prose, shown in the steps) with the same kinds of trouble. */
const HOSTILE_PROSE = [
  "```constructor\nprose fence\n```",
  "```__proto__\nprose fence\n```",
  "> ".repeat(3000) + "deep prose",
  "_a".repeat(2_000),
  "<math><mtext><table><mglyph><style><!--",
  "prose continues after all that",
].join("\n\n");

/**
 * Elements one answer may hold once read through: only the part near the screen is formatted
 * (a few thousand elements); formatted whole, the dense answers are 100,000-400,000.
 */
const ELEMENT_BOUND = 15_000;

/** A loose bound for one task while a session of 14 MB of answers reopens (a hang, not a figure). */
const REOPEN_SANITY_MS = 10_000;

/**
 * A loose bound for a task that recurs while the same answer is shown or read again. The target
 * is 50 ms, and every task over it is reported below (and measured by bench/render.ts); but on
 * this shared 2-core machine a frame of the page's own, ordinary work measures 50-70 ms at load
 * 2-3 and up to ~180 ms at load 6, with or without the Python frame, so asserting 50 ms here
 * tested the machine. What this catches is what the windowed view removed: formatting a whole
 * 1 MB answer at once (450-500 ms tasks) or a parser gone quadratic (seconds to minutes).
 */
const RECURRING_TASK_SANITY_MS = 250;
/** One task this long is a parser gone quadratic, not a busy machine. */
const HUNG_TASK_MS = 3_000;

// The observer is kept so that a reading can take the entries not yet delivered to it.
const LONGTASK_OBSERVER = `
  window.__longTasks = [];
  const record = (entries) => {
    for (const e of entries) window.__longTasks.push({ start: Math.round(e.startTime), ms: Math.round(e.duration) });
  };
  window.__longTaskObserver = new PerformanceObserver((list) => record(list.getEntries()));
  window.__longTaskObserver.observe({ type: "longtask", buffered: true });
  window.__takeLongTasks = () => record(window.__longTaskObserver.takeRecords());
`;

type LongTask = { start: number; ms: number };
const longTasksSince = (page: Page, since: number) =>
  page.evaluate((t) => {
    const w = window as unknown as { __longTasks?: LongTask[]; __takeLongTasks?: () => void };
    w.__takeLongTasks?.();
    return (w.__longTasks ?? []).filter((e) => e.start >= t);
  }, since);
const now = (page: Page) => page.evaluate(() => performance.now());

/**
 * Waits until the page has done what it had to: two frames painted, then an idle moment of its
 * main thread. Capped (requestIdleCallback's timeout), since a page kept busy never idles; the
 * long tasks it had are what the test reads next.
 */
const settled = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        requestAnimationFrame(() => requestAnimationFrame(() => requestIdleCallback(() => resolve(), { timeout: 30_000 }))),
      ),
  );

/**
 * Whether the part of a long text on the screen shows formatted: no resting chunk (text only,
 * src/ui/render/window.ts) is in the viewport. Not "the slot scrolled to": slots above can change
 * height as they are formatted and let go, so a jump may land beside its target.
 */
const screenFormatted = (markdown: import("playwright-core").Locator) =>
  markdown.evaluate((el) => {
    const onScreen = (r: DOMRect) => r.bottom > 0 && r.top < innerHeight;
    for (const slot of el.querySelectorAll(":scope > .md-slot")) {
      if (!onScreen(slot.getBoundingClientRect())) continue;
      for (const chunk of slot.querySelectorAll(":scope > .md-chunk.resting")) if (onScreen(chunk.getBoundingClientRect())) return false;
    }
    return true;
  });
/**
 * The question box, looked up inside its own dock: a role lookup over the whole page walks every
 * element, and a page of many huge answers makes that slow.
 */
const askDock = (page: Page) => page.locator(".ask-dock");

/** Waits until every markdown view on the page has finished (formatted, or shown plain for good). */
async function allRendered(page: Page, timeoutMs: number): Promise<void> {
  await page.waitForFunction(
    () => {
      const views = Array.from(document.querySelectorAll<HTMLElement>(".markdown"));
      return views.length > 0 && views.every((v) => v.dataset.render === "done" || v.dataset.render === "fallback");
    },
    undefined,
    { timeout: timeoutMs, polling: 250 },
  );
}

const scripts = new QuestionScripts();
// 64 characters per streamed piece: the prose is streamed like a fast model's, not one
// 16-character event at a time in a single burst (that measures the stream reader, not rendering).
const stack = useStack(() => startStack({ root: scripts.root, sub: "sub reply", contextWindow: 131072, chunkChars: 64 }));

describe("rendering is total and bounded", () => {
  it("hostile answers and turn text render in full, with no long task that recurs, also after a reload", async () => {
    const { context, page, errors } = await newPage(stack.browser);
    await context.addInitScript({ content: LONGTASK_OBSERVER });
    await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl, { contextWindow: "131072" }));
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 60_000 });
    await documentInput(page).setInputFiles({ name: "doc.txt", mimeType: "text/plain", buffer: Buffer.from("a small document") });
    await page.locator(".docs .name", { hasText: "doc.txt" }).waitFor({ timeout: 60_000 });

    // A first, ordinary question: what the page does once (loading the run's code, the first
    // connection to the model server) is not what this test measures.
    scripts.set("[warm-up]", [repl('FINAL("warm")')]);
    await askDock(page).getByRole("textbox", { name: "Question" }).fill("[warm-up] hello");
    await askDock(page).getByRole("button", { name: "Ask", exact: true }).click();
    await page.locator("article.exchange .status .chip", { hasText: /^\s*Answered\s*$/ }).waitFor({ timeout: 60_000 });
    await allRendered(page, 60_000);
    await settled(page);

    const report: string[] = [];
    const failures: string[] = [];
    const only = process.env.RENDER_FUZZ_ONLY?.split(",").map(Number);
    const cases = CASES.map((c, i) => ({ ...c, i })).filter((c) => !only || only.includes(c.i));
    /** Where each case's (last) answer is, for the checks after the reload. */
    const exchangeOf = new Map<number, number>();
    for (const c of cases) {
      const marker = `END-OF-ANSWER-${c.i}`;
      /** Asks for the case's answer and returns its exchange and the long tasks while it was shown. */
      const show = async (attempt: number) => {
        const tag = `[fuzz-${c.i}-${attempt}]`;
        scripts.set(tag, [repl(`x = ${c.python}\nx = x + "\\n\\n${marker}"\nFINAL_VAR("x")`, c.i === 0 ? HOSTILE_PROSE : c.name)]);
        const before = await page.locator("article.exchange").count();
        await askDock(page).getByRole("textbox", { name: "Question" }).fill(`${tag} ${c.name}`);
        await askDock(page).getByRole("button", { name: "Ask", exact: true }).click();
        const article = page.locator("article.exchange").nth(before);
        await article.locator(".status .chip", { hasText: /^\s*Answered\s*$/ }).waitFor({ timeout: 120_000 });
        // From here on the page is rendering the answer (the run that produced it is not measured).
        const started = await now(page);
        const answer = article.getByRole("region", { name: "Answer", exact: true });
        await answer.locator(".markdown[data-render=done], .markdown[data-render=fallback]").waitFor({ timeout: 60_000 });
        await settled(page);
        exchangeOf.set(c.i, before);
        return { answer, tasks: await longTasksSince(page, started) };
      };
      // Like reading through below: a long task while the answer is first shown counts when one
      // over the sanity bound happens again when the same answer is shown a second time.
      const first = await show(1);
      const again = first.tasks.length ? await show(2) : null;
      const answer = (again ?? first).answer;
      const shownFirst = first.tasks;
      const shownAgain = again?.tasks ?? [];
      // The whole answer is on the page; the person reads it through. Jumping to eleven places
      // from its start to its end makes the page format what comes near the screen and let go of
      // what leaves it, which is what scrolling through it does.
      const slots = await answer.locator(".markdown > .md-slot").count();
      const markdown = answer.locator(".markdown");
      /** Waits, as a reader does, until what the screen shows after a jump is formatted. */
      const shows = (where: string) =>
        expect
          .poll(() => screenFormatted(markdown), { message: `${c.name}: the screen is formatted at ${where}`, timeout: 120_000 })
          .toBe(true);
      const readThrough = async (): Promise<LongTask[]> => {
        await markdown.evaluate((el) => el.scrollIntoView({ block: "start" }));
        await shows("the start");
        await settled(page);
        const readStart = await now(page);
        for (let k = 0; k <= 10 && slots > 1; k++) {
          const n = Math.floor((k / 10) * (slots - 1));
          await answer
            .locator(".markdown > .md-slot")
            .nth(n)
            .evaluate((el) => el.scrollIntoView({ block: "start" }));
          await shows(`slot ${n} of ${slots}`);
        }
        // The end, where the reading stopped, gets formatted. Brought to the screen at each look,
        // as a reader scrolls on until the end is there (a jump may land beside it, see above).
        const lastResting = () =>
          markdown.evaluate((el) => {
            const end = el.querySelector(":scope > .md-slot:last-child > .md-chunk:last-child");
            end?.scrollIntoView({ block: "end" });
            return end?.classList.contains("resting") ?? false;
          });
        await expect
          .poll(lastResting, { message: `${c.name}: the end is formatted once scrolled to`, timeout: 120_000, interval: 250 })
          .toBe(false);
        await settled(page);
        return longTasksSince(page, readStart);
      };
      // A long task while reading through counts when one over the sanity bound happens again on
      // a second read: on this shared 2-core machine another process's burst can stretch a single
      // frame, and what is tested here is the page's own work (the first read is reported too).
      const firstRead = await readThrough();
      const secondRead = firstRead.length ? await readThrough() : [];
      const windowed = await answer.locator(".markdown").evaluate((el) => ({
        formatted: el.querySelectorAll(".md-chunk:not(.resting)").length,
        elements: el.querySelectorAll("*").length,
      }));
      const shown = await answer
        .locator(".markdown")
        .evaluate((el: HTMLElement) => ({ state: el.dataset.render, text: el.textContent ?? "" }));
      expect(shown.text, `${c.name}: the end of the answer is on the page`).toContain(marker);
      report.push(
        `${c.name}: ${shown.state}, ${shown.text.length.toLocaleString("en-US")} characters, ${slots} slots (${windowed.formatted} chunks formatted, ${windowed.elements.toLocaleString("en-US")} elements at the end); ` +
          `tasks over 50 ms: shown ${JSON.stringify(shownFirst.map((t) => t.ms))}` +
          (again ? `, shown again ${JSON.stringify(shownAgain.map((t) => t.ms))}` : "") +
          `, read through ${JSON.stringify(firstRead.map((t) => t.ms))}` +
          (firstRead.length ? `, read again ${JSON.stringify(secondRead.map((t) => t.ms))}` : ""),
      );
      // Recurring means more than one: a whole answer formatted at once costs a long task each
      // time it is shown again and each time it is read again; one stray task (914 ms once, at
      // load ~20, the machine's, not the page's) is not that. A single task of seconds still is.
      const later = [...shownAgain, ...secondRead];
      const overSanity = later.filter((t) => t.ms > RECURRING_TASK_SANITY_MS).length > 1 || later.some((t) => t.ms > HUNG_TASK_MS);
      if (overSanity) failures.push(report.at(-1)!);
      // Only the part near the screen is formatted, however long the answer.
      expect(windowed.elements, `${c.name}: elements on the page`).toBeLessThan(ELEMENT_BOUND);
    }

    // The model's prose of the first case, shown in the steps view, renders too.
    if (!only || only.includes(0)) {
      const first = page.locator("article.exchange").nth(1);
      await openSteps(first.getByRole("button", { name: /(Show|Hide) steps/ }));
      const steps = first.getByRole("region", { name: "Trajectory" });
      await steps.getByText("prose continues after all that").waitFor({ timeout: 30_000 });
      // The fences open the prose: a long text is formatted near the screen, so bring its start
      // there. Text content, not innerText: parts off screen skip layout (content-visibility),
      // and innerText reports nothing for them.
      await steps
        .locator(".markdown")
        .first()
        .evaluate((el) => el.scrollIntoView({ block: "start" }));
      await expect.poll(() => steps.locator(".code-lang").allTextContents()).toEqual(expect.arrayContaining(["constructor", "__proto__"]));
    }
    await page.locator("article.exchange").last().scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}huge-answer-1280.png` });

    // Reopening the session renders every answer again. Measured from the moment the first
    // exchange is on screen: loading the app itself is not rendering.
    await page.reload();
    await page.locator("article.exchange").first().waitFor({ timeout: 60_000 });
    const reopened = await now(page);
    await page
      .locator("article.exchange")
      .nth(Math.max(...exchangeOf.values()))
      .waitFor({ timeout: 60_000 });
    await allRendered(page, 240_000);
    await settled(page);
    const afterReload = await longTasksSince(page, reopened);
    report.push(`after reload: tasks over 50 ms ${JSON.stringify(afterReload.map((t) => t.ms))}`);
    // Reopening holds 14 MB of answers: reading the session back and laying the page out are
    // single tasks whose length follows the machine's load (77 ms at load 5, 1-4 s at load 9 on
    // 2 cores; bench/RESULTS.md). The test only asks that nothing hangs, as marked did (minutes).
    if (afterReload.some((t) => t.ms > REOPEN_SANITY_MS)) failures.push(report.at(-1)!);
    // Each answer is on the page in full.
    for (const c of cases) {
      const region = page.locator("article.exchange").nth(exchangeOf.get(c.i)!).getByRole("region", { name: "Answer", exact: true });
      expect(await region.evaluate((el) => el.textContent ?? ""), `${c.name} after the reload`).toContain(`END-OF-ANSWER-${c.i}`);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator("article.exchange").last().scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}huge-answer-390.png` });
    console.log(
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}\n${report.join("\n")}`,
    );
    expect(failures, `main-thread tasks over ${RECURRING_TASK_SANITY_MS} ms, recurring, while rendering`).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 900_000);
});
