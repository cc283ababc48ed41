// The sizes ingest reports must be what Python sees: real Pyodide decodes each document's
// `data` with decode_bytes, and len() of the result must equal `chars`, codec for codec.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeBytes } from "../../src/ingest/decode.ts";
import { measureBytes } from "../../src/ingest/measure.ts";
import { ingestInNode } from "../../src/ingest/node.ts";
import type { IngestedDocument } from "../../src/ingest/types.ts";
import type { ReplClient } from "../../src/repl/client.ts";
import { createNodeRepl } from "../../src/repl/node.ts";
import { TEST_SNAPSHOT_DIR } from "./helpers.ts";
import {
  buildDocx,
  buildPdf,
  emojiAcrossChunkBoundary,
  fileOf,
  lateInvalidUtf8,
  messyBytes,
  textFixtures,
  zipOf,
} from "../fixtures/docs/index.ts";

let repl: ReplClient;

beforeAll(async () => {
  repl = createNodeRepl({ snapshotDir: TEST_SNAPSHOT_DIR });
  await repl.start();
});
afterAll(() => repl?.close());

/** Run Python and parse the JSON it prints. */
async function pyJson<T>(code: string): Promise<T> {
  const result = await repl.runCell(code);
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout) as T;
}

describe("ingest sizes match Python's len(context)", () => {
  it("for every encoding fixture, and PDF, DOCX and zip-entry text", async () => {
    const inputs = textFixtures().map((f) => ({ file: fileOf(f.bytes, f.name) }));
    inputs.push(
      { file: fileOf(buildPdf([["Hello (world)", "line 2"], null, ["three"]]), "doc.pdf") },
      { file: fileOf(buildDocx(["\ufeffStarts with a BOM character", "ünï 😀 𝄞"]), "memo.docx") },
      { file: fileOf(zipOf({ "a/utf8.txt": "zip 😀 text\n", "a/latin.txt": Uint8Array.from([0xe9, 0xff, 0x0a]) }), "z.zip") },
    );
    const { documents, problems } = await ingestInNode(inputs);
    expect(problems).toEqual([]);
    expect(documents.length).toBe(inputs.length - 1 + 2);

    const info = await repl.loadDocuments(
      documents.map((d) => ({ name: d.path, data: d.data, kind: d.kind })),
      "dict",
    );
    expect(info.total_chars).toBe(documents.reduce((n, d) => n + d.chars, 0));
    expect(info.encodings).toEqual(documents.map((d) => d.encoding));

    const seen = await pyJson<Record<string, [number, string]>>(
      "import json\nprint(json.dumps({k: [len(v), v] for k, v in context.items()}))",
    );
    for (const d of documents) {
      const [len, text] = seen[d.path] ?? [-1, ""];
      expect(len, d.path).toBe(d.chars);
      expect(text.startsWith(d.preview), d.path).toBe(true);
      expect(text, d.path).toBe(await jsText(d));
    }
  });

  it("for 600 seeded byte strings full of UTF-8/16/32 edge cases", async () => {
    const cases = messyBytes(600);
    const info = await repl.loadDocuments(
      cases.map((b, i) => ({ name: `m${i}`, data: new Blob([b as BlobPart]) })),
      "list",
    );
    expect(info.encodings).toEqual(cases.map((b) => measureBytes(b).encoding));
    const points = await pyJson<number[][]>("import json\nprint(json.dumps([[ord(c) for c in s] for s in context]))");
    cases.forEach((bytes, i) => {
      const js = decodeBytes(bytes);
      expect(
        Array.from(js.text, (c) => c.codePointAt(0)),
        `case ${i}`,
      ).toEqual(points[i]);
      expect(measureBytes(bytes).chars, `case ${i}`).toBe(points[i]?.length);
    });
  });

  it("for streamed multi-megabyte files (late Latin-1 fallback, emoji on a read boundary)", async () => {
    for (const f of [lateInvalidUtf8(), emojiAcrossChunkBoundary()]) {
      const { documents } = await ingestInNode([{ file: fileOf(f.bytes, f.name) }]);
      const doc = documents[0] as IngestedDocument;
      const info = await repl.loadDocuments([{ name: doc.path, data: doc.data }]);
      expect(info.total_chars, f.name).toBe(doc.chars);
      expect(info.encodings, f.name).toEqual([doc.encoding]);
    }
  });
});

async function jsText(doc: IngestedDocument): Promise<string> {
  return decodeBytes(new Uint8Array(await doc.data.arrayBuffer())).text;
}
