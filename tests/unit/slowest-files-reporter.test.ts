// The table the suite prints at its end (tests/reporters/slowest-files.ts): slowest first, load
// time counted, at most ten lines.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import SlowestFilesReporter, { SLOWEST_FILES_JSON, slowestFilesTable, type FileTime } from "../reporters/slowest-files.ts";

const file = (name: string, loadMs: number, runMs: number, tests = 1): FileTime => ({ file: name, project: "e2e", loadMs, runMs, tests });

describe("the slowest-files table", () => {
  it("lists the slowest files first, counting load time, ten at most", () => {
    const files = Array.from({ length: 12 }, (_, i) => file(`f${i}.test.ts`, 0, i * 1000));
    files.push(file("slow-import.test.ts", 20_000, 500, 3));
    const lines = slowestFilesTable(files).split("\n");
    expect(lines[0]).toBe("Slowest 10 of 13 test files (files together: 86.5 s):");
    expect(lines).toHaveLength(11);
    expect(lines[1]).toContain("20.5 s  e2e   slow-import.test.ts  (3 tests, load 20.0 s)");
    expect(lines[2]).toContain("f11.test.ts");
    expect(lines.some((l) => l.includes("f0.test.ts"))).toBe(false);
  });

  it("prints nothing when no file ran", () => {
    expect(slowestFilesTable([])).toBe("");
  });
});

describe("the reporter beside another vitest process (scripts/test-all.ts)", () => {
  it("writes its files' times where RLM_SLOWEST_FILES_JSON says, for one table of both", () => {
    const dir = mkdtempSync(join(tmpdir(), "rlm-slowest-"));
    const out = join(dir, "times.json");
    const before = process.env[SLOWEST_FILES_JSON];
    process.env[SLOWEST_FILES_JSON] = out;
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      new SlowestFilesReporter().onTestRunEnd([]);
      expect(JSON.parse(readFileSync(out, "utf8"))).toEqual([]);
    } finally {
      write.mockRestore();
      if (before === undefined) delete process.env[SLOWEST_FILES_JSON];
      else process.env[SLOWEST_FILES_JSON] = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
