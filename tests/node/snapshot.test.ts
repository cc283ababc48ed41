// Python memory snapshots in the Node REPL worker: the first start makes one, later starts
// restore it, and a restored REPL behaves like a freshly booted one (output, sub-calls in both
// transports, interrupts, its own randomness). A stored snapshot is never trusted blindly: a
// corrupt, truncated, stale or foreign file, or one from another Pyodide build, means a normal
// boot, a note saying why, and a good snapshot in its place. A file that passed the full check is
// stamped, and restored without its checksum only while it is unchanged.
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { version as pyodideVersion } from "pyodide";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ReplClient } from "../../src/repl/client.ts";
import type { ReplBootInfo } from "../../src/repl/protocol.ts";
import {
  PYODIDE_INITIAL_HEAP_BYTES,
  envelopeHeader,
  openEnvelope,
  snapshotKey,
  runtimeText,
} from "../../workers/shared/snapshot-format.ts";
import { readRuntimePackage } from "../../workers/node/runtime-package.node.ts";
import { snapshotFileName, snapshotStampName } from "../../workers/node/snapshot-store.node.ts";
import { startRepl } from "./helpers.ts";

const runtimeSource = runtimeText(readRuntimePackage());
const key = snapshotKey(pyodideVersion, runtimeSource);
/** Pyodide's own header: magic, offsets, 32-byte BUILD_ID, then a small JSON table. */
const PYODIDE_HEADER_SLACK = 4096;

let dir: string;
const open: ReplClient[] = [];
const snapshotFile = () => join(dir, snapshotFileName(key));

async function start(mode: "sab" | "jspi" = "sab"): Promise<{ repl: ReplClient; info: ReplBootInfo }> {
  const repl = await startRepl(mode, { snapshotDir: dir });
  open.push(repl);
  const info = await repl.start();
  return { repl, info };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rlm-snapshot-"));
});
afterEach(() => {
  for (const repl of open.splice(0)) repl.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a Python memory snapshot in Node", () => {
  it("is made on the first start, small enough to restore, and restored on the next", async () => {
    const first = await start();
    expect(first.info.snapshot).toMatchObject({ path: "made-snapshot", where: dir, note: "no stored snapshot yet", stored: "yes" });
    expect(first.info.snapshot?.phases.map((p) => p.phase)).toEqual([
      "reading-snapshot",
      "loading-pyodide",
      "installing-runtime",
      "making-snapshot",
      "restoring-snapshot",
    ]);
    // The REPL handed out is a restored one, not the instance that made the snapshot: that one
    // sees `js` through a recording proxy, which breaks calls that check their receiver
    // (in Node: "Value of 'this' must be ... the global object").
    const getter = await first.repl.runCell("import js\nprint(js.crypto.getRandomValues(js.Uint8Array.new(4)).length)");
    expect(getter.stderr).toBe("");
    expect(getter.stdout.trim()).toBe("4");

    const payload = openEnvelope(key, new Uint8Array(await readFile(snapshotFile())));
    // pyodide#6254: a heap that grew past INITIAL_MEMORY cannot be restored.
    expect(payload.byteLength).toBeLessThanOrEqual(PYODIDE_INITIAL_HEAP_BYTES + PYODIDE_HEADER_SLACK);

    const second = await start();
    expect(second.info.snapshot).toMatchObject({ path: "restored", where: dir });
    expect(second.info.snapshot?.note).toBeUndefined();
    expect(second.info.snapshot?.phases.map((p) => p.phase)).toEqual(["reading-snapshot", "restoring-snapshot"]);
    await second.repl.setContextText("restored context");
    const r = await second.repl.runCell("print(context.upper())\nFINAL(len(context))");
    expect(r.stdout.trim()).toBe("RESTORED CONTEXT");
    expect(r.final_answer).toBe("16");
  });

  it("gives each restored REPL its own random numbers", async () => {
    const a = await start();
    const b = await start();
    expect(a.info.snapshot?.path).toBe("restored");
    expect(b.info.snapshot?.path).toBe("restored");
    const draw = "import random\nprint(random.random(), random.getrandbits(64))";
    const [ra, rb] = [await a.repl.runCell(draw), await b.repl.runCell(draw)];
    expect(ra.stdout).not.toBe("");
    expect(ra.stdout).not.toBe(rb.stdout);
  });

  it.each(["sab", "jspi"] as const)("restored with %s sub-calls: llm_query, Stop during a sub-call, and a runaway loop", async (mode) => {
    const { repl, info } = await start(mode);
    expect(info.snapshot?.path).toBe("restored");
    expect(repl.syncMode).toBe(mode);
    await repl.setContextText("ctx");
    repl.setSubcallHandler(async (req) => req.prompts.map((p) => `re:${p}`));
    const calls = await repl.runCell("print(llm_query('a'), llm_query_batched(['b', 'c']))");
    expect(calls.stdout.trim()).toBe("re:a ['re:b', 're:c']");

    repl.setSubcallHandler(() => new Promise(() => undefined)); // never answers
    const pending = repl.runCell("kept = 1\nllm_query('forever')");
    setTimeout(() => repl.interrupt(), 300);
    expect((await pending).error).toBe("KeyboardInterrupt");

    const loop = await repl.runCell("while True:\n    pass", { timeoutMs: 500 });
    expect(loop.interrupted).toBe(true);
    expect(loop.error).toBe("KeyboardInterrupt");
    expect((await repl.runCell("print(kept)")).stdout.trim()).toBe("1");
  });
});

describe("a stored snapshot that must not be restored", () => {
  /** Rewrites the stored file, starts a REPL, and checks it works and the file is good again. */
  async function startAfter(damage: (stored: Uint8Array) => Uint8Array, why: RegExp): Promise<void> {
    const good = new Uint8Array(await readFile(snapshotFile()));
    await writeFile(snapshotFile(), damage(good));
    const { repl, info } = await start();
    expect(info.snapshot?.path).toBe("made-snapshot");
    expect(info.snapshot?.note).toMatch(why);
    expect((await repl.runCell("print(6 * 7)")).stdout.trim()).toBe("42");
    expect(() => openEnvelope(key, new Uint8Array(Buffer.from(good)))).not.toThrow();
    const replaced = new Uint8Array(await readFile(snapshotFile()));
    expect(() => openEnvelope(key, replaced)).not.toThrow();
  }

  const payloadOf = (stored: Uint8Array) => openEnvelope(key, stored);
  const rewrap = (storedKey: string, payload: Uint8Array) => {
    const header = envelopeHeader(storedKey, payload);
    const out = new Uint8Array(header.byteLength + payload.byteLength);
    out.set(header);
    out.set(payload, header.byteLength);
    return out;
  };

  beforeAll(async () => {
    // Make sure a good snapshot exists whatever ran before.
    await start();
    for (const repl of open.splice(0)) repl.close();
  });

  it("a corrupt file (flipped bytes in the heap)", async () => {
    await startAfter((stored) => {
      const copy = stored.slice();
      const at = copy.byteLength - 100_000;
      copy[at] = copy[at]! ^ 0xff;
      return copy;
    }, /rejected: its checksum does not match.*deleted and a new one made/);
  });

  it("a truncated file (a full disk, a killed writer)", async () => {
    await startAfter((stored) => stored.slice(0, 5_000_000), /rejected: it is truncated/);
  });

  it("a stale file (made for another runtime or Pyodide version)", async () => {
    await startAfter((stored) => rewrap(snapshotKey("0.0.1", runtimeSource), payloadOf(stored)), /made for another version/);
  });

  it("a file that is not a snapshot at all", async () => {
    await startAfter(() => new TextEncoder().encode("definitely not a heap\n".repeat(1000)), /not a Recursive Reader snapshot/);
  });

  it("a snapshot from another Pyodide build (BUILD_ID mismatch)", async () => {
    await startAfter((stored) => {
      const payload = payloadOf(stored).slice();
      // Pyodide's header: u32 magic, offset, JSON length, padding, then the 32-byte BUILD_ID.
      new Uint32Array(payload.buffer, 16, 8).fill(0x01020304);
      return rewrap(key, payload);
    }, /restoring the stored snapshot failed: Snapshot build id mismatch/);
  });
});

describe("a snapshot that passed the full check before", () => {
  const stampFile = () => join(dir, snapshotStampName(key));
  /** Starts until a restore has stamped the file (the first restore after a write checks in full). */
  async function stamped(): Promise<void> {
    const first = await start();
    if (first.info.snapshot?.path !== "restored" || first.info.snapshot.verified !== "stamp") await start();
    for (const repl of open.splice(0)) repl.close();
    expect(existsSync(stampFile())).toBe(true);
  }

  it("is restored without its checksum while the file is unchanged, and checked in full again once it is touched", async () => {
    await stamped();
    const again = await start();
    expect(again.info.snapshot).toMatchObject({ path: "restored", verified: "stamp" });
    expect(again.info.snapshot?.note).toBeUndefined();
    expect((await again.repl.runCell("print(6 * 7)")).stdout.trim()).toBe("42");

    const later = new Date(Date.now() + 5_000);
    await utimes(snapshotFile(), later, later);
    const touched = await start();
    expect(touched.info.snapshot).toMatchObject({ path: "restored", verified: "checksum" });
    // The full check passed, so the stamp now describes the touched file.
    expect((await start()).info.snapshot).toMatchObject({ path: "restored", verified: "stamp" });
  });

  it("a file rewritten in place with its old times put back is still checked in full (and rejected when corrupt)", async () => {
    await stamped();
    const before = await stat(snapshotFile());
    const bytes = new Uint8Array(await readFile(snapshotFile()));
    const at = bytes.byteLength - 54_321;
    bytes[at] = bytes[at]! ^ 0x5a;
    await writeFile(snapshotFile(), bytes); // same size, same inode
    await utimes(snapshotFile(), before.atime, before.mtime); // its change time still moves
    const { repl, info } = await start();
    expect(info.snapshot?.path).toBe("made-snapshot");
    expect(info.snapshot?.note).toMatch(/rejected: its checksum does not match/);
    expect((await repl.runCell("print('fine')")).stdout.trim()).toBe("fine");
  });

  it("a file replaced by another (a new inode) is checked in full, and a damaged stamp only means a full check", async () => {
    await stamped();
    const copy = join(dir, "replacement.bin");
    await copyFile(snapshotFile(), copy);
    await rename(copy, snapshotFile());
    expect((await start()).info.snapshot).toMatchObject({ path: "restored", verified: "checksum" });
    expect((await start()).info.snapshot).toMatchObject({ path: "restored", verified: "stamp" });
    await writeFile(stampFile(), "{not json");
    expect((await start()).info.snapshot).toMatchObject({ path: "restored", verified: "checksum" });
    const stamp = JSON.parse(await readFile(stampFile(), "utf8")) as Record<string, unknown>;
    expect(stamp).toMatchObject({ size: String((await stat(snapshotFile())).size) });
  });
});

describe("without a snapshot store", () => {
  it("boots from scratch and says so", async () => {
    const repl = await startRepl("sab", { snapshotDir: null });
    open.push(repl);
    const info = await repl.start();
    expect(info.snapshot).toMatchObject({ path: "plain", note: "the snapshot cache is off" });
    expect(info.snapshot?.where).toBeUndefined();
    expect((await repl.runCell("print('plain')")).stdout.trim()).toBe("plain");
  });

  it("still starts when the directory cannot be written, and says why", async () => {
    const blocked = join(dir, "a-file-not-a-dir");
    await writeFile(blocked, "x");
    const repl = await startRepl("sab", { snapshotDir: join(blocked, "cache") });
    open.push(repl);
    const info = await repl.start();
    expect(info.snapshot).toMatchObject({ path: "made-snapshot", stored: "failed" });
    expect(info.snapshot?.note).toMatch(/could not store the snapshot in .*a-file-not-a-dir\/cache: ENOTDIR/);
    expect((await repl.runCell("print('works')")).stdout.trim()).toBe("works");
  });
});
