// Small models on the page (issue 13), in Chromium against the built app and the scripted model
// server: the prompt profile chosen by the share link or in Settings is the one the server
// receives, and the page says when an answer came from the fallback or from one direct call.
import { mkdirSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { VANILLA_SYSTEM_PROMPT } from "../../src/core/direct.ts";
import { repl as code, type ScriptedRequest } from "../fixtures/scripted-server.ts";
import { documentInput, startStack, openSteps } from "./harness.ts";
import { useStack } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const stack = useStack(() => startStack({ contextWindow: 8192 }));

const GUIDED_MARK = "search(pattern, window=200)";
const CANONICAL_MARK = 'answer["ready"] = True';
const rootRequestsFor = (question: string) => stack.server.requests.filter((r) => r.isRoot && r.firstUser.includes(question));

async function upload(page: Page, name: string, content: string) {
  await documentInput(page).setInputFiles({ name, mimeType: "text/plain", buffer: Buffer.from(content) });
  await page.locator(".docs .name", { hasText: name }).first().waitFor({ timeout: 60_000 });
}

async function askAndWait(page: Page, question: string, expected: string) {
  await page.getByRole("textbox", { name: "Question" }).fill(question);
  await page.getByRole("button", { name: "Ask", exact: true }).click();
  await page.getByRole("region", { name: "Answer", exact: true }).last().getByText(expected).first().waitFor({ timeout: 90_000 });
}

describe("prompt profiles on the page", () => {
  it("the share link picks a profile, Settings changes it, and the model server receives that prompt", async () => {
    stack.server.scripts.root = () => code("FINAL('ok ' + str(len(context)))");
    const { context, page, errors } = await stack.openPage({}, { prompt: "guided" });
    await upload(page, "notes.txt", "Some notes.");
    await askAndWait(page, "First profile question", "ok 11");
    const guided = rootRequestsFor("First profile question");
    expect(guided[0]!.messages[0]!.content).toContain(GUIDED_MARK);

    await page.getByRole("button", { name: "Settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    expect(await dialog.getByLabel("Prompt profile").inputValue()).toBe("guided");
    await dialog.getByLabel("Prompt profile").selectOption("canonical");
    await dialog.screenshot({ path: `${SHOTS}settings-prompt-profile.png` });
    await dialog.getByRole("button", { name: "Save" }).click();
    await askAndWait(page, "Second profile question", "ok 11");
    const canonical = rootRequestsFor("Second profile question");
    expect(canonical[0]!.messages[0]!.content).toContain(CANONICAL_MARK);
    expect(canonical[0]!.messages[0]!.content).not.toContain(GUIDED_MARK);
    // And the share link carries the new choice.
    await page.getByRole("button", { name: "Settings" }).click();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await dialog.getByRole("button", { name: "Copy share link" }).click();
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(new URL(link).searchParams.get("prompt")).toBe("canonical");
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("how an answer came about", () => {
  it("says when the fallback answered because the model only wrote prose", async () => {
    stack.server.scripts.root = () => "Searching for today's date now.";
    stack.server.scripts.sub = (req: ScriptedRequest) =>
      req.lastUser.includes("Answers found in different parts")
        ? "23 November 2026"
        : (/dated ([\w ]+?)\./.exec(req.lastUser)?.[1] ?? "NOT FOUND");
    for (const width of [1280, 390]) {
      const { context, page, errors } = await stack.openPage({ viewport: { width, height: 860 } });
      await upload(page, "letter.txt", "Dear Sam, this letter is dated 23 November 2026. Regards.");
      await askAndWait(page, "What is the date of the letter?", "23 November 2026");
      const how = page.getByTestId("how-answered").last();
      await how.waitFor();
      expect(await how.textContent()).toMatch(
        /^Answered by the fallback, not by the model\. The model could not drive the run: .* So the harness read the whole document with the helper model\.$/,
      );
      expect(await page.getByRole("region", { name: "Answer", exact: true }).last().textContent()).not.toContain("Searching for");
      await openSteps(page.getByRole("button", { name: /(Show|Hide) steps/ }).last());
      await page
        .getByRole("region", { name: "Trajectory" })
        .last()
        .getByText(/The harness took over/)
        .first()
        .waitFor();
      await page.screenshot({ path: `${SHOTS}fallback-answer-${width}.png`, fullPage: true });
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it("says when the answer stands though no output showed it (submitted again after the gate asked, issue 25)", async () => {
    stack.server.scripts.root = (req: ScriptedRequest) => (req.turn === 0 ? code("print(len(context))") : "FINAL(4815162)");
    const { context, page, errors } = await stack.openPage({ viewport: { width: 390, height: 860 } }, { mode: "rlm" });
    await upload(page, "minutes.txt", "The committee met and discussed the roads. ".repeat(2000));
    await askAndWait(page, "What is the magic number?", "4815162");
    const how = page.getByTestId("how-answered").last();
    await how.waitFor();
    expect(await how.textContent()).toMatch(/^No output of the run showed this answer/);
    await page
      .locator(".exchange")
      .last()
      .screenshot({ path: `${SHOTS}unverified-answer-390.png` });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("says when a small document was answered directly, in one call", async () => {
    stack.server.scripts.root = (req: ScriptedRequest) =>
      req.messages[0]?.content === VANILLA_SYSTEM_PROMPT ? "It is blue." : code("FINAL('rlm ran')");
    for (const width of [1280, 390]) {
      stack.server.requests.length = 0;
      const { context, page, errors } = await stack.openPage({ viewport: { width, height: 860 } }, { mode: "auto" });
      await upload(page, "door.txt", "The door is blue.");
      await askAndWait(page, "What colour is the door?", "It is blue.");
      const how = page.getByTestId("how-answered").last();
      await how.waitFor();
      expect(await how.textContent()).toMatch(
        /^Answered directly: the whole document and question fit the window \(about [\d,]+ of the model's 8,192 tokens\), so it was answered in one call\.$/,
      );
      expect(stack.server.requests.filter((r) => r.isRoot)).toHaveLength(1);
      await page.screenshot({ path: `${SHOTS}direct-answer-${width}.png`, fullPage: true });
      expect(errors).toEqual([]);
      await context.close();
    }
  });
});
