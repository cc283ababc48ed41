#!/usr/bin/env node
// `rlm` command-line tool. Node 20 cannot run TypeScript itself; tsx compiles on load. Help is
// answered first, in plain JavaScript: loading tsx alone costs about 0.3 s.
import { quickHelp } from "../src/cli/help.mjs";

const argv = process.argv.slice(2);
const help = quickHelp(argv);
if (help !== null) {
  process.stdout.write(`${help}\n`);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  const { main } = await import("../src/cli/main.ts");
  process.exitCode = await main(argv);
}
