// Which browser test files each of `npm test`'s two lanes runs (scripts/test-all.ts, issue 38).
//
// Lane A runs browser tests only; lane B runs unit + node, then the browser files named below.
// Without the split the unit + node lane sat idle for ~9 of lane A's ~18 minutes (a fresh-clone
// run: e2e 1,057 s beside unit + node 501 s), and lane A alone was the critical path. The list
// holds files whose times add up to about half that gap (245 s there): both lanes then end near
// 13 minutes on a quiet machine. Not more: on a busy machine unit + node slow down more than the
// browser tests do (a loaded fresh-clone run: unit + node 819 s, e2e 1,304 s, i.e. ×1.6 and ×1.2).
//
// Why these (re-balanced from a fresh-clone run with a job beside, load ~8: lane A 1,019 s,
// lane B 1,140 s, then the cuts of issue 38 in node/session and e2e/sandbox-sessions): the WebLLM
// file is the longest of all, and wllama brings lane B level with lane A, which now runs the two
// files that start WebKit (engines, wllama-engines, 142 s there). Those two must stay in one lane:
// WebKit runs under `xvfb-run -a`, which picks a free X display by looking for lock files, and two
// starting at once can pick the same one (tests/unit/test-lanes.test.ts checks they share a lane).
// Firefox may run in both lanes: puppeteer gives each launch its own profile and a free port.
// Two browser files at once cannot collide otherwise: every server listens on port 0, every
// browser starts with a fresh profile (OPFS, IndexedDB, caches), every scratch folder is a
// mkdtemp, and the generated fixtures are written to a temporary name and renamed into place.
//
// When you add a slow browser file, look at the two lanes' times in the log's last lines and
// move files here (or out) to keep them level. tests/unit/test-lanes.test.ts checks that each
// browser file runs in exactly one lane.

/** Browser test files lane B runs after its unit + node tests, relative to the repository. */
export const LANE_B_E2E_FILES: readonly string[] = [
  "tests/e2e/webllm-generation.test.ts", // 316 s at load ~8 (151 s quiet): WebLLM on Firefox's software WebGPU
  "tests/e2e/wllama.test.ts", // 80 s at load ~8: llama.cpp in Chromium
];

/** Every browser test file, as the e2e project's include globs it. */
export const E2E_INCLUDE = "tests/e2e/**/*.test.ts";

/** The environment variable by which scripts/test-all.ts tells each vitest process its lane. */
export const E2E_LANE_ENV = "RLM_E2E_LANE";

export type E2ELane = "a" | "b";

/** Thrown when the lane variable holds something other than a lane's name. */
export class UnknownLaneError extends Error {
  constructor(value: string) {
    super(`${E2E_LANE_ENV}=${value} names no lane: use "a" or "b", or leave it unset to run every browser test file`);
  }
}

/** The lane named by the environment, or undefined (a plain `vitest run`: every file). */
export function laneFromEnv(env: NodeJS.ProcessEnv = process.env): E2ELane | undefined {
  const value = env[E2E_LANE_ENV];
  if (value === undefined || value === "") return undefined;
  if (value === "a" || value === "b") return value;
  throw new UnknownLaneError(value);
}

/**
 * The e2e project's include and extra exclude globs for a lane: lane A every browser file but
 * lane B's, lane B only its own, no lane every file (as `npm run test:e2e` and a file filter
 * such as `vitest run --project e2e tests/e2e/engines.test.ts` want).
 */
export function e2eFiles(lane: E2ELane | undefined): { include: string[]; exclude: string[] } {
  if (lane === "a") return { include: [E2E_INCLUDE], exclude: [...LANE_B_E2E_FILES] };
  if (lane === "b") return { include: [...LANE_B_E2E_FILES], exclude: [] };
  return { include: [E2E_INCLUDE], exclude: [] };
}
