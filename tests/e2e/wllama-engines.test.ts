// llama.cpp in the page in every engine people use: Chromium and Firefox run our own SIMD build
// (vendor/llama-wasm: wasm32 + Asyncify + pthreads, ggml's SIMD128 kernels; both validate relaxed
// SIMD, so the worker picks its relaxed-SIMD wasm), served by the app;
// WebKitGTK, whose workers have no SharedArrayBuffer, runs wllama's compat build on one thread.
// A random-weight Qwen GGUF is dropped on the page (it becomes the model, no Settings needed),
// then a document, and a question runs through the RLM loop (```repl turn, Python, an llm_query
// answered by the same model, FINAL) with replies fixed by the test-only grammar hook. Flow only.
import { mkdirSync, mkdtempSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { exactReplyGrammar, tinyQwenGguf } from "../fixtures/gguf/index.ts";
import { serveStatic, type StaticServer } from "../fixtures/static-server.ts";
import {
  applyLinkSettings,
  launchEngine,
  missingEngine,
  selectedEngines,
  waitFor,
  waitForText,
  type EngineBrowser,
  type EngineName,
  type EnginePage,
} from "./engines/index.ts";
import { startApp } from "./harness.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
// Python and llama.cpp boot slowly in WebKitGTK on a loaded 2-core machine.
const BOOT_MS = 180_000;
const DOC = "Harbour log.\n".repeat(40);
const ROOT_1 =
  "```repl\nanswer_text = f'{len(context)} characters'\nreply = llm_query('SUBCALL-MARKER: say ok')\nprint(answer_text, len(reply))\n```";

let app: { url: string; close: () => Promise<void> };
let files: StaticServer;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "rlm-gguf-engines-"));
  copyFileSync(await tinyQwenGguf(), join(dir, "tiny-qwen3.gguf"));
  // Another origin, as a download would be: the page may read it (CORS) and embed it (CORP).
  files = await serveStatic(dir, { "Access-Control-Allow-Origin": "*", "Cross-Origin-Resource-Policy": "cross-origin" });
  app = await startApp();
}, 120_000);
afterAll(async () => {
  await app?.close();
  await files?.close();
});

function skipReason(engine: EngineName): string | null {
  const missing = missingEngine(engine);
  if (missing && process.env.CI) throw new Error(`CI must test ${engine}: ${missing}`);
  return missing;
}

/** The grammar hook (test-only global) and a real drop of the model file and of a document. */
async function setUp(page: EnginePage, modelUrl: string): Promise<void> {
  const grammars = { root: [exactReplyGrammar(ROOT_1), exactReplyGrammar("FINAL_VAR(answer_text)")], sub: exactReplyGrammar("ok") };
  await page.evaluate(
    ({ g, url, doc }) => {
      (globalThis as { __rlmTestGrammar?: unknown }).__rlmTestGrammar = (messages: Array<{ role: string; content: string }>) => {
        if (!messages.some((m) => m.role === "assistant") && messages[messages.length - 1]!.content.includes("SUBCALL-MARKER"))
          return g.sub;
        return g.root[Math.min(messages.filter((m) => m.role === "assistant").length, 1)];
      };
      const drop = (file: File) => {
        const dt = new DataTransfer();
        dt.items.add(file);
        for (const type of ["dragenter", "dragover", "drop"]) {
          window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
        }
      };
      void fetch(url)
        .then((r) => r.blob())
        .then((blob) => {
          drop(new File([blob], "tiny-qwen3.gguf"));
          drop(new File([doc], "log.txt", { type: "text/plain" }));
        });
    },
    { g: grammars, url: modelUrl, doc: DOC },
  );
}

describe.each(selectedEngines())("llama.cpp in the page in %s", (engine) => {
  const missing = skipReason(engine);
  if (missing) it.skip(`${engine} is not installed: ${missing}`, () => undefined);
  let browser: EngineBrowser;
  let page: EnginePage;
  beforeAll(async () => {
    if (missing) return;
    browser = await launchEngine(engine);
    page = await browser.newPage();
  }, 60_000);
  afterAll(async () => {
    await page?.close();
    await browser?.close();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== "fail" || !page) return;
    await page.screenshot(`${SHOTS}wllama-${engine}-FAILED.png`).catch(() => undefined);
  });

  (missing ? it.skip : it)(
    "a dropped GGUF becomes the model and answers a question through the RLM loop",
    async () => {
      await page.goto(`${app.url}?mode=rlm`);
      await applyLinkSettings(page);
      await waitFor(page, { css: ".chip", text: "Python ready" }, BOOT_MS);
      await setUp(page, `${files.url}tiny-qwen3.gguf`);
      await waitFor(page, { css: ".chip", text: "random-weight tiny (qwen3, seed 0) (llama.cpp, CPU)" }, 60_000);
      await waitFor(page, { css: ".docs .name", text: "log.txt" }, 60_000);
      await page.fill({ css: "textarea#question" }, "How long is the log?");
      await page.click({ css: "button", text: "Ask", exact: true });
      const answer = await waitForText(page, { css: 'section[aria-label="Answer"]', last: true }, `${DOC.length} characters`, BOOT_MS);
      expect(answer).toContain(`${DOC.length} characters`);
      const totals = await waitForText(page, { css: ".exchange .totals" }, /2 turns · 1 sub-call · [\d,.]+K? \+ [\d,.]+K? tokens/, 10_000);
      expect(totals).not.toMatch(/ 0 \+ 0 tokens/);
      const chip = await page.evaluate(() =>
        Array.from(document.querySelectorAll(".chip"))
          .find((c) => c.textContent?.includes("llama.cpp"))
          ?.getAttribute("title"),
      );
      // Our SIMD build (vendor/llama-wasm) wherever workers have shared memory, as its relaxed-SIMD
      // wasm where relaxed SIMD validates (Chromium 156, Firefox 153); WebKitGTK gives its workers
      // no shared memory (though it reports the page isolated), so there wllama's compat build
      // answers instead, on one thread, rather than a load that fails.
      expect(chip).toMatch(engine === "webkit" ? /compat build/ : /relaxed SIMD build/);
      await page.screenshot(`${SHOTS}wllama-${engine}-answer.png`);
    },
    3 * BOOT_MS,
  );
});
