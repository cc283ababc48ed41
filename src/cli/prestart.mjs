// The sandbox `rlm` will ask for, guessed by bin/rlm.mjs from its arguments before the CLI's
// TypeScript has loaded, so Python's process starts while the CLI loads. The CLI's own reading
// of its arguments (its flag table and cache-directory rules), handed to the launcher in
// src/node as paths: src/node never imports src/cli (issue 37 #3). Plain JavaScript.
import { resolve } from "node:path";
import { sandboxLaunch } from "../node/python-sandbox.mjs";
import { resolveCacheDir } from "./cache-dir.mjs";
import { RLM_FLAGS, readArgs } from "./flags.mjs";

/**
 * The launch `rlm` will ask for, read from its arguments before the CLI's TypeScript has loaded
 * (by the same plain-JavaScript reader and flags): the --context-file documents and the cache
 * directory. Only a guess: a sandbox started for other paths is not taken, and the CLI starts the right one.
 */
export function launchFromArgv(argv, env) {
  if (argv[0] === "warmup" || argv[0] === "bench") return null;
  let values;
  try {
    // rlm's own table and reader (flags.mjs), so the guess reads the arguments as the command
    // will; not strict, since refusing a bad flag is the command's to say.
    ({ values } = readArgs(RLM_FLAGS, argv, env, { strict: false }));
  } catch {
    return null;
  }
  const cache = resolveCacheDir({ cacheDir: values["cache-dir"], noCache: values["no-cache"], env });
  return sandboxLaunch({ documents: values["context-file"].map((f) => resolve(f)), cacheDir: cache.dir });
}
