// One rule for making document paths unique, within a drop and against a session's documents.
import { describe, expect, it } from "vitest";
import { UniquePaths } from "../../src/ingest/paths.ts";

describe("UniquePaths", () => {
  it("numbers a repeat before the extension, and a dotfile after its name", () => {
    const paths = new UniquePaths(["notes.txt", "repo/.gitignore", "README"]);
    expect(paths.claim("notes.txt")).toBe("notes (2).txt");
    expect(paths.claim("notes.txt")).toBe("notes (3).txt");
    expect(paths.claim("repo/.gitignore")).toBe("repo/.gitignore (2)");
    expect(paths.claim("README")).toBe("README (2)");
    expect(paths.claim("a.b/c")).toBe("a.b/c");
    expect(paths.claim("a.b/c")).toBe("a.b/c (2)");
  });
});
