// The Python runtime package as each entry gets it: the browser's bundled list and Node's reading
// of the directory hold the same files, and the snapshot key covers every one of them.
import { describe, expect, it } from "vitest";
import { RUNTIME_FILES } from "../../workers/browser/runtime-package.browser.ts";
import { readRuntimePackage } from "../../workers/node/runtime-package.node.ts";
import { runtimeText, snapshotKey } from "../../workers/shared/snapshot-format.ts";

describe("the runtime package's files", () => {
  it("are the same for the browser worker and the Node worker, each module once, in one order", () => {
    const fromDisk = readRuntimePackage();
    expect(RUNTIME_FILES.map((f) => f.path)).toEqual(fromDisk.map((f) => f.path));
    expect(RUNTIME_FILES).toEqual(fromDisk);
    expect(fromDisk.map((f) => f.path)).toContain("rlm_runtime/__init__.py");
    expect(fromDisk.map((f) => f.path)).toContain("rlm_runtime/evidence/__init__.py");
  });

  it("all go into the snapshot key: a change to any module, or a renamed one, makes another key", () => {
    const files = readRuntimePackage();
    const key = snapshotKey("1.0", runtimeText(files));
    for (const [i, file] of files.entries()) {
      const edited = files.map((f, j) => (j === i ? { ...f, source: `${f.source}\n` } : f));
      expect(snapshotKey("1.0", runtimeText(edited)), file.path).not.toBe(key);
    }
    const renamed = files.map((f, j) => (j === 1 ? { ...f, path: `${f.path}.moved` } : f));
    expect(snapshotKey("1.0", runtimeText(renamed))).not.toBe(key);
  });
});
