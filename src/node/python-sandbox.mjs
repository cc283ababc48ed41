// The process Python runs in for every Node path that runs model code (rlm, rlm bench, rlm
// warmup, the benchmark scripts): a child Node process behind walls the runtime enforces, so
// model-written code over a hostile document can reach nothing of the person's machine.
//
// The first wall is Node's permission model (--permission; --experimental-permission before
// Node 22.13): the process may read only Pyodide's files, our own REPL code, the cache directory
// and the documents it was given; it may write nothing (its parent writes the cache, see
// src/repl/cache-writes.node.ts), start no process, load no addon, use no WASI. It starts with no
// environment variables (an API key in the parent's environment is not there to read) and with
// code generation from strings off (eval, Function) for every thread. Node before 25 has no
// network permission: the network is closed by the second wall, inside the worker thread
// (workers/node/lockdown.node.ts), which leaves Python nothing that can open a socket.
//
// Plain JavaScript: bin/rlm.mjs starts this process before the CLI's own modules load (the two
// then overlap), and the CLI takes it if it was started for the same documents and cache.
import { spawn } from "node:child_process";
import { mkdirSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BUNDLE_DIR, cachedBundle } from "./esbuild-cache.mjs";

const root = new URL("../../", import.meta.url);
const relayEntry = new URL("workers/node/repl-sandbox-entry.node.ts", root);
const workerEntry = new URL("workers/node/repl-entry.node.ts", root);
const workerScript = new URL("workers/node/repl-worker.node.mjs", root);
const sandboxScript = new URL("workers/node/repl-sandbox.node.mjs", root);

/**
 * Python is CPython compiled to WebAssembly. V8 first compiles each wasm function with its fast
 * baseline compiler and recompiles the ones that get hot with its optimizing compiler, on
 * background threads. With the default threshold a 1-second question sends hundreds of functions
 * (restoring the heap, decoding the document, one regex) to the optimizer: about 0.3 s of CPU
 * for code that has already finished running (measured on the 20 MB needle, bench/RESULTS.md,
 * issue 17). A 100× higher threshold keeps that for code that really runs long (a cell that
 * loops for seconds is still optimized). A threshold given on node's own command line wins.
 */
const WASM_TIERING_BUDGET = 180_000_000;
const TIERING_FLAGS = /^--(no-)?(wasm-tiering-budget|liftoff-only|wasm-dynamic-tiering|wasm-tier-up)\b/;
/** Flags of the parent's that the sandbox keeps: JSPI (tests of that sub-call mode) and wasm tiering. */
const KEPT_FLAGS = /^--(experimental-wasm-stack-switching|experimental-wasm-jspi)$/;

/** Why the sandbox cannot be raised here, in words that say what to do. */
export class SandboxUnavailableError extends Error {
  name = "SandboxUnavailableError";
}

const packageDir = (name) => dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));

/** A path and where it really is, both granted: the permission model checks the path as given. */
function withRealPath(path) {
  try {
    const real = realpathSync(path);
    return real === path ? [path] : [path, real];
  } catch {
    return [path];
  }
}

/**
 * The paths to grant, each once and none inside another: a directory grants all below it, and
 * Node 20's permission model aborts the process when given both "/a" and "/a/".
 */
function grants(paths) {
  const trimmed = [...new Set(paths.map((p) => (p.length > 1 ? p.replace(/\/+$/, "") : p)))].sort();
  return trimmed.filter((p, i) => !trimmed.slice(0, i).some((q) => p.startsWith(`${q}/`)));
}

/**
 * The cache directory, made now if it is missing: the permission model only grants a path that
 * exists when the process starts.
 */
function cacheDirectory(dir) {
  const path = resolve(dir);
  try {
    mkdirSync(path, { recursive: true });
  } catch {
    // Unwritable: Python starts without a snapshot and says why.
  }
  return withRealPath(path);
}

/**
 * What a sandbox is started with: its documents (absolute paths) and cache directory (or null).
 * `walls` is for the tests that prove each wall alone: { outer: false } starts a plain child with
 * the parent's environment; the inner wall is the worker's boot option (`lockDown`).
 */
export function sandboxLaunch({ documents = [], cacheDir = null, walls = { outer: true } } = {}) {
  const reads = grants([
    packageDir("pyodide"),
    packageDir("comlink"),
    // The rooms of workers/ this process runs (its own, the shared runtime and the Python
    // package), not the page's workers/browser/.
    ...["workers/node/", "workers/shared/", "workers/python/"].map((dir) => fileURLToPath(new URL(dir, root))),
    fileURLToPath(new URL("src/node/", root)),
    fileURLToPath(BUNDLE_DIR),
    ...(cacheDir ? cacheDirectory(cacheDir) : []),
    ...documents.flatMap((d) => withRealPath(resolve(d))),
  ]);
  return { reads, outer: walls.outer !== false };
}

/** Whether a launch lets the sandbox read `path` (absolute). */
export const mayRead = (launch, path) => !launch.outer || launch.reads.some((r) => path === r || path.startsWith(`${r}/`));

/** Two launches start the same sandbox. */
export const sameLaunch = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function permissionFlag() {
  const flags = process.allowedNodeEnvironmentFlags;
  if (flags.has("--permission")) return "--permission";
  if (flags.has("--experimental-permission")) return "--experimental-permission";
  throw new SandboxUnavailableError(
    `this Node (${process.version}) has no permission model to wall Python in; install Node 20.19 or newer (nodejs.org) and run rlm again`,
  );
}

/** The node flags of a launch: the walls, then what the REPL itself needs. */
function nodeFlags(launch) {
  const flags = [];
  if (launch.outer) {
    flags.push(permissionFlag(), ...launch.reads.map((path) => `--allow-fs-read=${path}`), "--allow-worker");
    // Node warns that --allow-worker could weaken the model: only our code can reach Worker here.
    flags.push("--disallow-code-generation-from-strings", "--disable-warning=ExperimentalWarning", "--disable-warning=SecurityWarning");
  }
  const parent = process.execArgv;
  if (!parent.some((a) => TIERING_FLAGS.test(a))) flags.push(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
  flags.push(...parent.filter((a) => TIERING_FLAGS.test(a) || KEPT_FLAGS.test(a)));
  return flags;
}

/** The environment the sandbox starts with: none of the parent's, but its time zone. */
function sandboxEnv(launch) {
  if (!launch.outer) return { ...process.env };
  return process.env.TZ ? { TZ: process.env.TZ } : {};
}

/**
 * Starts a sandbox process for `launch`. Its first module (workers/node/repl-sandbox.node.mjs) starts
 * the REPL worker thread, then its main thread relays to it (workers/node/repl-sandbox-entry.node.ts);
 * both run from bundles made current here, since the sandbox cannot write the bundle cache.
 */
export async function spawnSandbox(launch) {
  const [relay, worker] = await Promise.all([cachedBundle(relayEntry, "repl-sandbox"), cachedBundle(workerEntry, "repl-worker")]);
  if (!relay || !worker) {
    throw new SandboxUnavailableError(
      "the REPL's code could not be prepared for Python's sandbox (esbuild failed); reinstall with npm ci and run rlm again",
    );
  }
  const child = spawn(process.execPath, [...nodeFlags(launch), fileURLToPath(sandboxScript), relay.href, workerScript.href, worker.href], {
    env: sandboxEnv(launch),
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    serialization: "advanced",
  });
  live.add(child);
  child.once("exit", () => live.delete(child));
  // Messages that arrive before anyone listens (the process's first words) wait here.
  const early = [];
  let listener = null;
  child.on("message", (message) => (listener ? listener(message) : early.push(message)));
  // What the process says on stderr: the last of it explains a crash.
  let tail = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text) => (tail = (tail + text).slice(-4000)));
  child.on("error", () => undefined); // a failed spawn shows as its exit
  return {
    child,
    onMessage(handler) {
      listener = handler;
      for (const message of early.splice(0)) handler(message);
    },
    stderrTail: () => tail.trim(),
    /** Whether it keeps this process alive (a prestarted one does not until taken). */
    hold(on) {
      for (const handle of [child, child.channel, child.stderr]) (on ? handle?.ref : handle?.unref)?.call(handle);
    },
  };
}

const SLOT = Symbol.for("recursive-reader.prestarted-python-sandbox");

/** Every sandbox process of this process that has not exited. */
const live = new Set();

/**
 * Ends every sandbox process and waits until each has exited (at most `waitMs`), so that none
 * outlives `rlm` and the time a run took counts theirs (a process's CPU and memory are counted
 * for its parent once it has waited for them).
 */
export async function endSandboxes(waitMs = 1000) {
  let timer;
  const ending = [...live].map(
    (child) =>
      new Promise((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("exit", done);
        child.ref(); // a prestarted one is unreferenced: its exit must keep the loop alive
        child.kill("SIGKILL");
      }),
  );
  await Promise.race([Promise.all(ending), new Promise((done) => (timer = setTimeout(done, waitMs)))]);
  clearTimeout(timer);
}

/** Starts the sandbox `rlm` is likely to need now; it does not keep the process alive until taken. */
export function prestartSandbox(launch) {
  if (!launch || globalThis[SLOT]) return;
  const starting = spawnSandbox(launch).then(
    (sandbox) => {
      sandbox.hold(false);
      return sandbox;
    },
    () => null,
  );
  globalThis[SLOT] = { launch, starting };
}

/** The prestarted sandbox if it was started for this launch (once), else null; a wrong one is ended. */
export async function takePrestartedSandbox(launch) {
  const slot = globalThis[SLOT];
  if (!slot) return null;
  globalThis[SLOT] = undefined;
  const sandbox = await slot.starting;
  if (!sandbox) return null;
  const { child } = sandbox;
  if (!sameLaunch(slot.launch, launch) || child.exitCode !== null || child.signalCode !== null) {
    child.kill("SIGKILL");
    return null;
  }
  sandbox.hold(true);
  return sandbox;
}
