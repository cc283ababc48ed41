// A Word document with a DTD (XXE, billion laughs) is refused unread, with a plain message.
import { describe, expect, it } from "vitest";
import { partWithDoctype } from "../../src/ingest/formats/docx.ts";
import { ingestInNode } from "../../src/ingest/node.ts";
import { buildDocx, fileOf } from "../fixtures/docs/index.ts";
import { hostileDocx } from "../fixtures/docs/hostile-docx.ts";

describe("Word documents with entity declarations", () => {
  for (const kind of ["xxe", "laughs"] as const) {
    it(`${kind}: refused before parsing, saying what happened, that nothing was read, and what to do`, async () => {
      const result = await ingestInNode([{ file: fileOf(hostileDocx(kind), `${kind}.docx`) }]);
      expect(result.documents).toEqual([]);
      expect(result.problems).toHaveLength(1);
      const { message, path } = result.problems[0]!;
      expect(path).toBe(`${kind}.docx`);
      expect(message).toMatch(/declares its own XML entities/);
      expect(message).toMatch(/Nothing in it was opened or loaded/);
      expect(message).toMatch(/save it again as \.docx/);
      expect(message).not.toMatch(/xmldom|entity not found/i);
    });
  }

  it("an ordinary document has no DOCTYPE and reads as before", async () => {
    expect(partWithDoctype(buildDocx(["hello"]))).toBeNull();
    const result = await ingestInNode([{ file: fileOf(buildDocx(["hello"]), "ok.docx") }]);
    expect(result.documents.map((d) => d.path)).toEqual(["ok.docx"]);
  });

  it("bytes that are not a zip are left to mammoth's own error", () => {
    expect(partWithDoctype(new Uint8Array([1, 2, 3]))).toBeNull();
  });
});
