// The reading experience, second pass (issue 28), in real Chromium against the built app and the
// scripted model server, at laptop and phone widths: the finished answer comes into view (or an
// "Answer ready" button when the person scrolled away), focus only ever lands on something that
// can be seen, the start panel stays away once a question was asked, the effort presets say their
// limits as limits and an estimate only from what was measured, a phone's fixed chrome leaves the
// answer the screen, and the smaller things: the turn timeline scrolls to its turn, "Copy code"
// copies only the code, messages never cover Choose files… or Export, and a failed run shows
// no "0 turns · 0 + 0 tokens" and offers no export of nothing.
//
// Run: npm run build && npx vitest run --project e2e tests/e2e/reading-experience.test.ts
import { mkdirSync } from "node:fs";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { repl as code, gate } from "../fixtures/scripted-server.ts";
import { askQuestion, hangAfter, newPage, turnShown, uploadText, LAPTOP, PHONE, type QuestionRoute } from "./harness.ts";
import { useRoutedStack } from "./stack.ts";

const SHOTS = process.env.UX_SHOTS ?? new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const { routes, stack } = useRoutedStack();

const SMALL_PHONE = { width: 360, height: 740 };

const last = (page: Page) => page.locator("article.exchange").last();
const answerOf = (exchange: Locator) => exchange.getByRole("region", { name: "Answer", exact: true });

/**
 * Where an element is against what a person can see: the band between the sticky header and
 * the sticky question box. `top`: its top is in the band with room for a line below it;
 * `whole`: all of it is in the band and nothing lies over its middle.
 */
function placement(el: Locator): Promise<{ top: boolean; whole: boolean; rect: { top: number; bottom: number } }> {
  return el.evaluate((node) => {
    const header = document.querySelector("header.top")!.getBoundingClientRect().bottom;
    const dock = document.querySelector(".ask-dock")?.getBoundingClientRect().top ?? innerHeight;
    const bottom = Math.min(innerHeight, dock);
    const r = node.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height, 40) / 2);
    return {
      top: r.top >= header - 1 && r.top <= bottom - 40,
      whole: r.top >= header - 1 && r.bottom <= bottom + 1 && !!hit && (hit === node || node.contains(hit)),
      rect: { top: Math.round(r.top), bottom: Math.round(r.bottom) },
    };
  });
}

/** What has the focus, and whether a person can see it (in the band, nothing over it). */
function focusPlacement(page: Page): Promise<{ what: string; seen: boolean }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { what: "(nothing)", seen: false };
    const header = document.querySelector("header.top")!.getBoundingClientRect().bottom;
    const dock = document.querySelector(".ask-dock")?.getBoundingClientRect().top ?? innerHeight;
    const r = el.getBoundingClientRect();
    const tall = r.height > 120;
    const bottom = tall ? r.top + 40 : r.bottom;
    const hit = document.elementFromPoint(r.left + r.width / 2, (r.top + bottom) / 2);
    const what = `${el.tagName.toLowerCase()} ${el.getAttribute("aria-label") ?? el.textContent?.trim().slice(0, 40) ?? ""}`;
    return { what, seen: r.top >= header - 1 && bottom <= Math.min(innerHeight, dock) + 1 && !!hit && (hit === el || el.contains(hit)) };
  });
}

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett"];
/**
 * A run of `turns` turns, each printing a tall block, then the answer. Each turn's code is its
 * own (a near-copy of the last turn's would trip the stuck-model guard and end in the fallback).
 */
const tallRun =
  (turns: number, answer: string, { delayMs = 0, answerAfter }: { delayMs?: number; answerAfter?: Promise<void> } = {}): QuestionRoute =>
  (req) => {
    const word = WORDS[req.turn % WORDS.length]!.toUpperCase().repeat(3);
    return req.turn < turns
      ? { text: code(`${word.toLowerCase()} = ${req.turn}\nfor i in range(30):\n    print("${word}", i)`), delayMs }
      : { text: code(`FINAL(${JSON.stringify(answer)})`), after: answerAfter };
  };

describe("the finished answer is in front of you", () => {
  for (const viewport of [LAPTOP, PHONE]) {
    it(`comes into view when the run ends, with the focus on something in view (${viewport.width} px)`, async () => {
      routes.set("Three turns", tallRun(3, "The ledger runs from **1871** to 1931."));
      const { context, page, errors } = await stack.openPage({ viewport });
      await uploadText(page, "ledger.txt", "The ledger.\n".repeat(40));
      await askQuestion(page, "Three turns, then the answer");
      await last(page).locator(".chip", { hasText: "Answered" }).waitFor({ timeout: 60_000 });
      // Followed to the bottom while it ran: the steps (below the answer) were in view.
      await expect.poll(async () => (await placement(answerOf(last(page)))).top, { timeout: 10_000 }).toBe(true);
      await expect.poll(async () => (await focusPlacement(page)).seen, { timeout: 10_000 }).toBe(true);
      await page.screenshot({ path: `${SHOTS}answer-in-view-${viewport.width}.png` });
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it("stays where the person scrolled to during the run, and offers the answer with an 'Answer ready' button", async () => {
    // Every step is on the page before the reader scrolls up to the second turn, and the answer
    // is held until they have. Before, a 700 ms delay per turn raced the reader: on a busy machine
    // the scroll landed at the foot of a page still short of the last turns, so the page kept
    // following and showed the answer, and no button was due (seen in two runs, issue 38).
    const scrolled = gate();
    routes.set("Slow walk", tallRun(5, "Found it: 42.", { answerAfter: scrolled.opened }));
    const { context, page, errors } = await stack.openPage({ viewport: LAPTOP });
    await uploadText(page, "ledger.txt", "The ledger.\n".repeat(40));
    await askQuestion(page, "Slow walk through the ledger");
    await page.locator('.turn[data-turn="4"] pre.output', { hasText: "ECHOECHOECHO 29" }).waitFor({ timeout: 60_000 });
    // Reading the second turn's output, in the steps below where the answer will be.
    const turn2 = page.locator('.turn[data-turn="1"]');
    await turn2.evaluate((el) => el.scrollIntoView({ block: "center" }));
    // Three tall turns below it: the reader is not at the foot of the page, where it would follow.
    expect(await page.evaluate(() => innerHeight + scrollY < document.documentElement.scrollHeight - 200)).toBe(true);
    // A frame later the page has had the scroll event (it runs before animation frames).
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const reading = await turn2.evaluate((el) => el.getBoundingClientRect().top);
    scrolled.open();
    await last(page).locator(".chip", { hasText: "Answered" }).waitFor({ timeout: 60_000 });
    const ready = page.getByRole("button", { name: "Answer ready ↑" });
    await ready.waitFor({ timeout: 10_000 });
    // Nothing moved under the reader (the browser keeps what they read in place as the bar above goes).
    expect(Math.abs((await turn2.evaluate((el) => el.getBoundingClientRect().top)) - reading)).toBeLessThanOrEqual(2);
    expect((await placement(answerOf(last(page)))).top).toBe(false);
    expect((await placement(ready)).whole).toBe(true);
    await page.screenshot({ path: `${SHOTS}answer-ready-pill-1280.png` });
    await ready.click();
    await expect.poll(async () => (await placement(answerOf(last(page)))).top).toBe(true);
    await ready.waitFor({ state: "detached" });
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("after Stop or a failure in a new session", () => {
  for (const viewport of [LAPTOP, PHONE]) {
    it(`the start panel stays away and nothing focused is covered; a failed run shows no empty totals nor an export of nothing (${viewport.width} px)`, async () => {
      routes.set("Hold on", hangAfter("print('looking')"));
      routes.set("Break", () => ({ text: "", status: 500, error: "the model server broke" }));
      const { context, page, errors } = await stack.openPage({ viewport });
      await uploadText(page, "ledger.txt", "The ledger.\n".repeat(40));
      const steps = page.getByRole("region", { name: "Get an answer in three steps" });
      expect(await steps.count()).toBe(1);

      await askQuestion(page, "Hold on while I look");
      await turnShown(page, 2);
      await page.keyboard.press("Escape");
      const stopped = last(page);
      await stopped.locator(".chip", { hasText: "Stopped" }).waitFor({ timeout: 15_000 });
      await expect.poll(() => focusPlacement(page), { timeout: 10_000 }).toEqual({ what: "button Continue", seen: true });
      expect(await steps.count()).toBe(0);
      await expect.poll(async () => (await placement(stopped.locator(".chip", { hasText: "Stopped" }))).whole).toBe(true);
      await page.screenshot({ path: `${SHOTS}stopped-first-question-${viewport.width}.png` });

      // A failure in another new session.
      if (viewport.width <= 860) await page.getByRole("button", { name: "Sessions" }).click(); // the menu, on phones
      await page.getByRole("button", { name: "+ New" }).click();
      await page.locator("article.exchange").first().waitFor({ state: "detached" });
      await uploadText(page, "ledger.txt", "The ledger.\n".repeat(40));
      await askQuestion(page, "Break, please");
      const failed = last(page);
      await failed.locator(".chip", { hasText: "Failed" }).waitFor({ timeout: 60_000 });
      await expect.poll(async () => (await focusPlacement(page)).seen, { timeout: 10_000 }).toBe(true);
      expect(await steps.count()).toBe(0);
      expect((await placement(failed.locator(".chip", { hasText: "Failed" }))).whole).toBe(true);
      expect((await placement(failed.getByRole("button", { name: "Retry" }))).whole).toBe(true);
      // Nothing was spent and there is nothing to export: the card says how long it took.
      const status = await failed.locator(".status").innerText();
      expect(status).not.toMatch(/0 \+ 0 tokens|0 turns|0 sub-calls/);
      expect(status).toMatch(/after \d+ ms/);
      expect(await failed.getByRole("button", { name: /^Export/ }).count()).toBe(0);
      await page.screenshot({ path: `${SHOTS}failed-first-question-${viewport.width}.png` });
      expect(errors.filter((e) => !e.includes("500"))).toEqual([]);
      await context.close();
    });
  }
});

describe("effort presets", () => {
  it("say their limits as limits, and what runs here took only once one has run", async () => {
    routes.set("Where", () => code("print(len(context))\nFINAL('It is in chapter 3.')"));
    const { context, page, errors } = await stack.openPage({ viewport: LAPTOP });
    // 2 MB: the old page announced "Thorough ≈ 15 min · ≈ 4.5M tokens" for files like this.
    await uploadText(page, "big.txt", "A line of a long report.\n".repeat(80_000));
    const efforts = page.getByRole("radiogroup", { name: "Effort" });
    const preset = (name: string) => efforts.locator("label", { hasText: name });
    const text = async (name: string) => (await preset(name).innerText()).replace(/\s+/g, " ").trim();
    await expect.poll(() => text("Quick")).toBe("Quick up to 3 min · 20 sub-calls");
    expect(await text("Thorough")).toBe("Thorough up to 15 min · 200 sub-calls");
    expect(await text("Exhaustive")).toBe("Exhaustive up to 1 h · 1,000 sub-calls");
    expect(await page.locator(".ask").innerText()).not.toMatch(/≈|[Ee]stimate/);

    await askQuestion(page, "Where is the answer?");
    const answered = last(page);
    await answered.locator(".chip", { hasText: "Answered" }).waitFor({ timeout: 60_000 });
    // What the run took, measured: the same tokens as its card says.
    const totals = (await answered.locator(".totals").first().innerText()).replace(/\s+/g, " ");
    const [, prompt, completion] = /([\d,]+) \+ ([\d,]+) tokens/.exec(totals)!;
    const tokens = Number(prompt!.replace(/,/g, "")) + Number(completion!.replace(/,/g, ""));
    const shown = tokens >= 10_000 ? `${Math.round(tokens / 1000)}K` : tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}K` : String(tokens);
    const took = `took \\d+ s · ${shown.replace(".", "\\.")} tokens here`;
    await page.locator(".ask").getByText(new RegExp(took)).waitFor();
    // The measure has a line of its own: the three efforts stay on one row, each on one line
    // (inside Thorough's button it pushed Exhaustive to a second row, issue 34 #8).
    const boxes = await efforts
      .locator("label")
      .evaluateAll((labels) => labels.map((l) => ({ top: l.getBoundingClientRect().top, height: l.getBoundingClientRect().height })));
    expect(boxes).toHaveLength(3);
    expect(new Set(boxes.map((b) => Math.round(b.top))).size, JSON.stringify(boxes)).toBe(1);
    expect(Math.max(...boxes.map((b) => b.height)), JSON.stringify(boxes)).toBeLessThan(40);
    expect(await page.getByTestId("effort-measured").innerText()).toMatch(new RegExp(`^Thorough ${took}\\.$`));
    await page.locator(".ask").screenshot({ path: `${SHOTS}effort-measured-1280.png` });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("on a document that fits the window, say once that it is one direct call rather than three times the same", async () => {
    const { context, page, errors } = await stack.openPage({ viewport: LAPTOP }, { mode: "auto" });
    await uploadText(page, "short.txt", "A short note.\n".repeat(20));
    await page
      .getByTestId("direct-note")
      .getByText(/one direct call, whatever the effort/)
      .waitFor();
    const lines = await page.getByRole("radiogroup", { name: "Effort" }).locator("label").allInnerTexts();
    expect(new Set(lines.map((l) => l.replace(/^\w+ /, ""))).size).toBe(3);
    await page.locator(".ask").screenshot({ path: `${SHOTS}effort-direct-1280.png` });
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("a phone's fixed chrome leaves the answer the screen", () => {
  for (const viewport of [PHONE, SMALL_PHONE]) {
    it(`header and question box take at most a quarter of the screen; the effort opens on demand (${viewport.width} px)`, async () => {
      routes.set("Phone", tallRun(2, "Answered on a phone.\n\n" + "A long line of the answer. ".repeat(60)));
      const { context, page, errors } = await stack.openPage({ viewport });
      await uploadText(page, "ledger.txt", "The ledger.\n".repeat(40));
      await askQuestion(page, "Phone question");
      await last(page).locator(".chip", { hasText: "Answered" }).waitFor({ timeout: 60_000 });
      // The header's own row (a message, when there is one, takes a row under it for a while).
      const chrome = await page.evaluate(() => ({
        header:
          document.querySelector("header.top")!.getBoundingClientRect().height -
          (document.querySelector("header.top .notices")?.getBoundingClientRect().height ?? 0),
        dock: document.querySelector(".ask-dock")!.getBoundingClientRect().height,
      }));
      expect(chrome.header + chrome.dock, JSON.stringify(chrome)).toBeLessThanOrEqual(viewport.height * 0.25);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
      await page.screenshot({ path: `${SHOTS}phone-answer-${viewport.width}.png` });
      // Everything folded is one tap away: the effort, comparing, the views, the sessions.
      const fold = page.getByRole("button", { name: /Thorough/ });
      expect(await fold.getAttribute("aria-expanded")).toBe("false");
      expect(await page.getByRole("radio", { name: /Quick/ }).isVisible()).toBe(false);
      await fold.click();
      await page.getByRole("radio", { name: /Quick/ }).check();
      await page.getByRole("checkbox", { name: /Also answer directly/ }).waitFor();
      await page.screenshot({ path: `${SHOTS}phone-options-open-${viewport.width}.png` });
      await page.getByRole("button", { name: /Quick/ }).click();
      expect(await page.getByRole("radio", { name: /Quick/ }).isVisible()).toBe(false);
      await page.getByRole("button", { name: "Sessions" }).click();
      await page.getByRole("button", { name: "Benchmark" }).click();
      await page.getByRole("heading", { name: "Benchmark" }).waitFor();
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});

describe("the smaller things", () => {
  // One page for both (a page's Python start is most of a short test's time).
  it("the turn timeline scrolls to the turn it selects, End and Home included; Copy code copies the code only, not its language label", async () => {
    routes.set("Six turns", tallRun(6, "Done after six turns."));
    const snippet = "def total(xs):\n    return sum(xs)";
    routes.set("Code", () => code(`FINAL(${JSON.stringify(`Use this:\n\n\`\`\`python\n${snippet}\n\`\`\`\n`)})`));
    const { context, page, errors } = await newPage(stack.browser, {
      viewport: LAPTOP,
      permissions: ["clipboard-read", "clipboard-write"],
    });
    await stack.open(page);
    await uploadText(page, "ledger.txt", "The ledger.\n".repeat(40));
    await askQuestion(page, "Six turns of steps");
    await last(page).locator(".chip", { hasText: "Answered" }).waitFor({ timeout: 60_000 });
    const timeline = page.getByRole("toolbar", { name: /Turns/ });
    const turnHead = (i: number) => page.locator(`.turn[data-turn="${i}"] .turn-head`);
    await timeline.getByRole("button", { name: "Turn 1", exact: true }).click();
    await expect.poll(async () => (await placement(turnHead(0))).whole).toBe(true);
    await page.keyboard.press("End");
    await expect.poll(() => timeline.locator("[aria-current=step]").getAttribute("aria-label")).toBe("Turn 7");
    await expect.poll(async () => (await placement(turnHead(6))).whole).toBe(true);
    // The strip stays in view with the focus on its button, above the turn.
    expect((await placement(timeline.getByRole("button", { name: "Turn 7", exact: true }))).whole).toBe(true);
    await page.screenshot({ path: `${SHOTS}timeline-end-1280.png` });
    await page.keyboard.press("Home");
    await expect.poll(async () => (await placement(turnHead(0))).whole).toBe(true);
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    await expect.poll(async () => (await placement(turnHead(2))).whole).toBe(true);

    await askQuestion(page, "Code for a total");
    const answer = answerOf(last(page));
    await answer.locator("pre code").waitFor({ timeout: 60_000 });
    await answer.getByRole("button", { name: "Copy code" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
    expect(errors).toEqual([]);
    await context.close();
  });

  // One run, checked at both widths: the page's layout follows its width, and the message stays
  // until dismissed, so a second run only to see it at another width would repeat the same state.
  it("a message never covers Choose files…, Folder… or the Export buttons (1280 px, then 390 px)", async () => {
    routes.set("Wait", hangAfter("print('looking')"));
    routes.set("Answer", () => code("FINAL('The answer.')"));
    const { context, page, errors } = await stack.openPage({ viewport: LAPTOP });
    await uploadText(page, "ledger.txt", "The ledger.\n".repeat(40));
    await askQuestion(page, "Wait for me");
    await turnShown(page, 2);
    // A file dropped while a question runs: a warning that stays until dismissed.
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File(["more"], "more.txt", { type: "text/plain" }));
      window.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    const notice = page.getByText(/Wait for the current question to finish/);
    await notice.waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Stop", exact: true }).click();
    await last(page).locator(".chip", { hasText: "Stopped" }).waitFor({ timeout: 15_000 });
    await askQuestion(page, "Answer me");
    await last(page).locator(".chip", { hasText: "Answered" }).waitFor({ timeout: 60_000 });
    for (const viewport of [LAPTOP, PHONE]) {
      await page.setViewportSize(viewport);
      expect(await notice.isVisible(), `the message at ${viewport.width} px`).toBe(true);
      const buttons = [
        page.getByRole("button", { name: "Choose files…" }),
        page.getByRole("button", { name: "Folder…" }),
        last(page).getByRole("button", { name: "Export answer (.md)" }),
        last(page).getByRole("button", { name: "Export trajectory (.jsonl)" }),
      ];
      if (viewport.width > 860) buttons.push(page.getByRole("button", { name: "Export session trajectory" }));
      for (const button of buttons) {
        // Where a person finds it: just under the header (a message's place), and mid-screen.
        for (const where of ["top", "middle"] as const) {
          await button.evaluate((el, at) => {
            const header = document.querySelector("header.top")!.getBoundingClientRect().bottom;
            const r = el.getBoundingClientRect();
            const to = at === "top" ? header + 4 : innerHeight / 2;
            if (!el.closest(".side")) window.scrollBy(0, r.top - to);
          }, where);
          const hit = await button.evaluate((el) => {
            const r = el.getBoundingClientRect();
            const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return !!at && (at === el || el.contains(at));
          });
          expect(hit, `${await button.innerText()} is covered (${where}, ${viewport.width} px)`).toBe(true);
        }
      }
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: `${SHOTS}notice-in-flow-${viewport.width}.png` });
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});
