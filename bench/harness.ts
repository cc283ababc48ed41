// Harness benchmarks for the RLM engine (issue: per-turn overhead, llm_query round trip, 100 MB
// context). Run: node --experimental-wasm-stack-switching --import tsx bench/harness.ts
// The flag enables JSPI so both sub-call transports are measured; without it only "sab" runs.
import { runRlm } from "../src/core/loop.ts";
import { DEFAULT_CONFIG, type RlmEvent } from "../src/core/types.ts";
import { OpenAIEngine } from "../src/engines/openai.ts";
import { createNodeRepl } from "../src/repl/node.ts";
import type { ReplClient } from "../src/repl/client.ts";
import { InstantEngine } from "../tests/fixtures/instant-engine.ts";
import { startScriptedServer } from "../tests/fixtures/scripted-server.ts";
import { fmt, machine, summarize } from "./stats.ts";

const TURNS = 40;
const RUNS = 5;
const CALLS = 300;

const hasJspi = "Suspending" in WebAssembly || "Suspender" in WebAssembly;
const modes = (hasJspi ? ["jspi", "sab"] : ["sab"]) as Array<"jspi" | "sab">;
const lines: string[] = [];
const out = (s = "") => {
  lines.push(s);
  console.log(s);
};

async function perTurn(repl: ReplClient, viaHttp: boolean): Promise<{ turn: number[]; harness: number[] }> {
  const script = (turn: number) => (turn >= TURNS - 1 ? "```repl\nFINAL('done')\n```" : `\`\`\`repl\nx = ${turn}\nprint(x)\n\`\`\``);
  const server = viaHttp ? await startScriptedServer({ root: (req) => script(req.turn) }) : null;
  const engine = server
    ? new OpenAIEngine({ baseUrl: server.baseUrl, model: "instant", contextWindow: 131_072 })
    : new InstantEngine("instant", (req) => script(req.messages.filter((m) => m.role === "assistant").length), 131_072);
  const turnTimes: number[] = [];
  const harnessTimes: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    await repl.resetNamespace();
    let turnStart = 0;
    let modelMs = 0;
    let cellMs = 0;
    let cellStart = 0;
    let genStart = 0;
    const onEvent = (e: RlmEvent) => {
      const now = performance.now();
      if (e.type === "turn-started") {
        if (turnStart) {
          const total = now - turnStart;
          turnTimes.push(total);
          harnessTimes.push(total - modelMs - cellMs);
        }
        turnStart = now;
        genStart = now;
        modelMs = 0;
        cellMs = 0;
      } else if (e.type === "turn-finished") modelMs = now - genStart;
      else if (e.type === "cell-started") cellStart = now;
      else if (e.type === "cell-finished") cellMs += now - cellStart;
    };
    const result = await runRlm({ question: "bench", repl, rootEngine: engine, config: { ...DEFAULT_CONFIG, maxIterations: TURNS + 5 }, onEvent });
    if (result.answer !== "done") throw new Error(`unexpected run result ${result.status}`);
  }
  await server?.close();
  return { turn: turnTimes, harness: harnessTimes };
}

async function roundTrip(repl: ReplClient, viaHttp: boolean): Promise<number[]> {
  const server = viaHttp ? await startScriptedServer({ sub: "ok" }) : null;
  const engine = server
    ? new OpenAIEngine({ baseUrl: server.baseUrl, model: "instant", contextWindow: 131_072 })
    : new InstantEngine("instant", () => "ok", 131_072);
  const perCall: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const code = `import time\nt = time.perf_counter()\nfor i in range(${CALLS}):\n    assert llm_query('ping') == 'ok'\nFINAL((time.perf_counter() - t) * 1000 / ${CALLS})`;
    const root = new InstantEngine("root", () => `\`\`\`repl\n${code}\n\`\`\``, 131_072);
    const result = await runRlm({
      question: "bench",
      repl,
      rootEngine: root,
      subEngine: engine,
      config: { ...DEFAULT_CONFIG, maxSubcalls: CALLS + 1, maxConcurrentSubcalls: 1 },
    });
    perCall.push(Number(result.answer));
  }
  await server?.close();
  return perCall;
}

async function bigContext(repl: ReplClient, megabytes: number): Promise<number[]> {
  const line = "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ !?\n";
  const blob = new Blob([line.repeat(Math.ceil((megabytes * 2 ** 20) / line.length))]);
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const t = performance.now();
    const info = await repl.loadDocuments([{ name: "big.txt", data: blob }]);
    times.push(performance.now() - t);
    if (info.total_chars < megabytes * 2 ** 20) throw new Error("short load");
  }
  return times;
}

const row = (name: string, samples: number[], target: string) => {
  const s = summarize(samples);
  out(`| ${name} | ${fmt(s.median)} | ${fmt(s.p10)}–${fmt(s.p90)} | ${s.n} | ${target} |`);
};

out(`Machine: ${machine()}. Date: ${new Date().toISOString().slice(0, 10)}.`);
out();
out("| measurement (ms) | median | p10–p90 | samples | target |");
out("|---|---|---|---|---|");
for (const mode of modes) {
  const repl = createNodeRepl({ syncMode: mode });
  await repl.start();
  await repl.setContextText("benchmark context");
  const mem = await perTurn(repl, false);
  row(`[${mode}] root turn, in-memory model: whole turn`, mem.turn, "");
  row(`[${mode}] root turn, in-memory model: harness only (turn − model − cell)`, mem.harness, "< 5");
  const http = await perTurn(repl, true);
  row(`[${mode}] root turn via local HTTP server (SSE): whole turn`, http.turn, "< 5 (canonical Python: ~46)");
  row(`[${mode}] llm_query round trip, in-memory model`, await roundTrip(repl, false), "< 2");
  row(`[${mode}] llm_query round trip via local HTTP server`, await roundTrip(repl, true), "");
  if (mode === modes[0]) {
    row("100 MB text ready as `context` (Node worker thread)", await bigContext(repl, 100), "< 1500");
  }
  repl.close();
}
if (process.argv.includes("--write")) {
  const { writeFile } = await import("node:fs/promises");
  await writeFile(new URL("./out/harness.md", import.meta.url), `${lines.join("\n")}\n`);
}
