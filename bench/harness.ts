// Harness benchmarks for the RLM engine (issue: per-turn overhead, llm_query round trip, 100 MB
// context). Run: node --experimental-wasm-stack-switching --import tsx bench/harness.ts
// The flag enables JSPI so both sub-call transports are measured; without it only "sab" runs.
import { OpenAIEngine } from "../src/engines/openai.ts";
import type { ChatMessage } from "../src/engines/types.ts";
import { createNodeRepl } from "../src/repl/node.ts";
import type { ReplClient } from "../src/repl/client.ts";
import { startScriptedServer, type ScriptedRequest } from "../tests/fixtures/scripted-server.ts";
import { perTurn, roundTrip, type EngineFactory } from "./lib/harness-runs.ts";
import { fmt, machine, summarize } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({});

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

/** The engine over a real OpenAI-compatible SSE round trip to a scripted server on 127.0.0.1. */
async function overHttp(): Promise<{ makeEngine: EngineFactory; close: () => Promise<void> }> {
  const server = await startScriptedServer({});
  const makeEngine: EngineFactory = (reply) => {
    const answer = (req: ScriptedRequest) => reply({ messages: req.messages as ChatMessage[] });
    server.scripts.root = answer;
    server.scripts.sub = answer;
    return new OpenAIEngine({ baseUrl: server.baseUrl, model: "instant", contextWindow: 131_072 });
  };
  return { makeEngine, close: () => server.close() };
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
  const mem = await perTurn(repl, TURNS, RUNS);
  row(`[${mode}] root turn, in-memory model: whole turn`, mem.turn, "");
  row(`[${mode}] root turn, in-memory model: harness only (turn − model − cell)`, mem.harness, "< 5");
  const http = await overHttp();
  row(
    `[${mode}] root turn via local HTTP server (SSE): whole turn`,
    (await perTurn(repl, TURNS, RUNS, http.makeEngine)).turn,
    "< 5 (canonical Python: ~46)",
  );
  row(`[${mode}] llm_query round trip, in-memory model`, await roundTrip(repl, CALLS, RUNS), "< 2");
  row(`[${mode}] llm_query round trip via local HTTP server`, await roundTrip(repl, CALLS, RUNS, http.makeEngine), "");
  await http.close();
  if (mode === modes[0]) {
    row("100 MB text ready as `context` (Node worker thread)", await bigContext(repl, 100), "< 1500");
  }
  repl.close();
}
if (args.write) {
  const { writeFile } = await import("node:fs/promises");
  await writeFile(new URL("./out/harness.md", import.meta.url), `${lines.join("\n")}\n`);
}
