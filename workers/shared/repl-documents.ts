// Where Python reads a document from, released once Python has decoded it.
import type { PyodideInterface } from "pyodide";
import type { ContextDocumentInput } from "../../src/repl/protocol.ts";

/** Makes a host file readable at `at` in Python's file system (Node only). */
export type MountHostFile = (py: PyodideInterface, hostPath: string, at: string) => void;

export interface DocumentSource {
  /** A path in Python's file system, or the bytes. */
  value: unknown;
  release(): void;
}

/**
 * A Blob is mounted with WORKERFS in a browser worker, so its bytes go straight from the Blob into
 * Python without a JS copy, and the mount is removed at once: the worker keeps no reference to the
 * Blob (a removed document is really released). Node has no FileReaderSync: a Blob is read first,
 * and a document given by path (the CLI) is one read-only host file that Python reads into its heap.
 */
export function documentSources(mountHostFile: MountHostFile | undefined) {
  const inputRoot = "/input";
  let mountCount = 0;
  return async function documentSource(py: PyodideInterface, doc: ContextDocumentInput): Promise<DocumentSource> {
    const fs = py.FS as unknown as {
      mkdirTree: (d: string) => void;
      mount: (t: unknown, o: unknown, d: string) => void;
      unmount: (d: string) => void;
      rmdir: (d: string) => void;
      unlink: (f: string) => void;
      filesystems: Record<string, unknown>;
    };
    const dir = `${inputRoot}/${mountCount++}`;
    if ("path" in doc) {
      if (!mountHostFile) throw new Error("This REPL cannot read files by path; pass the document's content instead.");
      fs.mkdirTree(dir);
      mountHostFile(py, doc.path, `${dir}/doc`);
      return { value: `${dir}/doc`, release: () => (fs.unlink(`${dir}/doc`), fs.rmdir(dir)) };
    }
    if (typeof (globalThis as { FileReaderSync?: unknown }).FileReaderSync !== "function") {
      return { value: new Uint8Array(await doc.data.arrayBuffer()), release: () => undefined };
    }
    fs.mkdirTree(dir);
    fs.mount(fs.filesystems.WORKERFS, { blobs: [{ name: "doc", data: doc.data }] }, dir);
    return { value: `${dir}/doc`, release: () => (fs.unmount(dir), fs.rmdir(dir)) };
  };
}
