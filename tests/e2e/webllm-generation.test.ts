// WebLLM generates, for real: the product's model worker, client and engine, the RLM loop and
// Python in the page, on a software WebGPU adapter: Firefox ESR on Mesa's lavapipe, several times
// faster a token than Chromium's SwiftShader (issue 35: ~33 s a token there on a busy machine).
// The model is tests/fixtures/webllm: a real compiled Qwen2-0.5B library with random weights, so
// its replies are fixed by WebLLM's grammar support (response_format with an EBNF grammar, set
// through the engines' test hook). The test asserts on flow and counts, never on prose.
//
// Where the time goes (2026-11-28, two cores at load 10-17, where Firefox got about a quarter of
// one core): load 36 s (3 s reading the files, 29 s moving 296 MB of weights to the GPU, 2 s of
// shaders); the root turn 351 prompt + 23 generated tokens in 507 s, almost all of it prefilling
// the loop's system prompt (~1 s a token at that load; ~4 s a generated token); the sub-call 30 s;
// Stop and the next request 41 s. 11.5 min in all, about 250 CPU-seconds for the browser and the page build: a few
// minutes on an idle two-core machine. Hence one load for all cases, one root turn (its code
// calls llm_query and submits the reply: no second turn to prefill the conversation again), the
// shortest replies, a 1,024-token window, and Stop tested on a request of a few tokens.
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
const skipWhy = noFirefox;

// Short on purpose: a token costs a second or more on a software adapter. One root turn that
// calls llm_query and submits its reply: the loop's whole path (root, REPL, sub-call, FINAL) in
// the fewest generated tokens. A second root turn would prefill the whole conversation again
// (WebLLM resets its KV cache for the sub-call; bench/webllm-kv.ts measures that).
const ROOT = "```repl\nFINAL(llm_query('ZQ'))\n```";
/** In a prompt, marks a sub-call: the root's llm_query argument above (short, and in no prompt of the loop's). */
const SUB_MARKER = "ZQ";
const SUB = "ok";
const DOC = "Harbour log.\n".repeat(40);
/** A root turn long enough to be stopped halfway. */
const LONG = ["```repl", ...Array.from({ length: 40 }, (_, i) => `print('line ${i}')`), "```"].join("\n");
/**
 * The smallest window the loop's budgets work with: the system prompt is about 360 tokens. A
 * smaller window means a smaller KV cache for WebLLM to allocate and clear at load.
 */
const CONTEXT_WINDOW = 1024;

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
 * give (argmax falls to id 0). The fixture's weights overflow half precision: the 4-bit values
 * (0..15, less 7) average 0.5, not 0, so with its scale of 0.02 every layer adds about 4,000 to the
 * largest residual value, past f16's 65,504 near layer 13 of 24 (a float32 replay of the same
 * weight distribution in numpy; with a scale of 0.005 it stays under 1,600). f32 has the room.
 */
const QUANTIZATION: MlcQuantization = "q4f32_1";

let fixture: WebLLMFixture;
let files: StaticServer;
let pageServer: PageServer;
let proxy: RefusingProxy;
let session: FirefoxSession;
let load: Awaited<ReturnType<Window["webllmRun"]["load"]>>;

beforeAll(async () => {
  if (skipWhy) return;
  fixture = await webllmQwenFixture({ quantization: QUANTIZATION });
  files = await serveFixture(fixture.root);
  pageServer = await startRunPage();
  proxy = await startRefusingProxy();
  session = await openFirefox(pageServer.url, proxy.port);
  // One load shared by the three cases: loading is most of a case's time on a software adapter.
  const page = session.page;
  load = await page.evaluate((input) => window.webllmRun.load(input), {
    id: fixture.modelId,
    modelUrl: `${files.url}${fixture.modelPath}`,
    modelLibUrl: `${files.url}${fixture.libPath}`,
    separateSub: false,
    contextWindow: CONTEXT_WINDOW,
  });
  console.log(
    `webllm-generation: load ${JSON.stringify(load)}; phases ${JSON.stringify(await page.evaluate(() => window.webllmRun.loadPhases()))}`,
  );
}, 900_000);

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
    expect(load, JSON.stringify(load)).toMatchObject({ ok: true, f16: fixture.quantization === "q4f16_1" });
    await page.evaluate((doc) => window.webllmRun.addDocument("harbour.log", doc), DOC);

    await page.evaluate((s) => window.webllmRun.ask("What does the helper say?", s), {
      root: [ROOT],
      sub: SUB,
      subMarker: SUB_MARKER,
    });
    const result = await page.evaluate(() => window.webllmRun.settled());
    clearInterval(watching);
    const progress = await page.evaluate(() => window.webllmRun.progress());
    console.log(
      `webllm-generation: ${JSON.stringify({ result, turns: progress.turns, subcalls: progress.subcalls, requests: progress.requests })}`,
    );
    // The sub-call's reply, submitted by the root's code: it went root -> REPL -> sub-call -> FINAL.
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true, status: "answered", answer: SUB });
    // The root turn and its sub-call (same engine): each a real generation on the GPU.
    expect(progress.requests).toEqual([
      { kind: "root", turn: 0 },
      { kind: "sub", turn: 0 },
    ]);
    expect(progress.turns.map((t) => t.response)).toEqual([ROOT]);
    expect(progress.subcalls).toHaveLength(1);
    expect(progress.subcalls[0]).toMatchObject({ response: SUB });
    expect(progress.tokens).toBeGreaterThan(0);
    // WebLLM's own counts (stream_options.include_usage), not estimates.
    expect(progress.turns[0]!.usage.promptTokens).toBeGreaterThan(100);
    expect(progress.turns[0]!.usage.completionTokens).toBeGreaterThan(0);
    expect(progress.subcalls[0]!.usage.completionTokens).toBeGreaterThan(0);
    expect(load.ok && load.seconds).toBeGreaterThan(0);
    console.log(
      `webllm-generation: load ${load.ok ? load.seconds.toFixed(0) : "?"} s; question ${"seconds" in result ? result.seconds.toFixed(0) : "?"} s; ` +
        progress.turns
          .map((t) => `turn ${t.turn}: ${t.usage.promptTokens}+${t.usage.completionTokens} tokens ${(t.ms / 1000).toFixed(0)} s`)
          .join("; ") +
        `; sub-call ${progress.subcalls[0]!.usage.promptTokens}+${progress.subcalls[0]!.usage.completionTokens} tokens ${(progress.subcalls[0]!.durationMs / 1000).toFixed(0)} s`,
    );
    // Generous: the root turn alone took 16 min at load 20 (the bench's run); minutes when idle.
  }, 1_800_000);

  it("Stop ends a generation within seconds, and the engine answers the next request", async () => {
    const page = session.page;
    // The long reply would take many minutes here: the next request can answer only if Stop
    // interrupted it in the worker (WebLLM runs one request at a time, so would finish it first).
    await page.evaluate((long) => window.webllmRun.direct("Print the lines.", long, 400), LONG);
    await waitUntil(async () => (await page.evaluate(() => window.webllmRun.directTokens())) >= 2, {
      timeout: 600_000,
      what: "the long reply to stream two tokens",
      interval: 500,
    });
    const stoppedAt = Date.now();
    await page.evaluate(() => window.webllmRun.stop());
    const stopped = await page.evaluate(() => window.webllmRun.directSettled());
    const seconds = (Date.now() - stoppedAt) / 1000;
    expect(stopped, JSON.stringify(stopped)).toMatchObject({ ok: false, name: "EngineAbortedError" });
    // The call settles at once; the worker stops within a decode step (seconds on a busy machine).
    expect(seconds).toBeLessThan(30);

    await page.evaluate((reply) => window.webllmRun.direct("Say it.", reply, 8), SUB);
    const next = await page.evaluate(() => window.webllmRun.directSettled());
    expect(next, JSON.stringify(next)).toMatchObject({ ok: true, text: SUB });
    if (next.ok) expect(next.usage.completionTokens).toBeGreaterThan(0);
    console.log(`webllm-generation: stopped ${seconds.toFixed(1)} s after Stop; the next request answered in ${next.seconds.toFixed(0)} s`);
  }, 900_000);

  it("nothing left the machine and nothing went unhandled", async () => {
    const fromPage = proxy.seen.filter((u) => !/mozilla|firefox|\.services\.|detectportal/i.test(u));
    expect(fromPage, `requests that tried to leave: ${proxy.seen.join(", ")}`).toEqual([]);
    expect(files.requests.every((p) => p.startsWith(`/${fixture.modelPath}`) || p.startsWith("/libs/"))).toBe(true);
    expect(await session.page.evaluate(() => window.webllmRun.problems())).toEqual({ page: [], workers: [] });
  });
});
