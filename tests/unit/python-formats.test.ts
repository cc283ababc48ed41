// The document format registry (src/ingest/formats) is the one owner of the formats: Python's
// markers are generated from it and the generated file is in step with it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FORMATS, isDocumentKind, pythonFormatFacts } from "../../src/ingest/formats/index.ts";
import { PYTHON_FORMATS_FILE, renderPythonFormats } from "../../scripts/python-formats.ts";

describe("Python's document formats", () => {
  it("are what the registry says: workers/python/rlm_runtime/formats.py is generated from it and unedited", () => {
    // On failure: node --import tsx scripts/python-formats.ts --write
    expect(readFileSync(PYTHON_FORMATS_FILE, "utf8")).toBe(renderPythonFormats());
  });

  it("list every format with places, with its markers, and no format cited by lines only", () => {
    const python = renderPythonFormats();
    for (const format of FORMATS) {
      const listed = python.includes(`    "${format.kind}": {`);
      expect(listed, format.kind).toBe(format.places.unit !== "line");
    }
    expect(python).toContain('"pdf": {"unit": "page", "before": "--- page ", "after": " ---"}');
    expect(python).toContain('"docx": {"unit": "paragraph", "separator": "\\n\\n"}');
    expect(pythonFormatFacts().map((f) => f.kind)).toEqual(["pdf", "docx"]);
  });

  it("know a kind only when the registry has it", () => {
    for (const format of FORMATS) expect(isDocumentKind(format.kind)).toBe(true);
    expect(isDocumentKind("PDF")).toBe(false);
    expect(isDocumentKind("")).toBe(false);
  });
});
