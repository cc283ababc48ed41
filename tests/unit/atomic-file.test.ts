// The CLI's cache directory: files written whole or not at all, and kept bounded
// (src/repl/atomic-file.node.ts, used by the snapshot store and Pyodide's code cache).
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pruneCacheFiles, writeFileAtomically, type CacheFileKind } from "../../src/repl/atomic-file.node.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "rlm-cache-files-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const kind: CacheFileKind = { prefix: "snap-", suffix: ".bin", companionSuffixes: [".stamp"], keepOthers: 2 };
const ageBy = (name: string, seconds: number) => {
  const t = Date.now() / 1000 - seconds;
  utimesSync(join(dir, name), t, t);
};

describe("writeFileAtomically", () => {
  it("writes the parts in order, creating the directory, and leaves no temporary file", () => {
    const nested = join(dir, "a", "b");
    writeFileAtomically(nested, "snap-1.bin", [Uint8Array.of(1, 2), "xy"]);
    expect([...readFileSync(join(nested, "snap-1.bin"))]).toEqual([1, 2, 120, 121]);
    expect(readdirSync(nested)).toEqual(["snap-1.bin"]);
  });

  it("a write that fails leaves the old file as it was and no temporary file", () => {
    writeFileAtomically(dir, "snap-1.bin", ["old"]);
    expect(() => writeFileAtomically(dir, "snap-1.bin", ["new", 42 as unknown as string])).toThrow();
    expect(readFileSync(join(dir, "snap-1.bin"), "utf8")).toBe("old");
    expect(readdirSync(dir)).toEqual(["snap-1.bin"]);
  });
});

describe("pruneCacheFiles", () => {
  it("keeps this key's file and the two newest others, with their stamps; drops orphan stamps and dead temporary files", () => {
    for (const [i, age] of [
      [1, 40],
      [2, 30],
      [3, 20],
      [4, 10],
    ] as const) {
      writeFileSync(join(dir, `snap-${i}.bin`), "x");
      writeFileSync(join(dir, `snap-${i}.stamp`), "s");
      ageBy(`snap-${i}.bin`, age);
    }
    writeFileSync(join(dir, "snap-9.stamp"), "orphan");
    writeFileSync(join(dir, ".snap-5.bin.1.abc.tmp"), "dead");
    ageBy(".snap-5.bin.1.abc.tmp", 3600);
    writeFileSync(join(dir, ".snap-6.bin.2.def.tmp"), "being written");
    writeFileSync(join(dir, "unrelated.txt"), "kept");
    pruneCacheFiles(dir, kind, "snap-1.bin");
    expect(readdirSync(dir).sort()).toEqual(
      [
        ".snap-6.bin.2.def.tmp",
        "snap-1.bin",
        "snap-1.stamp",
        "snap-3.bin",
        "snap-3.stamp",
        "snap-4.bin",
        "snap-4.stamp",
        "unrelated.txt",
      ].sort(),
    );
  });
});
