// The one GGUF header reader (src/engines/gguf), shared by the page and `rlm --model-file`, on
// hostile headers of a hundred-odd bytes: each is refused at once with what is wrong. Before it
// checked counts and lengths against the file, these hung node-llama-cpp's reader or were
// refused with a wrong reason (issue 32 §2).
import { openAsBlob } from "node:fs";
import { describe, expect, it } from "vitest";
import { GgufFormatError, kvString, readGgufHeader, renderChatTemplateOnce, shownName } from "../../src/engines/gguf/index.ts";
import { tinyQwenGguf } from "../fixtures/gguf/index.ts";
import { HOSTILE_GGUF } from "../fixtures/gguf/hostile.ts";

describe("GGUF header reader", () => {
  for (const [name, { bytes, reason }] of Object.entries(HOSTILE_GGUF)) {
    it(`refuses ${name} with the reason`, async () => {
      const read = readGgufHeader(new Blob([bytes]));
      await expect(read).rejects.toThrow(GgufFormatError);
      await expect(read).rejects.toThrow(reason);
    });
  }

  it("still reads a real model's header whole", async () => {
    const blob = await openAsBlob(await tinyQwenGguf());
    const header = await readGgufHeader(blob);
    expect(header.dataOffset + header.dataBytes!).toBe(blob.size);
    expect(header.kv.get("general.architecture")).toBe("qwen3");
  });

  it("shows names from the file without their control characters, on one line", () => {
    expect(shownName("evil\n\u001b]52;c;aGk=\u0007")).toBe("evil\\u000a\\u001b]52;c;aGk=\\u0007");
    expect(shownName("x".repeat(200))).toHaveLength(81);
  });
});

describe("a chat template rendered once before a model is kept", () => {
  it("renders Qwen3's real template", async () => {
    const template = kvString(await readGgufHeader(await openAsBlob(await tinyQwenGguf())), "tokenizer.chat_template")!;
    expect(renderChatTemplateOnce(template)).toMatch(/<\|im_start\|>user\nLine two says 42\.<\|im_end\|>\n<\|im_start\|>assistant\n/);
  });

  it("refuses range(2000000000) at once, before it fills memory, and a template that calls itself", () => {
    expect(() => renderChatTemplateOnce("{% for i in range(2000000000) %}{{ i }}{% endfor %}")).toThrow(/range\(\) of 2,000,000,000 items/);
    expect(() => renderChatTemplateOnce("{% macro f(x) %}{{ f(x) }}{% endmacro %}{{ f(messages) }}")).toThrow(/not a function/);
  });
});
