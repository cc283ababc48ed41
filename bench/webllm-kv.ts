// WebLLM's KV cache between root turns, measured instead of stated: the same scripted question
// (root turn, an llm_query sub-call, root turn) on the product's WebLLM engine, once with the
// sub-call on the root's own engine and once with a separate sub-call engine. WebLLM keeps its KV
// cache only while each request extends its previous conversation, and reports as prompt tokens
// only what it prefilled: so the second root turn's prompt tokens say whether the first turn's
// prompt was read again. Software WebGPU (Firefox on lavapipe) and random weights
// (tests/fixtures/webllm): token counts are exact, times are ratios only.
//
// Run: node --import tsx bench/webllm-kv.ts [--only=shared|separate]   (prints a table; copy it to bench/RESULTS.md)
import { webllmQwenFixture } from "../tests/fixtures/webllm/index.ts";
import { openFirefox, serveFixture, startRefusingProxy, startRunPage } from "../tests/e2e/pages/webllm-run/harness.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({ only: { type: "string" } });

// Short on purpose: a token costs seconds on a software adapter (tens of seconds on a busy machine).
const ROOT_1 = "```repl\nprint(llm_query('ZQ'))\n```";
const DOC = "Harbour log.\n".repeat(40);
const ROOT_2 = `FINAL(${DOC.length})`;

// --only=shared or --only=separate runs one of the two (each takes many minutes on a busy machine).
const only = args.only;
const MODES = [false, true].filter((separate) => only === undefined || only === (separate ? "separate" : "shared"));

const fixture = await webllmQwenFixture({ quantization: "q4f32_1" });
const files = await serveFixture(fixture.root);
const pageServer = await startRunPage();
const proxy = await startRefusingProxy();
const rows: string[] = [];
/** Root turn 2 of each run: what it prefilled and how long it took. */
const second: Array<{ tokens: number; ms: number }> = [];
try {
  for (const separateSub of MODES) {
    const session = await openFirefox(pageServer.url, proxy.port);
    try {
      const page = session.page;
      const load = await page.evaluate((input) => window.webllmRun.load(input), {
        id: fixture.modelId,
        modelUrl: `${files.url}${fixture.modelPath}`,
        modelLibUrl: `${files.url}${fixture.libPath}`,
        separateSub,
        // The product's default window (the KV figures are token counts; the window changes only the load).
        contextWindow: 4096,
      });
      if (!load.ok) throw new Error(`load failed: ${load.name}: ${load.message}`);
      await page.evaluate((doc) => window.webllmRun.addDocument("harbour.log", doc), DOC);
      await page.evaluate((s) => window.webllmRun.ask("How long is the harbour log?", s), {
        root: [ROOT_1, ROOT_2],
        sub: "ok",
        subMarker: "ZQ",
      });
      const result = await page.evaluate(() => window.webllmRun.settled());
      if (!result.ok || result.status !== "answered") throw new Error(`the question did not end with an answer: ${JSON.stringify(result)}`);
      const { turns, subcalls } = await page.evaluate(() => window.webllmRun.progress());
      const [t1, t2] = turns;
      const sub = subcalls[0]!;
      rows.push(
        `| ${separateSub ? "separate sub-call engine" : "sub-calls on the root engine"} | ${t1!.usage.promptTokens} | ${(t1!.ms / 1000).toFixed(0)} s | ` +
          `${sub.usage.promptTokens} | ${t2!.usage.promptTokens} | ${(t2!.ms / 1000).toFixed(0)} s | ${load.seconds.toFixed(0)} s |`,
      );
      second.push({ tokens: t2!.usage.promptTokens, ms: t2!.ms });
      console.log(rows.at(-1));
    } finally {
      await session.close();
    }
  }
} finally {
  await proxy.close();
  await pageServer.close();
  await files.close();
}
console.log(
  [
    "| sub-calls | root turn 1: prompt tokens prefilled | its time | sub-call prompt tokens | root turn 2: prompt tokens prefilled | its time | load |",
    "|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n"),
);
const [shared, separate] = second;
if (shared && separate) {
  // What a separate sub-call model saves: the second root turn's prefill (tokens exact; time a ratio only).
  console.log(
    `separate sub-call engine, root turn 2: ${(shared.tokens / separate.tokens).toFixed(1)}x fewer prompt tokens prefilled, ` +
      `${(shared.ms / separate.ms).toFixed(1)}x less time (software adapter: compare ratios, not seconds)`,
  );
}
