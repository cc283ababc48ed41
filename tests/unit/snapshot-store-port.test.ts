// The snapshot store a worker of the sandboxed frame uses: the page answers over a port, with the
// stored snapshot as a Blob that the worker reads itself (so the page's main thread never reads
// 30 MiB), and stops answering once the worker has booted.
import { afterEach, describe, expect, it } from "vitest";
import type { SnapshotPortAnswer, SnapshotPortRequest } from "../../src/repl/messages.ts";
import { portSnapshotStore } from "../../workers/browser/snapshot-store-port.ts";

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const c of channels.splice(0)) {
    c.port1.close();
    c.port2.close();
  }
});

/** A page end that answers with `reply`, and the requests it saw. */
function pageEnd(reply: (request: SnapshotPortRequest) => Omit<SnapshotPortAnswer, "id">): {
  store: ReturnType<typeof portSnapshotStore>;
  seen: SnapshotPortRequest[];
} {
  const channel = new MessageChannel();
  channels.push(channel);
  const seen: SnapshotPortRequest[] = [];
  channel.port1.onmessage = (event: MessageEvent) => {
    const request = event.data as SnapshotPortRequest;
    seen.push(request);
    channel.port1.postMessage({ id: request.id, ...reply(request) });
  };
  return { store: portSnapshotStore(channel.port2), seen };
}

describe("the sandboxed worker's snapshot store, over a port", () => {
  it("reads the Blob the page found into one buffer of its size", async () => {
    const stored = new Uint8Array(3 * 65536 + 17).map((_, i) => i % 251);
    const { store, seen } = pageEnd(() => ({ blob: new Blob([stored]) }));
    const found = await store.find("key-1");
    expect(found).not.toBeNull();
    const bytes = await found!.bytes;
    expect(bytes.byteLength).toBe(stored.byteLength);
    expect(Buffer.from(bytes).equals(Buffer.from(stored))).toBe(true);
    expect(seen.map((r) => [r.op, r.key])).toEqual([["find", "key-1"]]);
  });

  it("says there is none when the page has none, and passes on why a request failed", async () => {
    expect(await pageEnd(() => ({ blob: null })).store.find("k")).toBeNull();
    await expect(pageEnd(() => ({ error: "the cache is gone" })).store.find("k")).rejects.toThrow("the cache is gone");
  });

  it("writes header and payload as one Blob, and a failed remove never throws", async () => {
    const { store, seen } = pageEnd((r) => (r.op === "remove" ? { error: "no such entry" } : {}));
    await store.write("k", new Uint8Array([1, 2]), new Uint8Array([3, 4, 5]));
    const write = seen[0] as Extract<SnapshotPortRequest, { op: "write" }>;
    expect(write.op).toBe("write");
    expect([...new Uint8Array(await write.body.arrayBuffer())]).toEqual([1, 2, 3, 4, 5]);
    await expect(store.remove("k")).resolves.toBeUndefined();
  });
});
