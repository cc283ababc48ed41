#!/usr/bin/env node
// `rlm` command-line tool. Node 20 cannot run TypeScript itself. Help is answered first, in plain
// JavaScript; otherwise the CLI runs from a cached plain-JavaScript bundle (esbuild, rebuilt
// when a source changes), which saves the ~0.45 s of CPU tsx spends compiling on load; tsx is
// the fallback when the bundle cannot be built.
import { quickHelp } from "../src/cli/help.mjs";
import { cachedBundle } from "../src/node/esbuild-cache.mjs";

const argv = process.argv.slice(2);
const help = quickHelp(argv);
if (help !== null) {
  process.stdout.write(`${help}\n`);
} else {
  process.exitCode = await (await loadCli()).main(argv);
}

async function loadCli() {
  const bundle = process.env.RLM_NO_BUNDLE ? null : await cachedBundle(new URL("../src/cli/main.ts", import.meta.url), "cli");
  if (bundle) return import(bundle.href);
  const { register } = await import("tsx/esm/api");
  register();
  return import("../src/cli/main.ts");
}
