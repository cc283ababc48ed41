import { describe, expect, it } from "vitest";
import { groupByFolder } from "../../src/app/document-groups.ts";

describe("groupByFolder", () => {
  it("keeps every file, grouped by folder in first-seen order, named after the folder", () => {
    const docs = ["a.txt", "repo/src/x.ts", "repo/README.md", "repo/src/y.ts", "b.txt"].map((path) => ({ path }));
    const groups = groupByFolder(docs);
    expect(groups.map((g) => g.folder)).toEqual(["", "repo/src", "repo"]);
    expect(groups[0]!.items.map((i) => i.name)).toEqual(["a.txt", "b.txt"]);
    expect(groups[1]!.items.map((i) => i.name)).toEqual(["x.ts", "y.ts"]);
    expect(groups.reduce((n, g) => n + g.items.length, 0)).toBe(docs.length);
  });
});
