// Two test processes may write the same WebLLM fixture folder at once (npm test's two lanes, a
// benchmark beside the suite; issue 38). The later writer must keep the folder the earlier one
// put in place, which may be serving weights to a page at that moment.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { publishFolder } from "../fixtures/webllm/publish.ts";

const dir = mkdtempSync(join(tmpdir(), "fixture-publish-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let seq = 0;
/** A folder as a writer leaves it: its files, and the manifest last when `complete`. */
function written(name: string, writer: string, complete = true): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "shard.bin"), writer);
  if (complete) writeFileSync(join(folder, "manifest.json"), JSON.stringify({ writer }));
  return folder;
}
const isComplete = (root: string) => existsSync(join(root, "manifest.json"));
const fresh = () => `case-${++seq}`;

describe("publishing a fixture folder (tests/fixtures/webllm/publish.ts)", () => {
  it("puts the folder in place when there is none", async () => {
    const root = join(dir, fresh());
    const temporary = written(`${seq}.a.tmp`, "a");
    await publishFolder(temporary, root, isComplete);
    expect(readFileSync(join(root, "shard.bin"), "utf8")).toBe("a");
    expect(existsSync(temporary)).toBe(false);
  });

  it("keeps the complete folder another writer put in place first, and drops its own", async () => {
    const name = fresh();
    const root = join(dir, name);
    await publishFolder(written(`${seq}.a.tmp`, "a"), root, isComplete);
    const first = statSync(root).ino;
    const later = written(`${seq}.b.tmp`, "b");
    await publishFolder(later, root, isComplete);
    // The same folder, not a copy: a server holding its paths keeps finding its files.
    expect(statSync(root).ino).toBe(first);
    expect(readFileSync(join(root, "shard.bin"), "utf8")).toBe("a");
    expect(existsSync(later)).toBe(false);
  });

  it("replaces an incomplete folder an older writer left", async () => {
    const root = written(fresh(), "half", false);
    await publishFolder(written(`${seq}.b.tmp`, "b"), root, isComplete);
    expect(readFileSync(join(root, "shard.bin"), "utf8")).toBe("b");
    expect(isComplete(root)).toBe(true);
  });

  it("ends with one complete folder when writers finish at once", async () => {
    const root = join(dir, fresh());
    const temporaries = ["a", "b", "c"].map((w) => written(`${seq}.${w}.tmp`, w));
    await Promise.all(temporaries.map((t) => publishFolder(t, root, isComplete)));
    expect(isComplete(root)).toBe(true);
    expect(["a", "b", "c"]).toContain(readFileSync(join(root, "shard.bin"), "utf8"));
    for (const t of temporaries) expect(existsSync(t)).toBe(false);
  });
});
