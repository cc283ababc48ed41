#!/usr/bin/env node
// `rlm` command-line tool. Node 20 cannot run TypeScript itself. Help is answered first, in plain
// JavaScript; otherwise the CLI runs from a cached plain-JavaScript bundle (esbuild, rebuilt
// when a source changes), which saves the ~0.45 s of CPU tsx spends compiling on load; tsx is
// the fallback when the bundle cannot be built.
import { quickHelp } from "../src/cli/help.mjs";
import { cachedBundle } from "../src/node/esbuild-cache.mjs";
import { launchFromArgv } from "../src/cli/prestart.mjs";
import { endSandboxes, prestartSandbox } from "../src/node/python-sandbox.mjs";

const argv = process.argv.slice(2);
const help = quickHelp(argv);
if (help !== null) {
  process.stdout.write(`${help}\n`);
} else {
  // Every command but help needs Python, in its sandbox process (src/node/python-sandbox.mjs):
  // it starts while the CLI loads, for the documents and cache the arguments name.
  prestartSandbox(launchFromArgv(argv, process.env));
  const code = await (await loadCli()).main(argv);
  // Everything the command does is done when main returns (answer printed, files written, the
  // snapshot stored). Left to drain, the event loop would wait for the keep-alive sockets to
  // close: 20–50 ms after the answer is on the screen. End the sandbox (a few milliseconds: no
  // Python process outlives rlm) and exit once what was written to stdout and stderr is out.
  await Promise.all([
    endSandboxes(),
    ...[process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write("", () => done()))),
  ]);
  process.exit(code);
}

async function loadCli() {
  const bundle = process.env.RLM_NO_BUNDLE ? null : await cachedBundle(new URL("../src/cli/main.ts", import.meta.url), "cli");
  if (bundle) return import(bundle.href);
  const { register } = await import("tsx/esm/api");
  register();
  return import("../src/cli/main.ts");
}
