// The web app in real Chromium against the built bundle and the scripted model server: what a
// person does, and what they must see.
import { mkdirSync, readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { buildDocx, buildPdf, zipOf } from "../fixtures/docs/index.ts";
import { between, repl as code, type ScriptedRequest } from "../fixtures/scripted-server.ts";
import { visualizerProblems } from "../fixtures/visualizer-schema.ts";
import { documentInput, REACHED_LINE, newPage, openaiUrl, startStack, subcallAnswered, openSteps } from "./harness.ts";
import { useStack } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

const stack = useStack(() => startStack());

/** Root replies chosen by question, so several tests can share one server. */
type Route = (req: ScriptedRequest) => string | { text: string; hang?: boolean; delayMs?: number };
const routes = new Map<string, Route>();
function route(question: string, fn: Route) {
  routes.set(question, fn);
}
beforeAll(() => {
  stack.server.scripts.root = (req) => {
    for (const [q, fn] of routes) if (req.firstUser.startsWith(`Question: ${q}`)) return fn(req);
    return "FINAL(unknown question)";
  };
  stack.server.scripts.sub = (req) => {
    const chunk = between(req.lastUser, "<<", ">>");
    const m = /launch code is ([A-Z]+-\d+)/.exec(chunk);
    return m ? `The launch code is ${m[1]}.` : `sub saw ${req.lastUser.length} chars`;
  };
});

async function upload(page: Page, name: string, content: string | Uint8Array, mimeType = "text/plain") {
  await documentInput(page).setInputFiles({ name, mimeType, buffer: Buffer.from(content) });
  await page.locator(".docs .name", { hasText: name }).first().waitFor({ timeout: 60_000 });
}

async function ask(page: Page, question: string) {
  await page.getByRole("textbox", { name: "Question" }).fill(question);
  await page.getByRole("button", { name: "Ask", exact: true }).click();
}

const lastAnswer = (page: Page) => page.getByRole("region", { name: "Answer", exact: true }).last();

/**
 * Waits until the page has saved `question` as running in IndexedDB (it saves a growing run a
 * little behind), which is what a reload must then find cut off. Reads the app's own database
 * (src/store/db.ts); never creates it.
 */
async function runningQuestionSaved(page: Page, question: string): Promise<void> {
  await page.waitForFunction(
    (q) =>
      new Promise<boolean>((resolve) => {
        const open = indexedDB.open("browser-rlm");
        open.onupgradeneeded = () => open.transaction?.abort();
        open.onerror = () => resolve(false);
        open.onsuccess = () => {
          const db = open.result;
          const all = db.transaction("exchanges").objectStore("exchanges").getAll();
          all.onsuccess = () => {
            db.close();
            resolve(all.result.some((e: { question?: string; status?: string }) => e.question === q && e.status === "running"));
          };
          all.onerror = () => {
            db.close();
            resolve(false);
          };
        };
      }),
    question,
    { timeout: 30_000, polling: 100 },
  );
}

describe("the web app", () => {
  it("drop a 10 MB file, ask, watch the trajectory and get the right answer", async () => {
    route("What is the launch code?", (req) => {
      if (req.turn === 0) return code("print(len(context))\nprint(context[:60])");
      if (req.turn === 1) {
        return code(
          "import re\nm = re.search(r'launch code', context)\nwindow = context[m.start() - 100 : m.end() + 100]\nreply = llm_query('<<' + window + '>> What is the launch code?')\nprint(reply)",
          "The document is large; I will search it.",
        );
      }
      return code("FINAL(reply)");
    });
    const { context, page, errors } = await stack.openPage();
    // A real drop of a 10 MB file built inside the page.
    await page.evaluate(async () => {
      const line = "Nothing to see in this line of the report, just filler text.\n";
      const filler = line.repeat(Math.ceil((10 * 1024 * 1024) / line.length));
      const at = Math.floor(filler.length * 0.7);
      const text = `${filler.slice(0, at)}\nThe launch code is ZEBRA-4471.\n${filler.slice(at)}`;
      const file = new File([text], "report.txt", { type: "text/plain" });
      const dt = new DataTransfer();
      dt.items.add(file);
      for (const type of ["dragenter", "dragover", "drop"]) {
        window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    });
    await page.locator(".docs .name", { hasText: "report.txt" }).waitFor({ timeout: 60_000 });
    await page.getByText(/1 document · 10(\.\d)?M characters/).waitFor();
    await ask(page, "What is the launch code?");
    // The trajectory is shown live while the run goes on.
    await page.getByRole("region", { name: "Trajectory" }).waitFor();
    await lastAnswer(page).getByText("The launch code is ZEBRA-4471.").waitFor({ timeout: 60_000 });
    await openSteps(page.getByRole("button", { name: /(Show|Hide) steps/ }));
    const trajectory = page.getByRole("region", { name: "Trajectory" });
    await trajectory.getByText("Turn 3").waitFor();
    // len(context) printed by the first cell
    expect(await trajectory.getByText(/^1\d{7}$/m).count()).toBeGreaterThan(0);
    // The sub-call sits under its cell, collapsed, with its reply.
    const sub = trajectory.locator("details.subcall").first();
    expect(await sub.getAttribute("open")).toBeNull();
    await sub.locator("summary").click();
    await sub.getByText("The launch code is ZEBRA-4471.").first().waitFor();
    await page.getByText(/3 turns · 1 sub-call/).waitFor();
    await page.screenshot({ path: `${SHOTS}answer-with-trajectory.png`, fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("sub-calls also work through the SharedArrayBuffer channel (browsers without JSPI)", async () => {
    route("Ask the helper", (req) =>
      req.turn === 0
        ? code("parts = llm_query_batched(['<<launch code is ABC-1>> a', '<<nothing>> b'])\nprint(parts)")
        : code("FINAL(parts[0])"),
    );
    const { context, page, errors } = await newPage(stack.browser);
    await page.goto(openaiUrl(stack.app.url, stack.server.baseUrl, { replSync: "sab" }));
    const chip = page.locator(".chip", { hasText: "Python ready" });
    await chip.waitFor({ state: "attached", timeout: 60_000 });
    expect(await chip.getAttribute("title")).toBe("sub-calls via sab");
    await upload(page, "s.txt", "x");
    await ask(page, "Ask the helper");
    await lastAnswer(page).getByText("The launch code is ABC-1.").waitFor({ timeout: 30_000 });
    // The time split shows once the run has ended, which can trail the answer's text by many
    // seconds on a loaded machine (a fresh-clone run at load ~10 waited past Playwright's 30 s).
    await page
      .getByTestId("time-split")
      .filter({ hasText: /model [\d.]+ (ms|s) · Python [\d.]+ (ms|s) · sub-calls/ })
      .waitFor({ timeout: 120_000 });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("Stop ends a runaway run within a second, and a follow-up question still works with the same variables", async () => {
    route("Loop forever please", (req) => (req.turn === 0 ? code(`kept_value = 41\n${REACHED_LINE}while True:\n    pass`) : "FINAL(no)"));
    route("What did you keep?", () => code("FINAL(kept_value + 1)"));
    const { context, page, errors } = await newPage(stack.browser);
    // Measured inside the page: from the click on Stop to the run showing "Stopped".
    await page.addInitScript(`
      window.__stop = {};
      document.addEventListener("click", (e) => {
        if (e.target instanceof Element && e.target.closest("button")?.textContent?.trim() === "Stop") window.__stop.clicked = performance.now();
      }, true);
      new MutationObserver(() => {
        if (window.__stop.clicked && !window.__stop.shown && [...document.querySelectorAll(".exchange .chip")].some((c) => c.textContent.includes("Stopped"))) window.__stop.shown = performance.now();
      }).observe(document, { subtree: true, childList: true, characterData: true });
    `);
    await stack.open(page);
    await upload(page, "small.txt", "some text");
    await ask(page, "Loop forever please");
    // Python is in the loop: the sub-call just before it is answered.
    await subcallAnswered(page);
    await page.getByRole("button", { name: "Stop", exact: true }).click();
    await page.locator(".exchange .chip", { hasText: "Stopped" }).waitFor({ timeout: 5_000 });
    const stop = await page.evaluate(() => (window as unknown as { __stop: { clicked: number; shown: number } }).__stop);
    expect(stop.shown - stop.clicked).toBeLessThan(1000);
    await page.screenshot({ path: `${SHOTS}stopped.png`, fullPage: true });
    await ask(page, "What did you keep?");
    await lastAnswer(page).getByText("42").waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a reload restores the session, marks a cut-off run, and follow-ups see earlier answers", async () => {
    route("First question", () => code("FINAL('first answer')"));
    route("Hang here", () => ({ text: "", hang: true }));
    route("Do you remember?", (req) => {
      expect(req.firstUser).toContain("First question");
      return code("FINAL(history[0]['answer'] + ' / ' + context.strip())");
    });
    const { context, page } = await stack.openPage();
    await upload(page, "kept.txt", "document body");
    await ask(page, "First question");
    await lastAnswer(page).getByText("first answer").waitFor();
    await ask(page, "Hang here");
    await page.getByText("Working…").waitFor();
    await runningQuestionSaved(page, "Hang here");
    await page.reload();
    await page.locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 60_000 });
    await page.getByText("first answer").waitFor();
    await page.locator(".exchange .chip", { hasText: "Cut off" }).waitFor();
    await page.getByText(/cut off \(the page was closed or reloaded\)/).waitFor();
    expect(await page.locator(".docs .name", { hasText: "kept.txt" }).count()).toBe(1);
    await ask(page, "Do you remember?");
    await lastAnswer(page).getByText("first answer / document body").waitFor({ timeout: 30_000 });
    // Sessions: a new one, then switch back.
    await page.getByRole("button", { name: "+ New" }).click();
    await page.getByText("Drop files anywhere on this page").waitFor();
    await page.getByRole("navigation", { name: "Sessions" }).getByText("First question").click();
    await page.getByText("first answer / document body").waitFor();
    await context.close();
  });

  it("exports the answer, the trajectory and a fine-tuning dataset", async () => {
    route("Export me", (req) => (req.turn === 0 ? code("n = len(context)\nprint(n)") : code("FINAL(f'{n} characters')")));
    const { context, page } = await stack.openPage();
    await upload(page, "e.txt", "abcdef");
    await ask(page, "Export me");
    await lastAnswer(page).getByText("6 characters").waitFor();
    const read = async (button: RegExp | string) => {
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: button }).first().click()]);
      const path = await download.path();
      return { name: download.suggestedFilename(), text: readFileSync(path!, "utf8") };
    };
    const md = await read("Export answer (.md)");
    expect(md.name).toMatch(/\.md$/);
    expect(md.text).toContain("# Export me");
    expect(md.text).toContain("6 characters");
    const jsonl = await read("Export trajectory (.jsonl)");
    expect(jsonl.name).toMatch(/\.jsonl$/);
    expect(visualizerProblems(jsonl.text)).toEqual([]);
    expect(jsonl.text.trim().split("\n")).toHaveLength(3);
    const sft = await read("Export fine-tuning data");
    const line = JSON.parse(sft.text.trim().split("\n")[0]!) as { messages: Array<{ role: string; content: string }> };
    expect(line.messages[0]?.role).toBe("system");
    expect(line.messages.at(-1)).toMatchObject({ role: "assistant" });
    expect(line.messages.at(-1)?.content).toContain("FINAL");
    await context.close();
  });

  it("reads PDF, DOCX and ZIP files into context", async () => {
    route("Describe the files", () => code("FINAL(' | '.join(f'{k}:{len(v)}:{v.split()[-1]}' for k, v in sorted(context.items())))"));
    const { context, page } = await stack.openPage();
    const pdf = buildPdf([["First page says apple"], ["Second page says banana"]]);
    const docx = buildDocx(["Word paragraph one", "Word paragraph cherry"]);
    const zip = zipOf({
      "repo/src/main.py": "print('date')\n",
      "repo/README.md": "# elder\n",
      "repo/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
    });
    await documentInput(page).setInputFiles([
      { name: "paper.pdf", mimeType: "application/pdf", buffer: Buffer.from(pdf) },
      { name: "memo.docx", mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", buffer: Buffer.from(docx) },
      { name: "repo.zip", mimeType: "application/zip", buffer: Buffer.from(zip) },
    ]);
    // Listed as main.py under its archive folder; its Remove button names the whole path.
    await page.locator('.docs button[aria-label^="Remove "][aria-label$="repo/src/main.py"]').waitFor({ timeout: 60_000 });
    await page.locator(".docs .name", { hasText: "paper.pdf" }).click();
    await page.getByText("Second page says banana").waitFor();
    // The binary file inside the zip is reported, not loaded.
    await page.getByText(/not added/).waitFor();
    await page.screenshot({ path: `${SHOTS}documents.png`, fullPage: true });
    await ask(page, "Describe the files");
    const answer = lastAnswer(page);
    await answer.getByText(/memo\.docx:\d+:cherry/).waitFor({ timeout: 30_000 });
    const text = (await answer.textContent()) ?? "";
    expect(text).toContain("paper.pdf");
    expect(text).toMatch(/paper\.pdf:\d+:banana/);
    expect(text).toMatch(/repo\/README\.md:\d+:elder/);
    expect(text).not.toContain("logo.png");
    await context.close();
  });

  it("compare mode answers directly beside the RLM, saying how much was cut", async () => {
    route("Compare this", () => code("FINAL('rlm says hi')"));
    const prev = stack.server.scripts.root;
    stack.server.scripts.root = (req) => {
      if (req.messages[0]?.content.includes("Read the document, then answer")) return "direct says hi";
      return (prev as (r: ScriptedRequest) => string)(req);
    };
    try {
      const { context, page } = await stack.openPage({}, { compare: "1", contextWindow: "4096" });
      await upload(page, "long.txt", "word ".repeat(50_000));
      await ask(page, "Compare this");
      const direct = page.getByRole("region", { name: "Direct answer" }).last();
      await direct.getByText("direct says hi").waitFor({ timeout: 30_000 });
      await direct.getByText(/saw [\d.,K]+ of 250K characters \(\d+%, from both ends/).waitFor();
      await lastAnswer(page).getByText("rlm says hi").waitFor();
      await page.screenshot({ path: `${SHOTS}compare.png`, fullPage: true });
      await context.close();
    } finally {
      stack.server.scripts.root = prev;
    }
  });

  it("settings persist, come from the URL, and the page works by keyboard at phone width in dark mode", async () => {
    route("Keyboard question", () => code("FINAL('typed without a mouse')"));
    const { context, page } = await stack.openPage({ viewport: { width: 390, height: 844 }, colorScheme: "dark" }, { maxIterations: "7" });
    await page.getByRole("button", { name: "Settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    expect(await dialog.getByLabel("Max iterations").inputValue()).toBe("7");
    await dialog.getByLabel("Max iterations").fill("9");
    await dialog.getByRole("button", { name: "Save" }).click();
    await page.reload();
    await page.goto(stack.app.url); // no URL parameters now: the saved value must come back
    await page.getByRole("button", { name: "Settings" }).click();
    expect(await dialog.getByLabel("Max iterations").inputValue()).toBe("9");
    await page.keyboard.press("Escape");
    // The dialog closes a moment after the key: what follows is meant for the page behind it.
    await dialog.waitFor({ state: "hidden" });
    await upload(page, "k.txt", "keyboard");
    await page.getByRole("textbox", { name: "Question" }).focus();
    await page.keyboard.type("Keyboard question");
    await page.keyboard.press("Enter");
    await lastAnswer(page).getByText("typed without a mouse").waitFor({ timeout: 30_000 });
    // Nothing overflows sideways at phone width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SHOTS}phone-dark.png`, fullPage: true });
    await context.close();
  });
});
