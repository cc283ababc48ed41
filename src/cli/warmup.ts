// `rlm warmup`: make the start-up cache (the Python memory snapshot) now, so the first real
// question does not pay for it. Also the way to check the cache: it restores it if it is good.
import { createNodeRepl } from "../repl/node.ts";
import { UsageError, WARMUP_FLAGS, readArgs } from "./flags.mjs";
import { resolveCacheDir } from "./cache-dir.mjs";
import type { CliIO } from "./main.ts";
import { describeStart } from "./timing.ts";

export const WARMUP_HELP = `Usage: rlm warmup [--cache-dir DIR] [--rebuild] [--verbose]

Starts Python once and keeps a snapshot of it in the cache directory, so later rlm runs start
in well under a second. A good snapshot already there is only checked (restored), unless
--rebuild. rlm also does this by itself on its first run; warmup just moves the wait.

  --cache-dir DIR   default $RLM_CACHE_DIR, else the user cache directory + /recursive-reader
  --rebuild         make a new snapshot even if a good one is there
  --verbose         say how Python started and why
  -h, --help        this help`;

export async function warmupMain(argv: string[], io: CliIO): Promise<number> {
  let values;
  try {
    ({ values } = readArgs(WARMUP_FLAGS, argv, io.env));
  } catch (err) {
    io.stderr(`rlm warmup: ${err instanceof Error ? err.message : String(err)}\nRun rlm warmup --help for the options.\n`);
    return 2;
  }
  if (values.help) {
    io.stdout(`${WARMUP_HELP}\n`);
    return 0;
  }
  const choice = resolveCacheDir({ cacheDir: values["cache-dir"], env: io.env });
  if (choice.dir === null) {
    io.stderr(`rlm warmup: the cache is off (${choice.why}); nothing to do.\n`);
    return 2;
  }
  const repl = createNodeRepl({ syncMode: "auto", snapshotDir: choice.dir, rebuildSnapshot: values.rebuild });
  try {
    const info = await repl.start();
    const report = info.snapshot;
    if (values.verbose) io.stderr(`rlm warmup: ${describeStart(info)}\n`);
    if (!report || report.path === "plain" || report.stored === "failed") {
      io.stderr(`rlm warmup: no snapshot could be kept in ${choice.dir}${report?.note ? `: ${report.note}` : ""}\n`);
      return 1;
    }
    const verb = report.path === "restored" ? "checked" : "made";
    io.stdout(`Python snapshot ${verb} in ${choice.dir} (${(info.bootMs / 1000).toFixed(2)} s)\n`);
    return 0;
  } catch (err) {
    io.stderr(`rlm warmup: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof UsageError ? 2 : 1;
  } finally {
    repl.close();
  }
}
