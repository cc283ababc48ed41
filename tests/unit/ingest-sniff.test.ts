// Telling text from PDF, zip and binaries; and turning untrusted names into clean, unique paths.
import { describe, expect, it } from "vitest";
import { UniquePaths, baseName, extensionOf, inputPath, metadataReason, normalizePath } from "../../src/ingest/paths.ts";
import { isArchiveName, sniff } from "../../src/ingest/sniff.ts";
import { binaryBytes, buildDocx, buildPdf, pngBytes, textFixtures, zipOf } from "../fixtures/docs/index.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("sniff", () => {
  it("accepts every encoding fixture as text, UTF-16/32 included despite their NUL bytes", () => {
    for (const f of textFixtures()) expect(sniff(f.bytes, f.name), f.name).toEqual({ type: "text" });
  });

  it("recognises PDF (header anywhere in the first 1 KB) and zip (DOCX included)", () => {
    expect(sniff(buildPdf([["x"]]), "a.pdf")).toEqual({ type: "pdf" });
    expect(sniff(bytes(`junk before\n%PDF-1.4\n`), "a.bin")).toEqual({ type: "pdf" });
    expect(sniff(zipOf({ "a.txt": "x" }), "a.zip")).toEqual({ type: "zip" });
    expect(sniff(buildDocx(["x"]), "a.docx")).toEqual({ type: "zip" });
  });

  it("names binaries by signature, by NUL bytes, or by control characters", () => {
    expect(sniff(pngBytes(), "logo")).toMatchObject({ type: "binary", what: "PNG image" });
    expect(sniff(binaryBytes(), "blob.dat")).toMatchObject({ type: "binary", what: expect.stringContaining("NUL") });
    const controls = Uint8Array.from({ length: 1000 }, (_, i) => (i % 3 === 0 ? 0x01 : 0x41));
    expect(sniff(controls, "x")).toMatchObject({ type: "binary", what: expect.stringContaining("control") });
  });

  it("treats known binary extensions as binary, and other archives as unsupported", () => {
    expect(sniff(bytes("not really an image"), "photo.JPG")).toMatchObject({ type: "binary", what: "JPEG image, .jpg" });
    expect(sniff(Uint8Array.from([0x1f, 0x8b, 8, 0]), "x.tar.gz")).toMatchObject({ type: "binary", unsupported: true, archive: true });
    expect(isArchiveName("lib/vendor.jar")).toBe(true);
    expect(isArchiveName("src/zipper.ts")).toBe(false);
  });

  it("accepts text with ANSI colours, tabs and form feeds, and unknown extensions", () => {
    expect(sniff(bytes("\x1b[31mERROR\x1b[0m\tdone\f\n"), "run.log")).toEqual({ type: "text" });
    expect(sniff(bytes("key = value\n"), "settings.weird")).toEqual({ type: "text" });
  });
});

describe("paths", () => {
  it("normalizes separators, dot segments, drive letters and traversal", () => {
    expect(normalizePath("repo\\src\\a.ts")).toBe("repo/src/a.ts");
    expect(normalizePath("/abs/./x//y.txt")).toBe("abs/x/y.txt");
    expect(normalizePath("../../etc/passwd")).toBe("etc/passwd");
    expect(normalizePath("a/b/../../../c")).toBe("c");
    expect(normalizePath("C:\\Users\\me\\notes.txt")).toBe("Users/me/notes.txt");
    expect(normalizePath("")).toBe("document");
  });

  it("splits names and extensions", () => {
    expect(baseName("a/b/c.tar.gz")).toBe("c.tar.gz");
    expect(extensionOf("a/b/c.TAR.GZ")).toBe("gz");
    expect(extensionOf(".bashrc")).toBe("");
    expect(extensionOf("Makefile")).toBe("");
  });

  it("prefers an explicit path, then webkitRelativePath, then the name", () => {
    const file = new File(["x"], "a.ts");
    expect(inputPath({ file })).toBe("a.ts");
    expect(inputPath({ file, path: "repo/src/a.ts" })).toBe("repo/src/a.ts");
    Object.defineProperty(file, "webkitRelativePath", { value: "repo/lib/a.ts" });
    expect(inputPath({ file })).toBe("repo/lib/a.ts");
  });

  it("hands out unique paths", () => {
    const paths = new UniquePaths();
    expect(paths.claim("notes.txt")).toBe("notes.txt");
    expect(paths.claim("notes.txt")).toBe("notes (2).txt");
    expect(paths.claim("notes.txt")).toBe("notes (3).txt");
    expect(paths.claim("dir.v2/README")).toBe("dir.v2/README");
    expect(paths.claim("dir.v2/README")).toBe("dir.v2/README (2)");
  });

  it("recognises tool metadata", () => {
    expect(metadataReason("repo/.git/config")).toContain(".git/");
    expect(metadataReason("__MACOSX/repo/._a.ts")).toContain("__MACOSX/");
    expect(metadataReason("repo/.DS_Store")).toContain("metadata");
    expect(metadataReason("repo/.gitignore")).toBeNull();
    expect(metadataReason("repo/src/git/a.ts")).toBeNull();
  });
});
