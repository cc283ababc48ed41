#!/usr/bin/env node
// `rlm` command-line tool. Node 20 cannot run TypeScript itself; tsx compiles on load.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
