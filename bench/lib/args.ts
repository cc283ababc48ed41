// A benchmark script's flags, read by rlm's own reader (src/cli/flags.mjs): `--runs=5` or
// `--runs 5`. A flag the script does not take, or a count that is not a number, stops it at once
// with the reason, instead of a run of minutes on a default or on NaN. Every script takes --write
// (save its report) and --help (its flags).
import { basename } from "node:path";
import { readArgs, type FlagSpec, type FlagValues } from "../../src/cli/flags.mjs";

const EVERY_SCRIPT = { write: { type: "boolean" }, help: { type: "boolean", short: "h" } } as const;

/** Flags of the script's table, whole numbers or numbers (`number: "whole" | "decimal"`), switches, or text. */
export function scriptArgs<T extends Record<string, FlagSpec>>(table: T): FlagValues<T & typeof EVERY_SCRIPT> {
  const flags = { ...table, ...EVERY_SCRIPT };
  const script = basename(process.argv[1] ?? "bench");
  try {
    const { values } = readArgs(flags, process.argv.slice(2), process.env);
    if (values.help) {
      console.log(usage(script, flags));
      process.exit(0);
    }
    return values;
  } catch (err) {
    console.error(`${script}: ${err instanceof Error ? err.message : String(err)}\n${usage(script, flags)}`);
    process.exit(2);
  }
}

function usage(script: string, flags: Record<string, FlagSpec>): string {
  const one = ([name, f]: [string, FlagSpec]) =>
    f.type === "boolean" ? `--${name}` : `--${name}=${f.number === "whole" ? "N" : f.number ? "X" : "VALUE"}`;
  return `Usage: ${script} ${Object.entries(flags).map(one).join(" ")}`;
}
