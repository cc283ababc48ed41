import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { glob } from "tinyglobby";
import { afterEach, describe, expect, it, vi } from "vitest";
import { E2E_LANE_ENV, LANE_B_E2E_FILES, UnknownLaneError, laneFromEnv } from "../lanes.ts";

// `npm test` splits the browser files between two vitest processes (tests/lanes.ts, issue 38).
// A file in neither lane would silently never run; a file in both would run twice at once
// against itself. These read the e2e project as vitest.config.ts builds it for each lane and
// list its files as vitest does (tinyglobby, vitest's own globber).
const root = fileURLToPath(new URL("../../", import.meta.url));

interface ProjectTest {
  name: string;
  include: string[];
  exclude: string[];
  sequence?: { groupOrder?: number };
}

async function e2eProject(lane: string | undefined): Promise<ProjectTest> {
  vi.resetModules();
  vi.stubEnv(E2E_LANE_ENV, lane);
  const config = (await import("../../vitest.config.ts")).default as { test: { projects: Array<{ test: ProjectTest }> } };
  const project = config.test.projects.map((p) => p.test).find((t) => t.name === "e2e");
  if (!project) throw new Error("vitest.config.ts has no e2e project");
  return project;
}

async function filesOf(lane: string | undefined): Promise<string[]> {
  const { include, exclude } = await e2eProject(lane);
  return (await glob(include, { cwd: root, ignore: exclude })).sort();
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the two lanes of npm test (tests/lanes.ts)", () => {
  it("names browser test files that exist", () => {
    expect(LANE_B_E2E_FILES.length).toBeGreaterThan(0);
    for (const file of LANE_B_E2E_FILES) {
      expect(file, `${file} is in tests/lanes.ts but not on disk: remove or rename it there`).toMatch(/^tests\/e2e\/.+\.test\.ts$/);
      expect(existsSync(`${root}${file}`), `${file} is in tests/lanes.ts but not on disk: remove or rename it there`).toBe(true);
    }
  });

  it("runs every browser test file in exactly one lane", async () => {
    const all = await filesOf(undefined);
    const a = await filesOf("a");
    const b = await filesOf("b");
    expect(all.length).toBeGreaterThan(LANE_B_E2E_FILES.length);
    expect(a.filter((f) => b.includes(f))).toEqual([]);
    expect([...a, ...b].sort()).toEqual(all);
    expect(b).toEqual([...LANE_B_E2E_FILES].sort());
  });

  it("starts WebKit from one lane only: two xvfb-run -a starting at once can take the same display", async () => {
    // WebKit starts only through the engines' launcher (tests/e2e/engines/webkit.ts, under xvfb-run).
    const startsWebKit = (file: string) => /\blaunch(Engine|WebKit)\(/.test(readFileSync(`${root}${file}`, "utf8"));
    const a = (await filesOf("a")).filter(startsWebKit);
    const b = (await filesOf("b")).filter(startsWebKit);
    expect(a.length + b.length, "no browser file starts WebKit: the check below would prove nothing").toBeGreaterThan(0);
    expect(
      a.length === 0 || b.length === 0,
      `WebKit files in lane A: ${a.join(", ")}; in lane B: ${b.join(", ")}: move them to one lane in tests/lanes.ts`,
    ).toBe(true);
  });

  it("keeps a plain run whole: every browser file, as before the split", async () => {
    const all = await filesOf(undefined);
    const onDisk = (await glob("tests/e2e/**/*.test.ts", { cwd: root })).sort();
    expect(all).toEqual(onDisk);
  });

  it("runs lane B's browser files after its unit and Node tests", async () => {
    vi.resetModules();
    vi.stubEnv(E2E_LANE_ENV, "b");
    const config = (await import("../../vitest.config.ts")).default as { test: { projects: Array<{ test: ProjectTest }> } };
    const order = (name: string) => config.test.projects.find((p) => p.test.name === name)?.test.sequence?.groupOrder ?? 0;
    expect(order("e2e")).toBeGreaterThan(order("unit"));
    expect(order("e2e")).toBeGreaterThan(order("node"));
  });

  it("refuses a lane it does not know, saying which it knows", () => {
    expect(laneFromEnv({ [E2E_LANE_ENV]: "a" })).toBe("a");
    expect(laneFromEnv({})).toBeUndefined();
    expect(() => laneFromEnv({ [E2E_LANE_ENV]: "B " })).toThrow(UnknownLaneError);
    expect(() => laneFromEnv({ [E2E_LANE_ENV]: "c" })).toThrow(/use "a" or "b"/);
  });
});
