import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/engines/limiter.ts";
import { readSse } from "../../src/engines/sse.ts";

function streamOf(parts: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const p of parts) c.enqueue(enc.encode(p));
      c.close();
    },
  });
}

describe("readSse", () => {
  it("joins events split across chunks, any line ending, and skips comments", async () => {
    const out: string[] = [];
    for await (const d of readSse(streamOf(['data: {"a"', ":1}\n\n: keep-alive\r\n\r\ndata: x\r\n", "data: y\r\n\r\n", "data: [DONE]"])))
      out.push(d);
    expect(out).toEqual(['{"a":1}', "x\ny", "[DONE]"]);
  });
  it("splits a multi-byte character across chunks correctly", async () => {
    const bytes = new TextEncoder().encode("data: héllo\n\n");
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, 8));
        c.enqueue(bytes.slice(8));
        c.close();
      },
    });
    const out: string[] = [];
    for await (const d of readSse(stream)) out.push(d);
    expect(out).toEqual(["héllo"]);
  });
});

describe("Limiter", () => {
  it("never runs more than the limit at once and keeps FIFO order", async () => {
    const limiter = new Limiter(2);
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const tasks = Array.from({ length: 8 }, (_, i) =>
      limiter.run(async () => {
        started.push(i);
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5 + (i % 3)));
        active -= 1;
        return i;
      }),
    );
    // A task enqueued while others are running still respects the limit.
    tasks.push(limiter.run(async () => 99));
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 99]);
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
  it("releases the slot when a task throws", async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(async () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    expect(await limiter.run(async () => "after")).toBe("after");
  });
});
