// One host file made readable to Python in the Node worker, without a copy in JavaScript: the
// file appears at a path in Pyodide's file system, and each read goes straight from the host
// file into the wasm heap (Python's `open(path, "rb").read()` allocates the bytes object and
// the read fills it). So a 500 MB document costs its bytes plus the decoded str, nothing more.
//
// Not Emscripten's NODEFS: that mounts a whole host directory, and model-written code could
// then read (and write) every file next to the document.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { PyodideInterface } from "pyodide";

interface EmscriptenStream {
  node: EmscriptenNode;
  /** Shared by streams made with os.dup(); closed when the last one closes. */
  host?: { fd: number; refs: number };
}
interface EmscriptenNode {
  usedBytes: number;
  stream_ops: Record<string, unknown>;
}
interface EmscriptenFS {
  mkdirTree(path: string): void;
  writeFile(path: string, data: Uint8Array): void;
  chmod(path: string, mode: number): void;
  lookupPath(path: string): { node: EmscriptenNode };
  ErrnoError: new (errno: number) => Error;
}

// Emscripten's errno numbering (not the host's)
const EPERM = 63;
const EIO = 29;

export function mountHostFile(py: PyodideInterface, hostPath: string, at: string): void {
  const FS = py.FS as unknown as EmscriptenFS;
  // Opened once now: a missing or unreadable file fails here, with the host's error.
  const probe = openSync(hostPath, "r");
  const size = fstatSync(probe).size;
  closeSync(probe);
  FS.mkdirTree(at.slice(0, at.lastIndexOf("/")));
  FS.writeFile(at, new Uint8Array(0));
  FS.chmod(at, 0o444);
  const node = FS.lookupPath(at).node;
  node.usedBytes = size; // what stat() and seeking to the end see
  // A host error must reach Python as an OSError: anything but an ErrnoError escapes Emscripten's
  // system-call layer and takes the interpreter down.
  const hostCall = <T>(f: () => T): T => {
    try {
      return f();
    } catch (err) {
      if (err instanceof FS.ErrnoError) throw err;
      throw new FS.ErrnoError(EIO);
    }
  };
  node.stream_ops = {
    ...node.stream_ops,
    open(stream: EmscriptenStream) {
      stream.host = { fd: hostCall(() => openSync(hostPath, "r")), refs: 1 };
    },
    dup(stream: EmscriptenStream) {
      if (stream.host) stream.host.refs += 1;
    },
    close(stream: EmscriptenStream) {
      const host = stream.host;
      stream.host = undefined;
      if (host && --host.refs === 0) hostCall(() => closeSync(host.fd));
    },
    read(stream: EmscriptenStream, heap: Int8Array, offset: number, length: number, position: number) {
      const host = stream.host;
      if (!host || position >= size) return 0;
      return hostCall(() => readSync(host.fd, heap, offset, Math.min(length, size - position), position));
    },
    write() {
      throw new FS.ErrnoError(EPERM);
    },
    mmap() {
      throw new FS.ErrnoError(EPERM);
    },
  };
}
