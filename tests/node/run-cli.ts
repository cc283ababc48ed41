// Runs the built `rlm` command as a real process, as the CLI tests do: its exit code and both streams.
import { execFile } from "node:child_process";

export const RLM_BIN = new URL("../../bin/rlm.mjs", import.meta.url).pathname;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `rlm <args>` with `input` on stdin (stdin is closed either way), killed after `timeout` ms. */
export function runRlm(
  args: string[],
  { input, timeout = 120_000, env }: { input?: string | Buffer; timeout?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [RLM_BIN, ...args], { timeout, ...(env ? { env } : {}) }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
    else child.stdin?.end();
  });
}
