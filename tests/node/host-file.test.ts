// Documents given by path to the Node REPL (what the CLI does with --context-file): the worker
// reads the file itself, Python sees exactly that one file, read-only, and nothing next to it.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReplClient } from "../../src/repl/client.ts";
import { startRepl } from "./helpers.ts";

let dir: string;
let repl: ReplClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rlm-host-file-"));
  await writeFile(join(dir, "book.txt"), "Chapter 1\nIt was a dark and stormy night.\n");
  await writeFile(join(dir, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café", invalid UTF-8
  await writeFile(join(dir, "secret-neighbour.txt"), "must stay invisible");
  repl = await startRepl("sab");
});
afterAll(async () => {
  repl?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("a document given by path", () => {
  it("becomes context, decoded like any other document", async () => {
    const one = await repl.loadDocuments([{ name: "book.txt", path: join(dir, "book.txt") }]);
    expect(one).toMatchObject({ type: "str", total_chars: 42, items: 1, encodings: ["utf-8"] });
    expect((await repl.runCell("print(context.splitlines()[1])")).stdout.trim()).toBe("It was a dark and stormy night.");
    const two = await repl.loadDocuments([
      { name: "a/book.txt", path: join(dir, "book.txt") },
      { name: "b/latin1.txt", path: join(dir, "latin1.txt") },
    ]);
    expect(two).toMatchObject({ type: "dict", items: 2, encodings: ["utf-8", "latin-1"] });
    expect((await repl.runCell("print(context['b/latin1.txt'])")).stdout.trim()).toBe("café");
  });

  it("is read into Python and then unmounted: model code can see no host file at all", async () => {
    await repl.loadDocuments([{ name: "book.txt", path: join(dir, "book.txt") }]);
    const r = await repl.runCell(
      ["import os, glob", "print([p for p in glob.glob('/input/**', recursive=True) if os.path.isfile(p)])", "print(context[:9])"].join(
        "\n",
      ),
    );
    expect(r.stderr).toBe("");
    expect(r.stdout.trim().split("\n")).toEqual(["[]", "Chapter 1"]);
  });

  it("a file that cannot be read fails the load with the host's reason", async () => {
    await expect(repl.loadDocuments([{ name: "gone.txt", path: join(dir, "gone.txt") }])).rejects.toThrow(/ENOENT/);
    expect((await repl.runCell("print('still fine')")).stdout.trim()).toBe("still fine");
  });
});
