// A snapshot store on the other end of a MessagePort. The sandboxed frame's worker has an opaque
// origin, so no Cache Storage of its own: the page keeps the snapshot and answers this worker's
// requests over a port it closes once the worker has booted (so model code, which runs only
// after the boot, can never write a snapshot that later sessions would restore).
import type { SnapshotPortAnswer, SnapshotPortRequest } from "../../src/repl/messages.ts";
import { readBlob, type SnapshotStore } from "../../src/repl/snapshot-store.ts";

type Unsent<T> = T extends unknown ? Omit<T, "id"> : never;

export function portSnapshotStore(port: MessagePort): SnapshotStore {
  // Taken now, before any model code could patch MessagePort.prototype.
  const post = port.postMessage.bind(port);
  const waiting = new Map<number, (answer: SnapshotPortAnswer) => void>();
  let next = 0;
  port.onmessage = (event: MessageEvent) => {
    const answer = event.data as SnapshotPortAnswer;
    waiting.get(answer.id)?.(answer);
    waiting.delete(answer.id);
  };
  const ask = (request: Unsent<SnapshotPortRequest>): Promise<SnapshotPortAnswer> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, (answer) => (answer.error === undefined ? resolve(answer) : reject(new Error(answer.error))));
      post({ ...request, id });
    });
  return {
    where: "the page's Cache Storage",
    // The page stops answering once the boot is over, so a write must reach it before then; it
    // answers as soon as it holds the Blob, and stores it afterwards.
    waitForWrites: true,
    async find(key) {
      const { blob } = await ask({ op: "find", key });
      return blob ? { bytes: readBlob(blob) } : null;
    },
    async write(key, header, payload) {
      await ask({ op: "write", key, body: new Blob([header as BlobPart, payload as BlobPart]) });
    },
    async remove(key) {
      await ask({ op: "remove", key }).catch(() => undefined);
    },
  };
}
