// Documents for the CLI. Files go to the REPL worker by path and the worker reads them itself
// (workers/host-file-node.ts): the host never holds a copy, so a 500 MB file costs its bytes and
// the decoded str inside Python, not four copies on the way there. Stdin has no path, so it is
// read here.
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { basename, resolve } from "node:path";
import type { ContextDocumentInput } from "../repl/protocol.ts";
import { UsageError } from "./args.ts";

export async function contextDocuments(files: string[], readStdin: () => Promise<Buffer | null>): Promise<ContextDocumentInput[]> {
  if (files.length) {
    const docs: ContextDocumentInput[] = [];
    for (const file of files) {
      const path = resolve(file);
      try {
        if (!(await stat(path)).isFile()) throw new UsageError(`--context-file ${file} is not a file`);
        await access(path, constants.R_OK); // the worker opens it later; fail now, as a usage error
      } catch (err) {
        if (err instanceof UsageError) throw err;
        throw new UsageError(`cannot read --context-file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      }
      docs.push({ name: files.length === 1 ? basename(file) : file, path });
    }
    return docs;
  }
  const stdin = await readStdin();
  if (!stdin) throw new UsageError("no document: give --context-file PATH or pipe the document on stdin");
  return [{ name: "stdin", data: new Blob([stdin as Uint8Array<ArrayBuffer>]) }];
}
