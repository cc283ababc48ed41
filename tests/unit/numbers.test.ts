import { describe, expect, it } from "vitest";
import { groupDigits } from "../../src/core/numbers.ts";

describe("groupDigits", () => {
  it("writes integers as toLocaleString('en-US') does", () => {
    const samples = [0, 7, -7, 999, 1000, -1000, 12_345, 999_999, 1_000_000, 10_536_787, -123_456_789, Number.MAX_SAFE_INTEGER, -0];
    for (const n of samples) expect(groupDigits(n)).toBe(n.toLocaleString("en-US"));
  });

  it("leaves other numbers to toLocaleString", () => {
    for (const n of [1.5, 1234.5678, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY]) expect(groupDigits(n)).toBe(n.toLocaleString("en-US"));
  });
});
