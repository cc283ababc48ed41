// A load that stalls is retried once in a fresh worker, then ends with a clear message.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ModelLoadStalledError, loadPatiently, loadPatienceMs, type LoadAttempt } from "../../src/engines/wllama/patient-load.ts";

const never = <T>() => new Promise<T>(() => undefined);

describe("loadPatiently", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("returns a load that finishes in time, abandoning nothing", async () => {
    const abandon = vi.fn();
    const result = loadPatiently(() => ({ loaded: Promise.resolve("engine"), abandon }), 1000, "m.gguf");
    await expect(result).resolves.toBe("engine");
    expect(abandon).not.toHaveBeenCalled();
  });

  it("abandons a stalled load and tries once more in a fresh attempt", async () => {
    const abandoned: number[] = [];
    let n = 0;
    const attempt = (): LoadAttempt<string> => {
      const id = ++n;
      return { loaded: id === 1 ? never() : Promise.resolve(`engine ${id}`), abandon: () => abandoned.push(id) };
    };
    const result = loadPatiently(attempt, 1000, "m.gguf");
    await vi.advanceTimersByTimeAsync(1000);
    await expect(result).resolves.toBe("engine 2");
    expect(abandoned).toEqual([1]);
  });

  it("after two stalls says so, with what to do, and has abandoned both", async () => {
    const abandon = vi.fn();
    const result = loadPatiently(() => ({ loaded: never<string>(), abandon }), 90_000, "tiny.gguf");
    const caught = result.catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(180_000);
    const err = await caught;
    expect(err).toBeInstanceOf(ModelLoadStalledError);
    expect((err as Error).message).toMatch(/did not finish loading tiny\.gguf in 90 s, twice.*Reload the page.*Threads to 1/);
    expect(abandon).toHaveBeenCalledTimes(2);
  });

  it("does not retry a model that lived only in the stalled worker, and says why (not that nothing is stored)", async () => {
    const attempt = vi.fn(() => ({ loaded: never<string>(), abandon: vi.fn() }));
    const caught = loadPatiently(attempt, 90_000, "tiny.gguf", false).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(180_000);
    const err = await caught;
    expect(err).toBeInstanceOf(ModelLoadStalledError);
    expect((err as Error).message).toMatch(
      /did not finish loading tiny\.gguf in 90 s\. .*only in llama\.cpp's worker.*choose the model file again/,
    );
    expect(attempt).toHaveBeenCalledOnce();
  });

  it("passes a failure through at once, without a second try", async () => {
    const attempt = vi.fn(() => ({ loaded: Promise.reject(new Error("not a GGUF")), abandon: vi.fn() }));
    await expect(loadPatiently(attempt, 1000, "m.gguf")).rejects.toThrow("not a GGUF");
    expect(attempt).toHaveBeenCalledOnce();
  });

  it("is patient in proportion to the model's size", () => {
    expect(loadPatienceMs(11e6)).toBeGreaterThanOrEqual(90_000);
    expect(loadPatienceMs(4 * 1024 ** 3)).toBe(330_000);
    // A load that cannot be tried again (the model lives only in that worker) waits three times as long.
    expect(loadPatienceMs(4 * 1024 ** 3, false)).toBe(990_000);
  });
});
