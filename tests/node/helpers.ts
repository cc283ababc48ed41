import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OpenAIEngine } from "../../src/engines/openai.ts";
import { createNodeRepl } from "../../src/repl/node.ts";
import type { ReplClient } from "../../src/repl/client.ts";
import { DEFAULT_CONFIG, type RlmConfig } from "../../src/core/types.ts";
import { useHooked } from "../fixtures/hooked.ts";
import type { ScriptedServer } from "../fixtures/scripted-server.ts";

/** The repository's .cache/, where every cache the tests keep lives (never node_modules). */
const REPO_CACHE = join(new URL("../../", import.meta.url).pathname, ".cache");

/**
 * Where the node tests' REPLs keep their Python snapshot: one for the whole suite (made by the
 * first REPL that starts, restored by the rest, as the CLI does from its cache directory). A boot
 * from scratch costs ~5 s of CPU, a restore ~0.5 s, and the suite starts dozens of REPLs and
 * rebuilds more after Stop and runaway cells (issue 38). The file store's writes are atomic, so
 * processes starting at once are safe. Tests of booting itself pass their own `snapshotDir` (or
 * null: no snapshot).
 */
export const TEST_SNAPSHOT_DIR = join(REPO_CACHE, "node-test-python-snapshot");

/**
 * The CLI tests' cache directory (RLM_CACHE_DIR), one for the suite for the same reason: each
 * file's own made its snapshot and code cache again on its first `rlm` run. tests/node/cli-cache
 * keeps its own, since the cache is what it tests.
 */
export const TEST_CLI_CACHE_DIR = join(REPO_CACHE, "node-test-cli-cache");

export async function startRepl(
  syncMode: "auto" | "jspi" | "sab" = "auto",
  extra: Parameters<typeof createNodeRepl>[0] = {},
): Promise<ReplClient> {
  const repl = createNodeRepl({ syncMode, snapshotDir: TEST_SNAPSHOT_DIR, ...extra });
  await repl.start();
  return repl;
}

export function engines(server: ScriptedServer, window = 8192, stream = true) {
  const root = new OpenAIEngine({ baseUrl: server.baseUrl, model: "root-model", contextWindow: window, stream });
  const sub = root.withModel("sub-model", window);
  return { root, sub };
}

/** These tests drive the RLM loop: auto mode would answer their small documents in one call. */
export function config(overrides: Partial<RlmConfig> = {}): RlmConfig {
  return { ...DEFAULT_CONFIG, maxIterations: 6, cellTimeoutMs: 20_000, runMode: "rlm", ...overrides };
}

export const text = (s: string) => new Blob([s]);

/** The file's temporary directory was asked for outside its tests and hooks. */
export class TempDirNotUpError extends Error {
  constructor(prefix: string) {
    super(
      `The temporary directory ${prefix}… exists only while the file's tests run: use it inside a test or a hook registered after useTempDir()`,
    );
  }
}

/** A new directory in the system's temporary folder, made before the file's tests and removed after them. */
export function useTempDir(prefix: string): () => string {
  return useHooked(
    () => mkdtemp(join(tmpdir(), prefix)),
    (dir) => rm(dir, { recursive: true, force: true }),
    () => new TempDirNotUpError(prefix),
  );
}
