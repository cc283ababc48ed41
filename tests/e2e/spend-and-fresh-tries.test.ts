// Issue 28 §3 and §4 in real Chromium against the built app and the scripted model server, at
// laptop and phone widths. §3: when the model cannot drive a run, the harness asks before it
// reads the whole document with the helper model above the person's limits (how many calls, how
// many tokens, on which endpoint), a fallback's answer has its own status, one explanation and
// the right diagnosis. §4: Retry and Edit are fresh tries: the new run never sees the answer it
// retries, and the person chooses between replacing it and keeping both as versions.
//
// Run: npm run build && npx vitest run --project e2e tests/e2e/spend-and-fresh-tries.test.ts
import { mkdirSync } from "node:fs";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { repl as code, type ScriptedRequest } from "../fixtures/scripted-server.ts";
import { askQuestion, axeProblems, openSteps, uploadText, LAPTOP, PHONE, type QuestionRoute } from "./harness.ts";
import { useRoutedStack } from "./stack.ts";

const SHOTS = process.env.UX_SHOTS ?? new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const { routes, stack } = useRoutedStack();

const exchanges = (page: Page) => page.locator("article.exchange");
const last = (page: Page) => exchanges(page).last();
const answerOf = (exchange: Locator) => exchange.getByRole("region", { name: "Answer", exact: true });
const statusOf = (exchange: Locator) => exchange.locator(".status .chip").first();
const subcalls = () => stack.server.requests.filter((r) => !r.isRoot);
const rootRequestsFor = (question: string) => stack.server.requests.filter((r) => r.isRoot && r.firstUser.includes(question));
/** Everything the model was sent for a request, as one text. */
const sent = (r: ScriptedRequest) => r.messages.map((m) => m.content).join("\n");

/** Whether an element is in the band between the sticky header and the question box, uncovered. */
function inView(el: Locator): Promise<boolean> {
  return el.evaluate((node) => {
    const header = document.querySelector("header.top")!.getBoundingClientRect().bottom;
    const dock = document.querySelector(".ask-dock")?.getBoundingClientRect().top ?? innerHeight;
    const r = node.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height, 40) / 2);
    return r.top >= header - 1 && r.bottom <= Math.min(innerHeight, dock) + 1 && !!hit && (hit === node || node.contains(hit));
  });
}

const noSideScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

// --- §3: the fallback asks before it spends ------------------------------------------------

/** 255,000 characters: 16 parts for the 8K-window helper model (pieces end at a line break), 17 calls, over the default 12. */
const NEEDLE = "The vault code is 7-4-1-9.";
function bigDocument(): string {
  const line = "Minutes of the harbour board: the cranes were inspected and found sound.\n";
  const body = line.repeat(Math.ceil(255_000 / line.length));
  const at = Math.floor(body.length * 0.6);
  const cut = body.indexOf("\n", at) + 1;
  return `${body.slice(0, cut)}${NEEDLE}\n${body.slice(cut)}`;
}

/** A root that only ever writes prose: after two such turns the model cannot drive the run. */
const prose: QuestionRoute = () => "Let me think about where the vault code could be.";
/** The helper model: finds the code in the part that holds it, and combines. */
function helper(req: ScriptedRequest): string {
  if (req.lastUser.includes("Answers found in different parts")) return "The vault code is 7-4-1-9.";
  return req.lastUser.includes(NEEDLE) ? "7-4-1-9" : "NOT FOUND";
}

describe("the fallback asks before it spends", () => {
  for (const viewport of [LAPTOP, PHONE]) {
    it(`above the limits the run waits for a choice that names calls, tokens and the endpoint; reading answers with its own status and one explanation (${viewport.width} px)`, async () => {
      routes.set("Vault", prose);
      stack.server.scripts.sub = helper;
      const scheme = viewport === PHONE ? "dark" : "light";
      const { context, page, errors } = await stack.openPage({ viewport, colorScheme: scheme });
      await uploadText(page, "minutes.txt", bigDocument());
      const before = subcalls().length;
      await askQuestion(page, "Vault: what is the code?");
      const choice = page.getByTestId("fallback-choice");
      await choice.waitFor({ timeout: 60_000 });
      // Nothing was spent on the helper model before the person chose.
      expect(subcalls().length).toBe(before);
      await expect.poll(async () => (await statusOf(last(page)).innerText()).trim()).toBe("Waiting for your choice");
      const text = (await choice.innerText()).replace(/\s+/g, " ");
      expect(text).toContain("Read all 16 parts of the document with the helper model?");
      expect(text).toContain("The model could not drive the run: it wrote nothing that could run in 2 turns in a row.");
      expect(text).toMatch(
        /17 calls \(16 parts and 1 to combine\), ≈ \d+(\.\d)?K tokens, (≈ \d+ (s|min)|under a second) at this run's speed, on 127\.0\.0\.1:\d+, a server on your machine or network: it costs time, not money\./,
      );
      expect(text).toContain("This is 17 calls, over the limit of 12, so the run waits for you.");
      // The choice is where the person is looking, with the focus on it.
      const read = choice.getByRole("button", { name: "Read all 16 parts of the document" });
      await expect.poll(() => inView(read), { timeout: 10_000 }).toBe(true);
      await expect.poll(() => read.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await noSideScroll(page)).toBe(true);
      expect(await axeProblems(page)).toEqual([]);
      await page.screenshot({ path: `${SHOTS}fallback-choice-${scheme}-${viewport.width}.png` });

      await read.click();
      const exchange = last(page);
      await statusOf(exchange).getByText("Answered by the fallback").waitFor({ timeout: 60_000 });
      expect(subcalls().length - before).toBe(17);
      expect(await answerOf(exchange).innerText()).toContain("7-4-1-9");
      // Not the model's green "Answered": its own status and colour.
      expect(await exchange.getAttribute("data-produced-by")).toBe("fallback");
      expect(await statusOf(exchange).locator(".dot").getAttribute("class")).toContain("fallback");
      // One explanation, with the right cause, in the whole exchange (steps included).
      await openSteps(exchange.getByRole("button", { name: /(Show|Hide) steps/ }));
      const all = await exchange.innerText();
      expect(all.match(/could not drive/g)).toHaveLength(1);
      expect(await exchange.getByTestId("how-answered").innerText()).toBe(
        "Answered by the fallback, not by the model. The model could not drive the run: it wrote nothing that could run in 2 turns in a row. So the harness read all 16 parts of the document with the helper model, as you chose.",
      );
      await exchange.getByTestId("how-answered").scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}fallback-answer-${scheme}-${viewport.width}.png` });
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it("Stop here spends nothing and says what it would have cost; Stop while asked stops the run", async () => {
    routes.set("Vault", prose);
    stack.server.scripts.sub = helper;
    const { context, page, errors } = await stack.openPage({ viewport: LAPTOP, colorScheme: "dark" });
    await uploadText(page, "minutes.txt", bigDocument());
    const before = subcalls().length;
    await askQuestion(page, "Vault: the code, please?");
    const choice = page.getByTestId("fallback-choice");
    await choice.waitFor({ timeout: 60_000 });
    expect(await axeProblems(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}fallback-choice-dark-1280.png` });
    await choice.getByRole("button", { name: "Stop here" }).click();
    const exchange = last(page);
    await statusOf(exchange).getByText("Stopped").waitFor({ timeout: 30_000 });
    expect(subcalls().length).toBe(before);
    expect(await answerOf(exchange).innerText()).toMatch(
      /The model could not drive the run: it wrote nothing that could run in 2 turns in a row\. You stopped here rather than have the harness read the document: reading all 16 parts of the document would take 17 calls \(16 parts and 1 to combine\), ≈ [\d.]+K tokens/,
    );
    await page.screenshot({ path: `${SHOTS}fallback-declined-dark-1280.png` });

    // Asked again (Continue goes on from the model's turns), then the run's own Stop.
    await exchange.getByRole("button", { name: "Continue" }).click();
    await choice.waitFor({ timeout: 60_000 });
    await page.getByRole("button", { name: "Stop run" }).click();
    await statusOf(exchange).getByText("Stopped").waitFor({ timeout: 30_000 });
    expect(await choice.count()).toBe(0);
    expect(subcalls().length).toBe(before);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("within the limits it reads without asking; the limit is the person's to set in Settings", async () => {
    routes.set("Small vault", prose);
    stack.server.scripts.sub = helper;
    const { context, page, errors } = await stack.openPage({ viewport: LAPTOP });
    await uploadText(page, "note.txt", `A short note about the harbour.\n${NEEDLE}\n`.repeat(3));
    await askQuestion(page, "Small vault: what is the code?");
    const exchange = last(page);
    await statusOf(exchange).getByText("Answered by the fallback").waitFor({ timeout: 60_000 });
    expect(await page.getByTestId("fallback-choice").count()).toBe(0);

    // One call is the limit now: the same reading (a part and the combining call) asks first.
    await page.getByRole("button", { name: "Settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    expect(await dialog.getByLabel("When the model cannot drive a run").inputValue()).toBe("ask");
    await dialog.getByLabel("Ask first above (helper calls)").fill("1");
    await dialog.getByRole("group", { name: "The harness's own reading" }).screenshot({ path: `${SHOTS}settings-fallback-1280.png` });
    await dialog.getByRole("button", { name: "Save" }).click();
    const before = subcalls().length;
    await askQuestion(page, "Small vault: and again?");
    const choice = page.getByTestId("fallback-choice");
    await choice.waitFor({ timeout: 60_000 });
    expect((await choice.innerText()).replace(/\s+/g, " ")).toContain("This is 2 calls, over the limit of 1");
    expect(subcalls().length).toBe(before);
    await choice.getByRole("button", { name: "Read the whole document" }).click();
    await statusOf(last(page)).getByText("Answered by the fallback").waitFor({ timeout: 60_000 });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("names the right cause: the same code three times is not 'nothing that could run'", async () => {
    routes.set("Loop", () => code("print('looking')"));
    stack.server.scripts.sub = helper;
    const { context, page, errors } = await stack.openPage({ viewport: LAPTOP });
    await uploadText(page, "note.txt", `A short note about the harbour.\n${NEEDLE}\n`);
    await askQuestion(page, "Loop: what is the code?");
    const exchange = last(page);
    await statusOf(exchange).getByText("Answered by the fallback").waitFor({ timeout: 60_000 });
    expect(await exchange.getByTestId("how-answered").innerText()).toMatch(
      /^Answered by the fallback, not by the model\. The model could not drive the run: it sent the same code 3 times in a row\. So the harness read the whole document with the helper model\.$/,
    );
    expect(errors).toEqual([]);
    await context.close();
  });
});

// --- §4: Retry and Edit are fresh tries --------------------------------------------------------

/** A question whose first answer is wrong and whose next is right; a cell shows how much history Python holds. */
function wrongThenRight(wrong: string, right: string): QuestionRoute {
  let asked = 0;
  return (req) => {
    if (req.turn === 0) {
      asked += 1;
      return code('print("HISTORY", len(history))');
    }
    return code(`FINAL(${JSON.stringify(asked === 1 ? wrong : right)})`);
  };
}

describe("Retry and Edit are fresh tries", () => {
  // One run for both widths: what the model is sent does not depend on the width, and the
  // layout of each state is checked at both (a second run would repeat the same states).
  it("Retry → Replace: the new try never sees the answer it replaces, and takes its place (1280 and 390 px)", async () => {
    routes.set("Which gate", wrongThenRight("Gate WRONG-123", "Gate 7"));
    routes.set("Which ship", () => code("FINAL('The Aurora.')"));
    const { context, page, errors } = await stack.openPage({ viewport: LAPTOP });
    await uploadText(page, "harbour.txt", "The ship Aurora leaves from gate 7.\n".repeat(30));
    await askQuestion(page, "Which ship leaves?");
    await statusOf(last(page)).getByText("Answered").waitFor({ timeout: 60_000 });
    await askQuestion(page, "Which gate does it leave from?");
    const first = last(page);
    await answerOf(first).getByText("Gate WRONG-123").waitFor({ timeout: 60_000 });

    await first.getByRole("button", { name: "Retry" }).click();
    const again = first.getByRole("group", { name: "Ask again" });
    await again.waitFor();
    for (const viewport of [PHONE, LAPTOP]) {
      await page.setViewportSize(viewport);
      expect(await noSideScroll(page), `${viewport.width} px`).toBe(true);
      await again.screenshot({ path: `${SHOTS}retry-choice-${viewport.width}.png` });
    }
    await again.getByRole("button", { name: "Replace this answer" }).click();
    await answerOf(last(page)).getByText("Gate 7").waitFor({ timeout: 60_000 });

    // What the model was sent for the fresh try: the earlier question before it, not the wrong answer.
    const tries = rootRequestsFor("Which gate does it leave from?");
    const retried = tries.filter((r) => r.turn === 0).at(-1)!;
    expect(sent(retried)).toContain("The Aurora.");
    expect(sent(retried)).not.toContain("WRONG-123");
    // Python's `history` holds the one question before it, not the retried one.
    expect(sent(tries.at(-1)!)).toContain("HISTORY 1");
    // Replaced in place: two exchanges, the new answer where the old one was, and so after a reload.
    expect(await exchanges(page).count()).toBe(2);
    expect(await page.getByText("Gate WRONG-123").count()).toBe(0);
    expect(await page.getByTestId("version").count()).toBe(0);
    for (const viewport of [PHONE, LAPTOP]) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: `${SHOTS}retry-replaced-${viewport.width}.png` });
    }
    await page.reload();
    await answerOf(last(page)).getByText("Gate 7").waitFor({ timeout: 60_000 });
    expect(await exchanges(page).count()).toBe(2);
    expect(await page.getByText("WRONG-123").count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("Edit → Keep both: the edited question stands in the first one's place as version 2, later questions follow the version shown, and a reload keeps it (390 px dark, 1280 px light)", async () => {
    routes.set("Who signs", wrongThenRight("Signed by WRONG-Smith", "Signed by RIGHT-Jones"));
    routes.set("Who signed", () => code("FINAL('Signed by RIGHT-Jones.')"));
    routes.set("When does", () => code("FINAL('At dawn.')"));
    routes.set("Sum up", () => code("FINAL('Summed up.')"));
    const { context, page, errors } = await stack.openPage({ viewport: PHONE, colorScheme: "dark" });
    await uploadText(page, "harbour.txt", "The permit is signed by Harbour Master Jones. The ship leaves at dawn.\n".repeat(30));
    await askQuestion(page, "Who signs the permit?");
    await answerOf(last(page)).getByText("Signed by WRONG-Smith").waitFor({ timeout: 60_000 });
    await askQuestion(page, "When does the ship leave?");
    await answerOf(last(page)).getByText("At dawn.").waitFor({ timeout: 60_000 });

    const first = exchanges(page).first();
    await first.getByRole("button", { name: "Edit question" }).click();
    await first.getByLabel("Edit the question").fill("Who signed the permit, by title?");
    await first.locator("form.edit").screenshot({ path: `${SHOTS}edit-choice-dark-${PHONE.width}.png` });
    await first.getByRole("button", { name: "Keep both" }).click();
    const edited = exchanges(page).first();
    await answerOf(edited).getByText("Signed by RIGHT-Jones.").waitFor({ timeout: 60_000 });
    // In the first question's place (above the later one), as its second version.
    expect(await edited.locator("h3").innerText()).toBe("Who signed the permit, by title?");
    expect(await exchanges(page).count()).toBe(2);
    expect(await edited.getByTestId("version").innerText()).toBe("Version 2 of 2");
    // It followed the history before the first question: nothing, neither the wrong answer nor the later one.
    const fresh = rootRequestsFor("Who signed the permit, by title?")[0]!;
    expect(sent(fresh)).not.toContain("WRONG-Smith");
    expect(sent(fresh)).not.toContain("At dawn.");
    // This state at both widths and in both schemes (one run: the flow does not depend on them).
    for (const [viewport, scheme] of [
      [PHONE, "dark"],
      [LAPTOP, "light"],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme: scheme });
      expect(await noSideScroll(page), `${viewport.width} px`).toBe(true);
      expect(await axeProblems(page), `${viewport.width} px, ${scheme}`).toEqual([]);
      await edited.locator("header").screenshot({ path: `${SHOTS}versions-${scheme}-${viewport.width}.png` });
      await page.screenshot({ path: `${SHOTS}versions-page-${scheme}-${viewport.width}.png` });
    }

    // Back to version 1: the next question builds on the version shown.
    await edited.getByRole("button", { name: "Previous version" }).click();
    await answerOf(exchanges(page).first()).getByText("Signed by WRONG-Smith").waitFor();
    await askQuestion(page, "Sum up the permit and the departure.");
    await answerOf(last(page)).getByText("Summed up.").waitFor({ timeout: 60_000 });
    const next = sent(rootRequestsFor("Sum up the permit")[0]!);
    expect(next).toContain("WRONG-Smith");
    expect(next).not.toContain("RIGHT-Jones");

    await page.reload();
    await exchanges(page).nth(2).waitFor({ timeout: 60_000 });
    expect(await exchanges(page).count()).toBe(3);
    const reloaded = exchanges(page).first();
    expect(await reloaded.getByTestId("version").innerText()).toBe("Version 1 of 2");
    // Answers are formatted as they come near the screen: look at it, then read it.
    await reloaded.scrollIntoViewIfNeeded();
    await answerOf(reloaded).getByText("Signed by WRONG-Smith").waitFor();
    await reloaded.getByRole("button", { name: "Next version" }).click();
    await answerOf(exchanges(page).first()).getByText("Signed by RIGHT-Jones.").waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
