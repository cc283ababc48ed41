// Hostile model files given to Settings' "Model file (GGUF)…" chooser (issue 32 §2): headers of a
// hundred-odd bytes claiming 2^40 tensors, 2^40 key-value pairs, an array of 2^40 items, a tensor
// of 2^31 dimensions, version 999, a file cut inside its header, and chat templates that loop or
// call themselves. The page reads each header
// with the reader `rlm --model-file` uses (src/engines/gguf) and refuses it with the reason;
// nothing is kept, and the page goes on working.
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tinyQwenGguf } from "../fixtures/gguf/index.ts";
import { HOSTILE_GGUF } from "../fixtures/gguf/hostile.ts";
import { blockOutside, newPage } from "./harness.ts";
import { useAppAndBrowser } from "./stack.ts";

// The app and Chromium come up beside the model files this file prepares.
const used = useAppAndBrowser(120_000);
const files: Array<{ name: string; path: string; reason: RegExp }> = [];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "rlm-hostile-gguf-"));
  for (const [name, { bytes, reason }] of Object.entries(HOSTILE_GGUF)) {
    const path = join(dir, `${name}.gguf`);
    writeFileSync(path, bytes);
    files.push({ name: `${name}.gguf`, path, reason });
  }
  // Valid models whose template loops over range(2000000000) or calls itself: kept before, they
  // hung llama.cpp's worker at the first question.
  const templates = {
    "looping-template": "{% for i in range(2000000000) %}{{ i }}{% endfor %}",
    "recursive-template": "{% macro f(x) %}{{ f(x) }}{% endmacro %}{{ f(messages) }}",
  };
  for (const [name, chatTemplate] of Object.entries(templates)) {
    const path = join(dir, `${name}.gguf`);
    copyFileSync(await tinyQwenGguf({ chatTemplate }), path);
    files.push({
      name: `${name}.gguf`,
      path,
      reason: /has a chat template \(tokenizer\.chat_template\) that cannot be used: rendering a short chat/,
    });
  }
}, 120_000);

describe("llama.cpp in the page: hostile model files", () => {
  it("refuses each with its reason, keeps nothing, and the page stays alive", async () => {
    const { context, page, errors } = await newPage(used.browser);
    const outside = await blockOutside(context);
    await page.goto(used.app.url);
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    const picker = dialog.getByLabel("Model file (GGUF)");
    await picker.waitFor();
    const alert = dialog.getByRole("alert");
    for (const file of files) {
      await picker.setInputFiles(file.path);
      // The file's name, then what is wrong with it, in one message.
      const message = alert.getByText(new RegExp(`${file.name.replace(/\./g, "\\.")} .*${file.reason.source}`));
      await message.waitFor({ timeout: 30_000 });
    }
    expect(
      await dialog
        .getByRole("radio")
        .filter({ hasText: /many-|long-array|version-999|cut-in-header|-template/ })
        .count(),
    ).toBe(0);
    // Alive: the dialog still answers, and the page's own controls still work.
    await dialog.getByRole("button", { name: "Save" }).click();
    await page.getByRole("textbox", { name: "Question" }).fill("Still here?");
    expect(await page.getByRole("textbox", { name: "Question" }).inputValue()).toBe("Still here?");
    expect(outside).toEqual([]);
    expect(errors.filter((e) => !/favicon/.test(e))).toEqual([]);
    await context.close();
  }, 180_000);
});
