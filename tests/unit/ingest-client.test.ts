// The main-thread client against the real worker API, connected by a MessageChannel instead of
// a Worker (Node has no Web Workers): Comlink, progress proxies, Blob round trips, cancel.
// (The Worker construction itself, and the browser builds of pdfjs/mammoth, need a browser.)
import * as Comlink from "comlink";
import { afterEach, describe, expect, it } from "vitest";
import { IngestAbortedError, IngestClient, IngestWorkerError, toIngestInputs } from "../../src/ingest/client.ts";
import type { Extractors } from "../../src/ingest/extractors.ts";
import { nodeExtractors } from "../../src/ingest/node.ts";
import type { IngestProgress, IngestProgressCallback } from "../../src/ingest/types.ts";
import { createIngestWorkerApi } from "../../src/ingest/worker-api.ts";
import { buildPdf, fileOf } from "../fixtures/docs/index.ts";

/** A stand-in for `new Worker(...)`: the worker API served on the other end of a channel. */
class ChannelWorker extends EventTarget {
  readonly port: MessagePort;
  terminated = false;
  released = 0;

  constructor(extractors: Extractors = nodeExtractors()) {
    super();
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const api = createIngestWorkerApi(extractors, (cb) => {
      this.released++;
      (cb as unknown as Comlink.Remote<IngestProgressCallback>)[Comlink.releaseProxy]();
    });
    Comlink.expose(api, port2);
  }
  postMessage(message: unknown, transfer?: Transferable[]): void {
    this.port.postMessage(message, (transfer ?? []) as never);
  }
  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: AddEventListenerOptions | boolean,
  ): void {
    if (type === "message") this.port.addEventListener("message", listener as never, options as never);
    else super.addEventListener(type, listener, options);
  }
  override removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void {
    if (type === "message") this.port.removeEventListener("message", listener as never);
    else super.removeEventListener(type, listener);
  }
  start(): void {
    this.port.start();
  }
  terminate(): void {
    this.terminated = true;
    this.port.close();
  }
}

const workers: ChannelWorker[] = [];
const factory = (extractors?: Extractors) => () => {
  const w = new ChannelWorker(extractors);
  workers.push(w);
  return w as unknown as Worker;
};
afterEach(() => {
  for (const w of workers.splice(0)) w.terminate();
});

describe("IngestClient", () => {
  it("ingests through the worker API, with progress through a top-level proxy", async () => {
    const client = new IngestClient(factory());
    const progress: IngestProgress[] = [];
    const result = await client.ingest(
      [fileOf("hello 😀\n", "a.txt"), { file: fileOf(buildPdf([["pdf text"]]), "x"), path: "docs/b.pdf" }],
      {
        onProgress: (p) => progress.push(p),
      },
    );
    expect(result.documents.map((d) => [d.path, d.kind, d.chars])).toEqual([
      ["a.txt", "text", 8],
      ["docs/b.pdf", "pdf", "--- page 1 ---\n\npdf text".length],
    ]);
    // Blobs cross back intact.
    expect(await result.documents[1]!.data.text()).toBe("--- page 1 ---\n\npdf text");
    await waitFor(() => progress.length > 0);
    expect(progress[0]).toMatchObject({ inputIndex: 0, inputCount: 2, path: "a.txt" });
    expect(workers[0]?.released).toBe(1);
    client.dispose();
    expect(workers[0]?.terminated).toBe(true);
  });

  it("cancels: rejects with IngestAbortedError and stops the worker; the next call gets a new one", async () => {
    let releaseGate: () => void = () => {};
    const gate = new Promise<void>((resolve) => (releaseGate = resolve));
    const slow: Extractors = {
      ...nodeExtractors(),
      pdf: async (...args) => {
        await gate;
        return nodeExtractors().pdf(...args);
      },
    };
    const client = new IngestClient(factory(slow));
    const controller = new AbortController();
    const call = client.ingest([fileOf(buildPdf([["x"]]), "slow.pdf")], { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(call).rejects.toBeInstanceOf(IngestAbortedError);
    expect(workers[0]?.terminated).toBe(true);
    releaseGate();
    const again = await client.ingest([fileOf("fine", "ok.txt")]);
    expect(again.documents).toHaveLength(1);
    expect(workers).toHaveLength(2);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const client = new IngestClient(factory());
    const controller = new AbortController();
    controller.abort();
    await expect(client.ingest([fileOf("x", "x.txt")], { signal: controller.signal })).rejects.toBeInstanceOf(IngestAbortedError);
    expect(workers).toHaveLength(0);
  });

  it("fails calls in flight with IngestWorkerError when the worker crashes", async () => {
    const hang: Extractors = { ...nodeExtractors(), pdf: () => new Promise(() => {}) };
    const client = new IngestClient(factory(hang));
    const call = client.ingest([fileOf(buildPdf([["x"]]), "hang.pdf")]);
    await new Promise((r) => setTimeout(r, 20));
    const error = new Event("error") as Event & { message: string };
    error.message = "out of memory";
    workers[0]!.dispatchEvent(error);
    await expect(call).rejects.toBeInstanceOf(IngestWorkerError);
    await expect(call).rejects.toThrow(/out of memory/);
  });

  it("takes File paths from explicit paths, else the file name", () => {
    const inputs = toIngestInputs([fileOf("a", "a.txt"), { file: fileOf("b", "b.txt"), path: "dir\\b.txt" }]);
    expect(inputs.map((i) => i.path)).toEqual(["a.txt", "dir/b.txt"]);
  });
});

async function waitFor(ok: () => boolean, ms = 1000): Promise<void> {
  const until = Date.now() + ms;
  while (!ok() && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
}
