// Every format whose text marks places (pages, paragraphs) is cited by them in Python: a real
// file of the format is read by the real ingest, loaded into real Pyodide under the path ingest
// gave it and with the kind ingest gave it, and a match in its second page or paragraph comes back
// with that place, under the field the registry's unit names. Python reads the markers from
// rlm_runtime/formats.py, generated from the registry (scripts/python-formats.ts), and the kind
// from the host, never from the name: a PDF named without ".pdf" is cited by page too. This fails
// for a format registered with places but no sample here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORMATS, formatOf, pythonFormatFacts } from "../../src/ingest/formats/index.ts";
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
    const extension = formatOf(facts.kind).extensions[0]!;
    // Named as ingest names it, and named with no extension at all (a download saved as "scan",
    // a file renamed): ingest knows it by its bytes, and Python by the kind the host passes.
    for (const name of [`sample.${extension}`, `sample-without-extension`]) {
      it(`${facts.kind} named ${name}: a match in the second ${facts.places.unit} is cited there`, async () => {
        const { documents, problems } = await ingestInNode([{ file: fileOf(SAMPLES[facts.kind]!(), name) }]);
        expect(problems).toEqual([]);
        expect(documents.map((d) => d.kind)).toEqual([facts.kind]);
        const doc = documents[0]!;
        await repl.resetNamespace();
        await repl.loadDocuments([{ name: doc.path, data: doc.data, kind: doc.kind }]);
        const cell = await repl.runCell(`import re\nm = re.search(${JSON.stringify(NEEDLE)}, context)`);
        const [match] = (cell.sources ?? []).filter((s) => s.kind === "match");
        expect(match).toMatchObject({ doc: name, [facts.places.unit]: 2 });
      });
    }
  }

  it("a document added alone keeps its kind, also beside others", async () => {
    const { documents } = await ingestInNode([{ file: fileOf(SAMPLES.pdf!(), "report") }]);
    const doc = documents[0]!;
    await repl.resetNamespace();
    await repl.loadDocuments([{ name: "notes.txt", data: new Blob(["Nothing here.\n"]), kind: "text" }]);
    await repl.addDocument({ name: doc.path, data: doc.data, kind: doc.kind });
    const cell = await repl.runCell(`import re\nm = re.search(${JSON.stringify(NEEDLE)}, context["report"])`);
    const [match] = (cell.sources ?? []).filter((s) => s.kind === "match");
    expect(match).toMatchObject({ doc: "report", page: 2 });
  });

  it("a plain text document is cited by lines only, even one named .pdf that looks like extracted pages", async () => {
    expect(FORMATS.find((f) => f.kind === "text")?.places).toEqual({ unit: "line" });
    await repl.resetNamespace();
    await repl.loadDocuments([{ name: "notes.pdf", data: new Blob([`--- page 1 ---\n\nCover\n\n${NEEDLE}`]), kind: "text" }]);
    const cell = await repl.runCell(`import re\nm = re.search(${JSON.stringify(NEEDLE)}, context)`);
    const [match] = (cell.sources ?? []).filter((s) => s.kind === "match");
    expect(match).toMatchObject({ doc: "notes.pdf", line: 5 });
    expect(match).not.toHaveProperty("page");
    expect(match).not.toHaveProperty("paragraph");
  });
});
