// The cell's time limit stands still while Python waits for the model, and only then.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CellClock } from "../../src/repl/cell-clock.ts";

describe("CellClock", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  const clock = (limit: number | undefined, onExpire: () => void) => new CellClock(limit, onExpire, () => Date.now());

  it("expires after the limit of Python's own time", () => {
    const expired = vi.fn();
    const c = clock(1000, expired);
    vi.advanceTimersByTime(999);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledOnce();
    expect(c.timedOut).toBe(true);
  });

  it("does not count time spent waiting for sub-calls, however long", () => {
    const expired = vi.fn();
    const c = clock(1000, expired);
    vi.advanceTimersByTime(600);
    c.modelWaitBegan();
    vi.advanceTimersByTime(10 * 60_000);
    c.modelWaitEnded();
    vi.advanceTimersByTime(399);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledOnce();
  });

  it("stands still until the last of overlapping waits ends", () => {
    const expired = vi.fn();
    const c = clock(1000, expired);
    c.modelWaitBegan();
    c.modelWaitBegan();
    c.modelWaitEnded();
    vi.advanceTimersByTime(5000);
    expect(expired).not.toHaveBeenCalled();
    c.modelWaitEnded();
    c.modelWaitEnded(); // one too many is harmless
    vi.advanceTimersByTime(1000);
    expect(expired).toHaveBeenCalledOnce();
  });

  it("has no limit at 0 or undefined, and never fires after dispose", () => {
    const expired = vi.fn();
    clock(0, expired);
    clock(undefined, expired);
    clock(1000, expired).dispose();
    vi.advanceTimersByTime(60_000);
    expect(expired).not.toHaveBeenCalled();
  });
});
