// Whole inputs through ingestFiles with the real parsers (pdfjs legacy build, mammoth): what
// becomes a document, what becomes a problem, and that one bad file never stops the others.
import { describe, expect, it } from "vitest";
import { decodeBytes } from "../../src/ingest/decode.ts";
import { ingestFiles } from "../../src/ingest/ingest.ts";
import { ingestInNode, nodeExtractors } from "../../src/ingest/node.ts";
import { pdfError } from "../../src/ingest/formats/pdf.ts";
import type { IngestProgress, IngestResult, PdfDocument } from "../../src/ingest/types.ts";
import { MiB } from "../../src/ingest/types.ts";
import {
  binaryBytes,
  buildDocx,
  buildPdf,
  corruptPdf,
  docxWithoutBody,
  fileOf,
  pngBytes,
  textFixtures,
  zipBomb,
  zipOf,
} from "../fixtures/docs/index.ts";

const blobText = async (blob: Blob) => decodeBytes(new Uint8Array(await blob.arrayBuffer())).text;
const only = (result: IngestResult) => {
  expect(result.documents).toHaveLength(1);
  return result.documents[0]!;
};
const problemOf = (result: IngestResult) => {
  expect(result.documents).toHaveLength(0);
  expect(result.problems).toHaveLength(1);
  return result.problems[0]!;
};

describe("plain text", () => {
  it("keeps the original File as data and measures chars the Python way", async () => {
    const fixtures = textFixtures();
    const files = fixtures.map((f) => fileOf(f.bytes, f.name));
    const result = await ingestInNode(files.map((file) => ({ file })));
    expect(result.problems).toEqual([]);
    expect(result.documents.map((d) => [d.path, d.kind, d.encoding, d.chars])).toEqual(
      fixtures.map((f) => [f.name, "text", f.encoding, f.chars]),
    );
    result.documents.forEach((d, i) => {
      expect(d.data).toBe(files[i]); // not re-encoded: the REPL decodes these very bytes
      expect(d.sourceBytes).toBe(fixtures[i]!.bytes.length);
      expect(d.tokensEstimate).toBe(Math.ceil(fixtures[i]!.chars / 3.5));
      expect(fixtures[i]!.text.startsWith(d.preview)).toBe(true);
    });
    expect(result.totalChars).toBe(fixtures.reduce((n, f) => n + f.chars, 0));
  });

  it("uses folder paths and keeps them unique", async () => {
    const result = await ingestInNode([
      { file: fileOf("a", "a.ts"), path: "repo/src/a.ts" },
      { file: fileOf("b", "a.ts"), path: "repo/src/a.ts" },
      { file: fileOf("c", "notes.md") },
    ]);
    expect(result.documents.map((d) => [d.path, d.name])).toEqual([
      ["repo/src/a.ts", "a.ts"],
      ["repo/src/a (2).ts", "a (2).ts"],
      ["notes.md", "notes.md"],
    ]);
  });

  it("reports empty, binary and BOM-only files without stopping the others", async () => {
    const result = await ingestInNode([
      { file: fileOf(new Uint8Array(0), "empty.txt") },
      { file: fileOf(binaryBytes(), "blob.dat") },
      { file: fileOf(pngBytes(), "logo.png") },
      { file: fileOf(Uint8Array.from([0xef, 0xbb, 0xbf]), "bom-only.txt") },
      { file: fileOf("still read\n", "ok.txt") },
    ]);
    expect(result.documents.map((d) => d.path)).toEqual(["ok.txt"]);
    expect(result.problems.map((p) => [p.path, p.code])).toEqual([
      ["empty.txt", "empty"],
      ["blob.dat", "binary"],
      ["logo.png", "binary"],
      ["bom-only.txt", "empty"],
    ]);
    expect(result.problems[1]?.message).toMatch(/^Looks like a binary file \(it has NUL bytes/);
    expect(result.problems[2]?.message).toContain("PNG image");
  });

  it("refuses a file over the size limit before reading it", async () => {
    // A Blob that counts every way its bytes could be read.
    class CountingBlob extends Blob {
      reads = 0;
      override slice(...args: Parameters<Blob["slice"]>): Blob {
        this.reads++;
        return super.slice(...args);
      }
      override arrayBuffer(): Promise<ArrayBuffer> {
        this.reads++;
        return super.arrayBuffer();
      }
      override stream(): ReturnType<Blob["stream"]> {
        this.reads++;
        return super.stream();
      }
    }
    const spy = new CountingBlob([new Uint8Array(2 * MiB)]);
    const result = await ingestInNode([{ file: spy, path: "huge.log" }], { limits: { maxFileBytes: MiB } });
    const problem = problemOf(result);
    expect(problem.code).toBe("too-large");
    expect(problem.message).toMatch(/2 MB, over the 1 MB limit/);
    expect(spy.reads).toBe(0);
  });

  it("skips tool metadata such as .git/ and .DS_Store", async () => {
    const result = await ingestInNode([
      { file: fileOf("[core]\n", "config"), path: "repo/.git/config" },
      { file: fileOf("x", ".DS_Store"), path: "repo/.DS_Store" },
    ]);
    expect(result.problems.map((p) => p.code)).toEqual(["skipped-metadata", "skipped-metadata"]);
  });

  it("names other archive and legacy Office formats as unsupported", async () => {
    const result = await ingestInNode([
      { file: fileOf(Uint8Array.from([0x1f, 0x8b, 8, 0, 0, 0]), "logs.tar.gz") },
      { file: fileOf(Uint8Array.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0]), "old.doc") },
    ]);
    expect(result.problems.map((p) => p.code)).toEqual(["unsupported", "unsupported"]);
    expect(result.problems[0]?.message).toMatch(/gzip archive; only \.zip/);
    expect(result.problems[1]?.message).toMatch(/legacy Office/);
  });

  it("reports progress with phases and byte counts", async () => {
    const seen: IngestProgress[] = [];
    await ingestFiles(
      [{ file: fileOf("a".repeat(10_000), "a.txt") }, { file: fileOf(buildPdf([["hi"]]), "b.pdf") }],
      nodeExtractors(),
      {},
      (p) => seen.push(p),
    );
    expect(seen[0]).toMatchObject({ inputIndex: 0, inputCount: 2, path: "a.txt", phase: "reading", bytesDone: 0 });
    expect(seen.some((p) => p.inputIndex === 1 && p.phase === "extracting")).toBe(true);
    expect(seen.at(-1)).toMatchObject({ inputIndex: 1, bytesDone: seen.at(-1)?.bytesTotal });
  });
});

describe("PDF", () => {
  it("extracts each page's text after a page marker, as a UTF-8 Blob", async () => {
    const pdf = buildPdf([["Hello (world)", "second line"], ["Page two text"]]);
    const doc = only(await ingestInNode([{ file: fileOf(pdf, "report.pdf") }])) as PdfDocument;
    const text = "--- page 1 ---\n\nHello (world)\nsecond line\n\n--- page 2 ---\n\nPage two text";
    expect(doc).toMatchObject({ kind: "pdf", path: "report.pdf", pages: 2, pagesWithoutText: 0, encoding: "utf-8" });
    expect(await blobText(doc.data)).toBe(text);
    expect(doc.chars).toBe(text.length);
    expect(doc.preview).toBe(text);
    expect(doc.sourceBytes).toBe(pdf.length);
  });

  it("keeps pages without text as empty pages when others have text", async () => {
    const doc = only(await ingestInNode([{ file: fileOf(buildPdf([["one"], null, ["three"]]), "mixed.pdf") }])) as PdfDocument;
    expect(doc.pagesWithoutText).toBe(1);
    expect(await blobText(doc.data)).toBe("--- page 1 ---\n\none\n\n--- page 2 ---\n\n\n\n--- page 3 ---\n\nthree");
  });

  it("says a PDF without any text layer needs OCR", async () => {
    const problem = problemOf(await ingestInNode([{ file: fileOf(buildPdf([null, null]), "scan.pdf") }]));
    expect(problem.code).toBe("no-text-layer");
    expect(problem.message).toMatch(/^This PDF has no text layer \(scanned\?\); OCR is not supported/);
  });

  it("says a password-protected PDF is encrypted", async () => {
    const problem = problemOf(await ingestInNode([{ file: fileOf(buildPdf([["secret"]], { encrypted: true }), "locked.pdf") }]));
    expect(problem.code).toBe("encrypted");
    expect(problem.message).toMatch(/password-protected/);
  });

  it("maps pdfjs's PasswordException by name, whichever build threw it", () => {
    const err = Object.assign(new Error("No password given"), { name: "PasswordException" });
    expect(pdfError(err).name).toBe("EncryptedFileError");
  });

  it("says a corrupt PDF is damaged, and a .pdf that is not a PDF too", async () => {
    const result = await ingestInNode([
      { file: fileOf(corruptPdf(), "broken.pdf") },
      { file: fileOf(buildPdf([["x"]]).subarray(0, 120), "truncated.pdf") },
      { file: fileOf("just text", "fake.pdf") },
    ]);
    expect(result.problems.map((p) => [p.path, p.code])).toEqual([
      ["broken.pdf", "corrupt"],
      ["truncated.pdf", "corrupt"],
      ["fake.pdf", "corrupt"],
    ]);
    expect(result.problems[0]?.message).toMatch(/^This PDF is not readable \(Invalid PDF structure/);
  });

  it("refuses a PDF over the parse limit", async () => {
    const problem = problemOf(
      await ingestInNode([{ file: fileOf(buildPdf([["x"]]), "big.pdf") }], { limits: { maxParsedFileBytes: 100 } }),
    );
    expect(problem.code).toBe("too-large");
  });
});

describe("DOCX", () => {
  it("extracts paragraphs separated by blank lines", async () => {
    const doc = only(await ingestInNode([{ file: fileOf(buildDocx(["Title <&>", "Body — ünï 😀"]), "memo.docx") }]));
    const text = "Title <&>\n\nBody — ünï 😀";
    expect(doc).toMatchObject({ kind: "docx", path: "memo.docx", encoding: "utf-8", chars: Array.from(text).length });
    expect(await blobText(doc.data)).toBe(text);
  });

  it("detects a Word document by its contents even without the .docx name", async () => {
    const doc = only(await ingestInNode([{ file: fileOf(buildDocx(["hidden docx"]), "download") }]));
    expect(doc.kind).toBe("docx");
  });

  it("reports a broken DOCX", async () => {
    const result = await ingestInNode([
      { file: fileOf(docxWithoutBody(), "nobody.docx") },
      { file: fileOf(binaryBytes(), "garbage.docx") },
      { file: fileOf(buildDocx([""]), "blank.docx") },
    ]);
    expect(result.problems.map((p) => [p.path, p.code])).toEqual([
      ["nobody.docx", "corrupt"],
      ["garbage.docx", "corrupt"],
      ["blank.docx", "empty"],
    ]);
  });
});

describe("ZIP", () => {
  const repoZip = () =>
    zipOf({
      "repo/README.md": "# Repo\nhello\n",
      "repo/src/a.ts": "export const a = 1;\n",
      "repo/src/latin1.txt": Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      "repo/img/logo.png": pngBytes(),
      "repo/bin/data": binaryBytes(20_000),
      "repo/vendor/lib.zip": zipOf({ "inner.txt": "inner" }),
      "repo/vendor/hidden-zip": zipOf({ "inner.txt": "inner" }),
      "repo/docs/guide.pdf": buildPdf([["Guide page"]]),
      "repo/docs/spec.docx": buildDocx(["Spec text"]),
      "repo/empty.txt": new Uint8Array(0),
      "__MACOSX/repo/._README.md": "junk",
    });

  it("turns text entries into documents and reports every skipped entry with a reason", async () => {
    const result = await ingestInNode([{ file: fileOf(repoZip(), "repo.zip") }]);
    expect(result.documents.map((d) => [d.path, d.kind, d.encoding])).toEqual([
      ["repo.zip/repo/README.md", "zip-entry", "utf-8"],
      ["repo.zip/repo/src/a.ts", "zip-entry", "utf-8"],
      ["repo.zip/repo/src/latin1.txt", "zip-entry", "latin-1"],
      ["repo.zip/repo/docs/guide.pdf", "pdf", "utf-8"],
      ["repo.zip/repo/docs/spec.docx", "docx", "utf-8"],
    ]);
    expect(result.documents.every((d) => d.archive === "repo.zip")).toBe(true);
    expect(await blobText(result.documents[0]!.data)).toBe("# Repo\nhello\n");
    expect(result.documents[2]?.chars).toBe(5);
    expect(await blobText(result.documents[3]!.data)).toBe("--- page 1 ---\n\nGuide page");
    expect(result.problems.map((p) => [p.path, p.code])).toEqual([
      ["repo.zip/repo/img/logo.png", "binary"],
      ["repo.zip/repo/bin/data", "binary"],
      ["repo.zip/repo/vendor/lib.zip", "nested-archive"],
      ["repo.zip/repo/vendor/hidden-zip", "nested-archive"],
      ["repo.zip/repo/empty.txt", "empty"],
      ["repo.zip/__MACOSX/repo/._README.md", "skipped-metadata"],
    ]);
  });

  it("refuses a 1 GB zip bomb from its headers, in well under a second", async () => {
    const bomb = zipBomb(1024 * MiB, "bomb.txt");
    const started = performance.now();
    const result = await ingestInNode([{ file: fileOf(bomb, "innocent.zip") }]);
    expect(performance.now() - started).toBeLessThan(1000);
    const problem = problemOf(result);
    expect(problem).toMatchObject({ path: "innocent.zip/bomb.txt", code: "limit" });
  });

  it("refuses a 100 MB bomb (under the size limit) by its compression ratio", async () => {
    const result = await ingestInNode([{ file: fileOf(zipBomb(100 * MiB), "b.zip") }]);
    expect(problemOf(result).message).toMatch(/compresses \d+:1 .*possible zip bomb/);
  });

  it("stops at the archive's total-size limit with one problem for the rest", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 10; i++) files[`part${i}.txt`] = `${i}`.repeat(1000);
    const result = await ingestInNode([{ file: fileOf(zipOf(files), "parts.zip") }], { limits: { maxZipTotalBytes: 3500 } });
    expect(result.documents).toHaveLength(3);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ path: "parts.zip", code: "limit" });
    expect(result.problems[0]?.message).toMatch(/7 entries were not read/);
  });

  it("reads only the first maxZipEntries entries and says so", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 25; i++) files[`f${String(i).padStart(2, "0")}.txt`] = `file ${i}`;
    const result = await ingestInNode([{ file: fileOf(zipOf(files), "many.zip") }], { limits: { maxZipEntries: 20 } });
    expect(result.documents).toHaveLength(20);
    expect(result.problems).toEqual([
      expect.objectContaining({ path: "many.zip", code: "limit", message: expect.stringMatching(/25 entries; only the first 20/) }),
    ]);
  });

  it("reports a truncated archive as corrupt and an empty one as empty", async () => {
    const zip = repoZip();
    const result = await ingestInNode([
      { file: fileOf(zip.subarray(0, zip.length - 40), "cut.zip") },
      { file: fileOf(zipOf({}), "nothing.zip") },
    ]);
    expect(result.problems.map((p) => [p.path, p.code])).toEqual([
      ["cut.zip", "corrupt"],
      ["nothing.zip", "empty"],
    ]);
  });

  it("refuses a PDF inside a zip that is over the parse limit and keeps the other entries", async () => {
    const zip = zipOf({ "big.pdf": buildPdf([["x".repeat(60)]]), "note.txt": "kept" });
    const result = await ingestInNode([{ file: fileOf(zip, "docs.zip") }], { limits: { maxParsedFileBytes: 100 } });
    expect(result.documents.map((d) => d.path)).toEqual(["docs.zip/note.txt"]);
    expect(result.problems).toEqual([expect.objectContaining({ path: "docs.zip/big.pdf", code: "too-large" })]);
  });

  it("says Excel workbooks are not supported", async () => {
    const xlsx = zipOf({ "[Content_Types].xml": "<Types/>", "xl/workbook.xml": "<workbook/>" });
    const problem = problemOf(await ingestInNode([{ file: fileOf(xlsx, "sheet.xlsx") }]));
    expect(problem.code).toBe("unsupported");
    expect(problem.message).toMatch(/Excel workbook/);
  });
});
