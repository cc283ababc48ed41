// The GGUF checks that run before llama.cpp is asked to load anything: what the header says,
// a file that is not GGUF, a download cut off, split parts, and the 4 GiB memory sum.
import { openAsBlob } from "node:fs";
import { describe, expect, it } from "vitest";
import { readGgufHeader } from "../../src/engines/gguf/index.ts";
import { ModelFileError, inspectModel, orderParts } from "../../src/engines/wllama/model-file.ts";
import { kvBytesPerToken, largestFittingWindow, planMemory } from "../../src/engines/wllama/memory.ts";
import { tinyQwenGguf } from "../fixtures/gguf/index.ts";

const blobOf = async (path: string) => openAsBlob(path);

describe("GGUF header", () => {
  it("reads a Qwen3 fixture's architecture, KV shape, template and whole size", async () => {
    const blob = await blobOf(await tinyQwenGguf());
    const header = await readGgufHeader(blob);
    expect(header.dataOffset + header.dataBytes!).toBe(blob.size);
    const info = await inspectModel([{ name: "tiny.gguf", blob }]);
    expect(info).toMatchObject({ architecture: "qwen3", layers: 2, kvHeads: 1, keyLength: 16, valueLength: 16, parts: 1 });
    expect(info.hasChatTemplate).toBe(true);
    expect(info.thinkingSwitch).toBe(true);
    expect(info.totalBytes).toBe(blob.size);
  });

  it("refuses a file that is not GGUF, naming it", async () => {
    const blob = new Blob(["This is a plain text file, not a model. ".repeat(20)]);
    await expect(inspectModel([{ name: "notes.gguf", blob }])).rejects.toThrow(/notes\.gguf is not a GGUF model file/);
    await expect(inspectModel([{ name: "notes.txt", blob }])).rejects.toThrow(/not a \.gguf file/);
  });

  it("says a download cut halfway is incomplete, with how much is there", async () => {
    const blob = await blobOf(await tinyQwenGguf({ arch: "qwen2" }));
    const cut = blob.slice(0, Math.floor(blob.size * 0.9));
    await expect(inspectModel([{ name: "cut.gguf", blob: cut }])).rejects.toThrow(
      /cut\.gguf is incomplete: .* \(\d\d %\)\. The download was probably cut off/,
    );
    const cutInHeader = blob.slice(0, 1_000_000);
    await expect(inspectModel([{ name: "cut.gguf", blob: cutInHeader }])).rejects.toThrow(
      /cut\.gguf is incomplete: it ends inside its own header/,
    );
  });

  it("orders split parts and names a missing one", () => {
    const part = (i: number) => ({ name: `m-0000${i}-of-00003.gguf`, blob: new Blob(["x"]) });
    expect(orderParts([part(3), part(1), part(2)]).map((p) => p.name)).toEqual([part(1).name, part(2).name, part(3).name]);
    expect(() => orderParts([part(1), part(3)])).toThrow(ModelFileError);
    expect(() => orderParts([part(1), part(3)])).toThrow(/m-00002-of-00003\.gguf is missing/);
  });
});

describe("memory in the page (4 GiB heap)", () => {
  const qwen25_05b = { layers: 24, kvHeads: 2, keyLength: 64, valueLength: 64 };
  const qwen3_17b = { layers: 28, kvHeads: 8, keyLength: 128, valueLength: 128 };

  it("gives Qwen2.5's KV cache per token as a fraction of Qwen3's", () => {
    expect(kvBytesPerToken(qwen25_05b)).toBe(12 * 1024);
    expect(kvBytesPerToken(qwen3_17b)).toBe(112 * 1024);
  });

  it("refuses Qwen3-1.7B Q4_K_M at a 32K window and shows the sum", () => {
    const plan = planMemory({ ...qwen3_17b, totalBytes: 1_107 * 1024 ** 2 }, 32768);
    expect(plan.fits).toBe(false);
    expect(plan.arithmetic).toMatch(
      /^weights 1,107 MiB \+ KV cache 65,536 tokens \(2 × 32,768\) × 112 KiB = 7,168 MiB \+ working memory 512 MiB = 8,787 MiB > the 4,096 MiB/,
    );
    expect(largestFittingWindow({ ...qwen3_17b, totalBytes: 1_107 * 1024 ** 2, trainedContext: 40960 })).toBe(11264);
  });

  it("lets Qwen2.5-0.5B Q8_0 use its whole trained window", () => {
    expect(planMemory({ ...qwen25_05b, totalBytes: 676 * 1024 ** 2 }, 32768).fits).toBe(true);
  });
});
