// The CLI counts a document's characters from its bytes, the way Python's decode_bytes will make
// them (strict UTF-8, a UTF-8 BOM dropped, else Latin-1), so the first model request can describe
// `context` while Python is still decoding it. A wrong count only costs that request again, but
// the usual cases must be exact, across the megabyte pieces the file is read in.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodedChars } from "../../src/cli/context-files.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rlm-chars-"));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function count(name: string, bytes: Uint8Array | string): Promise<number | undefined> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return decodedChars({ name, path });
}

describe("a document's characters, counted from its bytes", () => {
  it("ASCII and UTF-8, including a character split across the 1 MiB pieces", async () => {
    expect(await count("ascii.txt", "hello\n")).toBe(6);
    const split = "a".repeat((1 << 20) - 1) + "é€😀" + "tail";
    expect(Buffer.byteLength(split)).toBeGreaterThan(1 << 20);
    expect(await count("split.txt", split)).toBe([...split].length);
    expect(await count("empty.txt", "")).toBe(0);
  });

  it("a UTF-8 BOM is not a character; bytes that are not UTF-8 are Latin-1, one character each", async () => {
    expect(await count("bom.txt", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("héllo")]))).toBe(5);
    expect(await count("latin1.txt", Buffer.from([0x68, 0xe9, 0x6c, 0x6c, 0x6f, 0xff]))).toBe(6);
  });

  it("UTF-16 and UTF-32 (a byte-order mark) and an unreadable file are not predicted", async () => {
    expect(await count("utf16.txt", Buffer.from([0xff, 0xfe, 0x68, 0x00]))).toBeUndefined();
    expect(await count("utf16be.txt", Buffer.from([0xfe, 0xff, 0x00, 0x68]))).toBeUndefined();
    expect(await count("utf32be.txt", Buffer.from([0x00, 0x00, 0xfe, 0xff, 0, 0, 0, 0x68]))).toBeUndefined();
    expect(await decodedChars({ name: "gone", path: join(dir, "no-such-file") })).toBeUndefined();
  });

  it("stdin's bytes are counted the same way", async () => {
    expect(await decodedChars({ name: "stdin", data: new Blob(["naïve"]) })).toBe(5);
  });
});
