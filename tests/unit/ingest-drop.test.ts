// Dropped folders: walking the File System Entry API into inputs with relative paths.
import { describe, expect, it } from "vitest";
import { collectEntries, type DroppedEntry } from "../../src/ingest/drop.ts";

type Tree = { [name: string]: Tree | string };

/** An in-memory FileSystemEntry tree whose readers hand out `batch` entries per call. */
function entryTree(name: string, tree: Tree, parent = "", batch = 2): DroppedEntry {
  const fullPath = `${parent}/${name}`;
  return {
    isFile: false,
    isDirectory: true,
    name,
    fullPath,
    createReader() {
      const children = Object.entries(tree).map(([child, value]) =>
        typeof value === "string"
          ? ({
              isFile: true,
              isDirectory: false,
              name: child,
              fullPath: `${fullPath}/${child}`,
              file: (ok: (f: File) => void, fail: (e: unknown) => void) =>
                value === "!unreadable" ? fail(new Error("NotReadableError")) : ok(new File([value], child)),
            } as DroppedEntry)
          : entryTree(child, value, fullPath, batch),
      );
      let at = 0;
      return {
        readEntries(ok: (entries: DroppedEntry[]) => void) {
          const out = children.slice(at, at + batch);
          at += batch;
          setTimeout(() => ok(out), 0);
        },
      };
    },
  } as unknown as DroppedEntry;
}

describe("collectEntries (dropped folders)", () => {
  it("walks folders in batches, keeping relative paths, and reports unreadable files", async () => {
    const root = entryTree("repo", {
      "README.md": "# hi",
      src: { "a.ts": "a", "b.ts": "b", "c.ts": "c", lib: { "d.ts": "d" } },
      "secret.txt": "!unreadable",
    });
    const found = await collectEntries([root]);
    expect(found.inputs.map((i) => i.path)).toEqual([
      "repo/README.md",
      "repo/src/a.ts",
      "repo/src/b.ts",
      "repo/src/c.ts",
      "repo/src/lib/d.ts",
    ]);
    expect(await found.inputs[4]!.file.text()).toBe("d");
    expect(found.problems).toEqual([expect.objectContaining({ path: "repo/secret.txt", code: "read-error" })]);
  });
});
