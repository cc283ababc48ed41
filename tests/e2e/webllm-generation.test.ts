// WebLLM generates, for real: the product's model worker, client and engine, the RLM loop and
// Python in the page, on a software WebGPU adapter (Firefox ESR on Mesa's lavapipe, which has
// shader-f16; Chromium's SwiftShader is about 10x slower a token).
// The model is tests/fixtures/webllm: a real compiled Qwen2-0.5B library with random weights, so
// its replies are fixed by WebLLM's grammar support (response_format with an EBNF grammar, set
// through the engines' test hook). The test asserts on flow and counts, never on prose.
//
// Measured (2026-11-28, two cores at load 8-30): load 42 s; root turn 1 355 prompt + 32 generated
// tokens in 488 s; the sub-call 26 s; root turn 2 prefilled all 425 tokens again (WebLLM reset its
// KV cache for the sub-call) in 283 s; 14 min in all. An idle machine is several times faster.
//
// The page is a test build in which @mlc-ai/web-llm is 0.2.79 (see pages/webllm-run/vite.config.ts
// and tests/fixtures/webllm/README.md for why).
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webllmQwenFixture, type MlcQuantization, type WebLLMFixture } from "../fixtures/webllm/index.ts";
import type { StaticServer } from "../fixtures/static-server.ts";
import {
  openFirefox,
  serveFixture,
  startRefusingProxy,
  startRunPage,
  type FirefoxSession,
  type PageServer,
  type RefusingProxy,
} from "./pages/webllm-run/harness.ts";
import { FIREFOX } from "./engines/firefox.ts";
import { waitUntil } from "./waits.ts";

/** Like the other engine tests: a machine without Firefox ESR skips this file and says so. */
const noFirefox = existsSync(FIREFOX) ? null : `no Firefox at ${FIREFOX} (set FIREFOX_PATH)`;
// Not yet in `npm test`: the first passing run took 14 min on a busy two-core machine (the whole
// suite's budget is 20), and its Stop and nothing-leaves cases have not yet been seen to run.
// RLM_WEBLLM_GENERATION=1 runs it (issue 35 stays open until it fits and all three pass).
const notAsked = process.env.RLM_WEBLLM_GENERATION === "1" ? null : "set RLM_WEBLLM_GENERATION=1 to run it (about 14 min)";
const skipWhy = noFirefox ?? notAsked;

// Short on purpose: a token costs seconds on a software adapter (tens of seconds on a busy machine).
const ROOT_1 = "```repl\nprint(len(context), llm_query('SUBCALL-MARKER'))\n```";
const DOC = "Harbour log.\n".repeat(40);
const ROOT_2 = `FINAL(${DOC.length})`;
/** A root turn long enough to be stopped halfway. */
const LONG = ["```repl", ...Array.from({ length: 40 }, (_, i) => `print('line ${i}')`), "```"].join("\n");

/** Says every half minute what the page is doing: a run here takes minutes. */
function watchProgress(page: FirefoxSession["page"]): ReturnType<typeof setInterval> {
  const started = Date.now();
  return setInterval(() => {
    void page
      .evaluate(() => window.webllmRun.progress())
      .then((p) =>
        console.log(
          `webllm-generation +${Math.round((Date.now() - started) / 1000)} s: ${p.status}; ${p.tokens} tokens; ${p.types.at(-1) ?? ""}`,
        ),
      )
      .catch(() => undefined);
  }, 30_000);
}

/**
 * q4f32_1: with q4f16_1 on lavapipe the first token sampled under the grammar was one the grammar
 * had masked ("Grammar matcher rejected the newly sampled token"), which is what all-NaN logits
 * give (argmax falls to id 0); f32 activations rule that out.
 */
const QUANTIZATION: MlcQuantization = "q4f32_1";

let fixture: WebLLMFixture;
let files: StaticServer;
let pageServer: PageServer;
let proxy: RefusingProxy;
let session: FirefoxSession;

beforeAll(async () => {
  if (skipWhy) return;
  fixture = await webllmQwenFixture({ quantization: QUANTIZATION });
  files = await serveFixture(fixture.root);
  pageServer = await startRunPage();
  proxy = await startRefusingProxy();
  session = await openFirefox(pageServer.url, proxy.port);
}, 300_000);

afterAll(async () => {
  await session?.close();
  await proxy?.close();
  await pageServer?.close();
  await files?.close();
});

describe.skipIf(skipWhy)(`WebLLM on a software WebGPU adapter (Firefox, lavapipe)${skipWhy ? `: skipped, ${skipWhy}` : ""}`, () => {
  it("loads the model, and a question runs through the loop to its answer with a sub-call", async () => {
    const page = session.page;
    const watching = watchProgress(page);
    const load = await page.evaluate((input) => window.webllmRun.load(input), {
      id: fixture.modelId,
      modelUrl: `${files.url}${fixture.modelPath}`,
      modelLibUrl: `${files.url}${fixture.libPath}`,
      separateSub: false,
    });
    expect(load, JSON.stringify(load)).toMatchObject({ ok: true, f16: fixture.quantization === "q4f16_1" });
    await page.evaluate((doc) => window.webllmRun.addDocument("harbour.log", doc), DOC);

    await page.evaluate((s) => window.webllmRun.ask("How long is the harbour log?", s), {
      root: [ROOT_1, ROOT_2],
      sub: "ok",
      subMarker: "SUBCALL-MARKER",
    });
    const result = await page.evaluate(() => window.webllmRun.settled());
    clearInterval(watching);
    const progress = await page.evaluate(() => window.webllmRun.progress());
    console.log(
      `webllm-generation: ${JSON.stringify({ result, turns: progress.turns, subcalls: progress.subcalls, requests: progress.requests })}`,
    );
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true, status: "answered", answer: `${DOC.length}` });
    // Root turn 1, its sub-call (same engine), root turn 2: each a real generation on the GPU.
    expect(progress.requests).toEqual([
      { kind: "root", turn: 0 },
      { kind: "sub", turn: 0 },
      { kind: "root", turn: 1 },
    ]);
    expect(progress.turns.map((t) => t.response)).toEqual([ROOT_1, ROOT_2]);
    expect(progress.subcalls).toHaveLength(1);
    expect(progress.subcalls[0]).toMatchObject({ response: "ok" });
    expect(progress.tokens).toBeGreaterThan(0);
    for (const turn of progress.turns) {
      // WebLLM's own counts (stream_options.include_usage), not estimates.
      expect(turn.usage.promptTokens).toBeGreaterThan(100);
      expect(turn.usage.completionTokens).toBeGreaterThan(0);
    }
    expect(progress.subcalls[0]!.usage.completionTokens).toBeGreaterThan(0);
    expect(load.ok && load.seconds).toBeGreaterThan(0);
    console.log(
      `webllm-generation: load ${load.ok ? load.seconds.toFixed(0) : "?"} s; question ${"seconds" in result ? result.seconds.toFixed(0) : "?"} s; ` +
        progress.turns
          .map((t) => `turn ${t.turn}: ${t.usage.promptTokens}+${t.usage.completionTokens} tokens ${(t.ms / 1000).toFixed(0)} s`)
          .join("; ") +
        `; sub-call ${(progress.subcalls[0]!.durationMs / 1000).toFixed(0)} s`,
    );
  }, 1_800_000);

  it("Stop ends a turn that is generating within seconds, and the engine answers again afterwards", async () => {
    const page = session.page;
    await page.evaluate((s) => window.webllmRun.ask("Print the lines.", s), { root: [LONG], sub: "ok", subMarker: "SUBCALL-MARKER" });
    await waitUntil(async () => (await page.evaluate(() => window.webllmRun.progress())).tokens >= 2, {
      timeout: 600_000,
      what: "the long turn to stream two tokens",
      interval: 500,
    });
    const stoppedAt = Date.now();
    await page.evaluate(() => window.webllmRun.stop());
    const result = await page.evaluate(() => window.webllmRun.settled());
    const seconds = (Date.now() - stoppedAt) / 1000;
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true, status: "stopped" });
    // One decode step on lavapipe is a few seconds on a busy machine; Stop waits for at most that.
    expect(seconds).toBeLessThan(30);
    console.log(`webllm-generation: stopped ${seconds.toFixed(1)} s after Stop`);
  }, 900_000);

  it("nothing left the machine and nothing went unhandled", async () => {
    const fromPage = proxy.seen.filter((u) => !/mozilla|firefox|\.services\.|detectportal/i.test(u));
    expect(fromPage, `requests that tried to leave: ${proxy.seen.join(", ")}`).toEqual([]);
    expect(files.requests.every((p) => p.startsWith(`/${fixture.modelPath}`) || p.startsWith("/libs/"))).toBe(true);
    expect(await session.page.evaluate(() => window.webllmRun.problems())).toEqual({ page: [], workers: [] });
  });
});
