// Every format whose text marks places (pages, paragraphs) is cited by them in Python: a real
// file of the format is read by the real ingest, loaded into real Pyodide under the path ingest
// gave it, and a match in its second page or paragraph comes back with that place, under the
// field the registry's unit names. The Python runtime keeps its own copy of the formats' markers
// (docs/architecture.md, "Add a document format"); this holds the two together, and fails for a
// format registered with places but no sample here, or no counterpart in Python.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORMATS, pythonFormatFacts } from "../../src/ingest/formats/index.ts";
import { ingestInNode } from "../../src/ingest/node.ts";
import type { ReplClient } from "../../src/repl/client.ts";
import { buildDocx, buildPdf, fileOf } from "../fixtures/docs/index.ts";
import { startRepl } from "./helpers.ts";

const NEEDLE = "OSPREY-7731";

/** A file of each format with places, three units long, the needle in the second. */
const SAMPLES: Record<string, () => Uint8Array> = {
  pdf: () => buildPdf([["Cover page"], [`The code word is ${NEEDLE}.`], ["Appendix"]]),
  docx: () => buildDocx(["Title", `The code word is ${NEEDLE}.`, "Closing words."]),
};

let repl: ReplClient;

beforeAll(async () => {
  repl = await startRepl("auto");
});
afterAll(() => repl?.close());

describe("formats cite their places in Python as the registry says", () => {
  it("has a sample for every format with places", () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(
      pythonFormatFacts()
        .map((f) => f.kind)
        .sort(),
    );
  });

  for (const facts of pythonFormatFacts()) {
    it(`${facts.kind}: a match in the second ${facts.places.unit} is cited there`, async () => {
      const name = `sample.${facts.extensions[0]}`;
      const { documents, problems } = await ingestInNode([{ file: fileOf(SAMPLES[facts.kind]!(), name) }]);
      expect(problems).toEqual([]);
      expect(documents.map((d) => d.kind)).toEqual([facts.kind]);
      await repl.resetNamespace();
      await repl.loadDocuments([{ name: documents[0]!.path, data: documents[0]!.data }]);
      const cell = await repl.runCell(`import re\nm = re.search(${JSON.stringify(NEEDLE)}, context)`);
      const [match] = (cell.sources ?? []).filter((s) => s.kind === "match");
      expect(match).toMatchObject({ doc: name, [facts.places.unit]: 2 });
    });
  }

  it("a plain text document is cited by lines only", async () => {
    expect(FORMATS.find((f) => f.kind === "text")?.places).toEqual({ unit: "line" });
    await repl.resetNamespace();
    await repl.loadDocuments([{ name: "notes.txt", data: new Blob([`--- page 1 ---\n\nCover\n\n${NEEDLE}`]) }]);
    const cell = await repl.runCell(`import re\nm = re.search(${JSON.stringify(NEEDLE)}, context)`);
    const [match] = (cell.sources ?? []).filter((s) => s.kind === "match");
    expect(match).toMatchObject({ doc: "notes.txt", line: 5 });
    expect(match).not.toHaveProperty("page");
    expect(match).not.toHaveProperty("paragraph");
  });
});
