// The render worker's client: a job past its time budget is given up (the worker replaced, the
// text then shown plain), cancelled jobs free their lane, a crash fails only its own job, and
// small results are cached.
import { afterEach, describe, expect, it } from "vitest";
import type { RenderChunk } from "../../src/ui/render/markdown-html.ts";
import type { RenderReply, RenderRequest } from "../../src/ui/render/protocol.ts";
import {
  MarkdownRenderClient,
  RenderFailedError,
  RenderLane,
  RenderTimeoutError,
  type RenderWorkerLike,
} from "../../src/ui/render/render-client.ts";

/** A worker that answers each request after `delay(text)` ms, or never when that is Infinity. */
class FakeWorker implements RenderWorkerLike {
  static made: FakeWorker[] = [];
  terminated = false;
  received: string[] = [];
  private onMessage: ((e: MessageEvent<RenderReply>) => void) | null = null;
  private onError: ((e: ErrorEvent) => void) | null = null;
  constructor(private readonly delay: (text: string) => number) {
    FakeWorker.made.push(this);
  }
  postMessage(message: RenderRequest): void {
    this.received.push(message.text);
    const ms = this.delay(message.text);
    if (message.text === "crash") {
      setTimeout(() => this.onError?.({ message: "boom", preventDefault() {} } as ErrorEvent), 1);
      return;
    }
    if (!Number.isFinite(ms)) return;
    setTimeout(() => {
      if (this.terminated) return;
      const chunks: RenderChunk[] = [{ kind: "html", html: `<p>${message.text}</p>`, sourceChars: message.text.length, tags: 2 }];
      this.onMessage?.({ data: { type: "rendered", id: message.id, chunks } } as MessageEvent<RenderReply>);
    }, ms);
  }
  terminate(): void {
    this.terminated = true;
  }
  addEventListener(type: "message" | "error", listener: never): void {
    if (type === "message") this.onMessage = listener;
    else this.onError = listener;
  }
}

afterEach(() => {
  FakeWorker.made = [];
});

describe("RenderLane", () => {
  it("gives up on a job past its budget, replaces the worker, and goes on with the next", async () => {
    const lane = new RenderLane(
      () => new FakeWorker((t) => (t === "slow" ? Infinity : 1)),
      true,
      () => 50,
    );
    const slow = lane.render("slow");
    const next = lane.render("next");
    await expect(slow).rejects.toBeInstanceOf(RenderTimeoutError);
    await expect(next).resolves.toEqual([{ kind: "html", html: "<p>next</p>", sourceChars: 4, tags: 2 }]);
    expect(FakeWorker.made).toHaveLength(2);
    expect(FakeWorker.made[0]!.terminated).toBe(true);
  });

  it("a cancelled job waiting in the queue is never sent", async () => {
    const lane = new RenderLane(() => new FakeWorker(() => 20), true);
    const first = lane.render("first");
    const controller = new AbortController();
    const second = lane.render("second", controller.signal);
    controller.abort(new Error("newer text"));
    await expect(second).rejects.toThrow("newer text");
    await first;
    expect(FakeWorker.made[0]!.received).toEqual(["first"]);
  });

  it("huge jobs: cancelling the one being parsed stops the worker at once", async () => {
    const lane = new RenderLane(() => new FakeWorker((t) => (t === "huge" ? Infinity : 1)), true);
    const controller = new AbortController();
    const huge = lane.render("huge", controller.signal);
    controller.abort(new Error("gone"));
    await expect(huge).rejects.toThrow("gone");
    expect(FakeWorker.made[0]!.terminated).toBe(true);
    await expect(lane.render("after")).resolves.toHaveLength(1);
  });

  it("small jobs: a cancelled parse finishes in the same worker, its result dropped", async () => {
    const lane = new RenderLane(() => new FakeWorker(() => 10), false);
    const controller = new AbortController();
    const first = lane.render("token 1", controller.signal);
    controller.abort(new Error("next token"));
    const second = lane.render("token 1 2");
    await expect(first).rejects.toThrow("next token");
    await expect(second).resolves.toHaveLength(1);
    expect(FakeWorker.made).toHaveLength(1);
    expect(FakeWorker.made[0]!.terminated).toBe(false);
  });

  it("a crash fails only its own job", async () => {
    const lane = new RenderLane(() => new FakeWorker(() => 1), true);
    const crash = lane.render("crash");
    const fine = lane.render("fine");
    await expect(crash).rejects.toBeInstanceOf(RenderFailedError);
    await expect(fine).resolves.toHaveLength(1);
  });

  it("a worker that cannot be created fails the job with a reason", async () => {
    const lane = new RenderLane(() => {
      throw new Error("workers are blocked");
    }, true);
    await expect(lane.render("x")).rejects.toThrow(/workers are blocked/);
  });
});

describe("MarkdownRenderClient", () => {
  it("caches small results, so a view shown again paints at once", async () => {
    const client = new MarkdownRenderClient(() => new FakeWorker(() => 1));
    expect(client.cached("hello")).toBeUndefined();
    await client.render("hello");
    expect(client.cached("hello")).toHaveLength(1);
    await client.render("hello");
    expect(FakeWorker.made.flatMap((w) => w.received)).toEqual(["hello"]);
  });

  it("huge texts go to their own lane and are not cached", async () => {
    const huge = "x".repeat(100_000);
    const client = new MarkdownRenderClient(() => new FakeWorker((t) => (t.length > 1000 ? 30 : 1)));
    const big = client.render(huge);
    const small = client.render("small");
    // The small text does not wait behind the huge one.
    const first = await Promise.race([big.then(() => "big"), small.then(() => "small")]);
    expect(first).toBe("small");
    await big;
    expect(client.cached(huge)).toBeUndefined();
  });
});
