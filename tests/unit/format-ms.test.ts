// Durations as the page shows them beside a run: rounded once, so a minute never has 60 seconds.
import { describe, expect, it } from "vitest";
import { formatMs } from "../../src/ui/markdown.ts";

describe("formatMs", () => {
  it("rounds the whole duration, not its parts", () => {
    expect(formatMs(179_600)).toBe("3 min"); // was "2 min 60 s"
    expect(formatMs(59_960)).toBe("1 min"); // was "60.0 s"
    expect(formatMs(61_400)).toBe("1 min 1 s");
    expect(formatMs(897_000)).toBe("14 min 57 s");
  });

  it("says a whole limit without zero seconds", () => {
    expect(formatMs(15 * 60_000)).toBe("15 min");
    expect(formatMs(3_600_000)).toBe("60 min");
  });

  it("keeps short durations precise", () => {
    expect(formatMs(undefined)).toBe("");
    expect(formatMs(840)).toBe("840 ms");
    expect(formatMs(12_345)).toBe("12.3 s");
    expect(formatMs(59_900)).toBe("59.9 s");
  });
});
