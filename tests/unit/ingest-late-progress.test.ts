// Progress reports and the result travel on different MessagePorts, so a report can arrive after
// the result. The client must drop it: the page clears its progress bar when the call returns,
// and a late "reading… 1 of 1" used to put the bar back for good.
import * as Comlink from "comlink";
import { describe, expect, it } from "vitest";
import { IngestClient } from "../../src/ingest/client.ts";
import type { IngestWorkerApi } from "../../src/ingest/protocol.ts";
import type { IngestProgress } from "../../src/ingest/types.ts";

const report: IngestProgress = {
  path: "a.txt",
  phase: "reading",
  inputIndex: 0,
  inputCount: 1,
  bytesDone: 0,
  bytesTotal: 1,
} as IngestProgress;

/** A worker whose progress report is still in flight when its result is sent. */
function lateReporter(): Worker {
  const { port1, port2 } = new MessageChannel();
  const api: IngestWorkerApi = {
    async ingest(_inputs, _options, onProgress) {
      setTimeout(() => void onProgress?.(report), 20);
      return { documents: [], problems: [] } as never;
    },
  };
  Comlink.expose(api, port2);
  const worker = Object.assign(new EventTarget(), {
    postMessage: (m: unknown, t?: Transferable[]) => port1.postMessage(m, (t ?? []) as never),
    start: () => port1.start(),
    terminate: () => port1.close(),
  });
  const add = worker.addEventListener.bind(worker);
  worker.addEventListener = ((type: string, l: EventListener, o?: AddEventListenerOptions) =>
    type === "message" ? port1.addEventListener("message", l as never, o) : add(type, l, o)) as typeof worker.addEventListener;
  return worker as unknown as Worker;
}

describe("IngestClient progress", () => {
  it("drops a progress report that arrives after the call returned", async () => {
    const client = new IngestClient(lateReporter);
    const seen: Array<{ p: IngestProgress; afterResult: boolean }> = [];
    let returned = false;
    await client.ingest([new File(["x"], "a.txt")], { onProgress: (p) => seen.push({ p, afterResult: returned }) });
    returned = true;
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.filter((s) => s.afterResult)).toEqual([]);
    client.dispose();
  });
});
