// Files and their names in the real app: every file read ends (its progress bar goes away with
// an "added" or a reason), a Word document with a DTD is refused in plain words, names with
// bidi or invisible characters are shown as they are, and an exported answer loads nothing.
//
// Run: npm run build && npx vitest run --project e2e tests/e2e/files-and-names.test.ts
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { buildDocx, zipOf } from "../fixtures/docs/index.ts";
import { hostileDocx } from "../fixtures/docs/hostile-docx.ts";
import { repl } from "../fixtures/scripted-server.ts";
import { documentInput, startStack, openSteps } from "./harness.ts";
import { useStack } from "./stack.ts";
import { QuestionScripts } from "./sandbox/drive.ts";
import { expectNothingFor, waitUntil } from "./waits.ts";

const scripts = new QuestionScripts();
const stack = useStack(() => startStack({ root: scripts.root, sub: "sub reply", contextWindow: 32768 }));

const progressBars = (page: Page) => page.locator(".docs .progress");

describe("every file read ends", () => {
  const cases: Array<{ name: string; bytes: Uint8Array; mimeType: string; problem: RegExp }> = [
    { name: "empty.txt", bytes: new Uint8Array(0), mimeType: "text/plain", problem: /empty/i },
    { name: "nested.zip", bytes: zipOf({ "inner.zip": zipOf({ "a.txt": "a" }) }), mimeType: "application/zip", problem: /nested|archive/i },
    {
      name: "corrupt.docx",
      bytes: buildDocx(["x"]).slice(0, 200),
      mimeType: "application/octet-stream",
      problem: /Word|docx|damaged|read/i,
    },
    {
      name: "xxe.docx",
      bytes: hostileDocx("xxe"),
      mimeType: "application/octet-stream",
      problem: /declares its own XML entities.*Nothing in it was opened or loaded/,
    },
    { name: "laughs.docx", bytes: hostileDocx("laughs"), mimeType: "application/octet-stream", problem: /declares its own XML entities/ },
  ];

  it("after an empty file, a nested zip, a corrupt DOCX or a DOCX with entities, the bar goes and the reason stays", async () => {
    const { context, page, errors } = await stack.openPage();
    for (const c of cases) {
      await documentInput(page).setInputFiles({ name: c.name, mimeType: c.mimeType, buffer: Buffer.from(c.bytes) });
      const problem = page.locator(".problems li", { hasText: c.name });
      await problem.waitFor({ timeout: 60_000 });
      expect(await problem.innerText()).toMatch(c.problem);
      expect(await problem.innerText()).not.toMatch(/xmldom|entity not found/i);
      // The bar goes, and late progress reports must not bring it back.
      await waitUntil(async () => (await progressBars(page).count()) === 0, { timeout: 30_000, what: `${c.name}: the progress bar to go` });
      await expectNothingFor(1500, async () => expect(await progressBars(page).count(), `${c.name}: the progress bar came back`).toBe(0));
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("names are shown as they are", () => {
  it("a right-to-left override or zero-width space in a file name is visible in the list, the session, the steps and the export", async () => {
    const rlo = "\u202Egnp.exe.txt";
    const zw = "in\u200Bvoice.txt";
    scripts.set("[names]", [
      repl('print("\\n".join(sorted(context)))', "Listing."),
      repl(
        'FINAL("Files checked.\\n\\n![chart](http://127.0.0.1:9/chart.png?d=x)\\n\\n<img src=\\"http://127.0.0.1:9/i.png\\">")',
        "Done.",
      ),
    ]);
    const { context, page, errors } = await stack.openPage();
    await documentInput(page).setInputFiles([
      { name: rlo, mimeType: "text/plain", buffer: Buffer.from("looks like a picture") },
      { name: zw, mimeType: "text/plain", buffer: Buffer.from("an invoice") },
    ]);
    const list = page.locator(".docs .list");
    await list.getByText("⟨U+202E⟩gnp.exe.txt").waitFor({ timeout: 60_000 });
    await list.getByText("in⟨U+200B⟩voice.txt").waitFor();
    await page.getByRole("button", { name: "Remove ⟨U+202E⟩gnp.exe.txt" }).waitFor();
    expect(await list.innerText()).not.toMatch(/[\u202E\u200B]/);
    // The session is titled after the first file: shown the same way.
    await page.locator(".sessions .title", { hasText: "⟨U+202E⟩" }).first().waitFor();
    expect(await page.locator(".sessions").innerText()).not.toContain("\u202E");
    // A file that could not be added is named the same way among the problems.
    await documentInput(page).setInputFiles({ name: "\u202Efdp.exe", mimeType: "text/plain", buffer: Buffer.alloc(0) });
    await page.locator(".problems li", { hasText: "⟨U+202E⟩fdp.exe" }).waitFor({ timeout: 60_000 });

    await page.getByRole("textbox", { name: "Question" }).fill("[names] which files?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    const answer = page.getByRole("region", { name: "Answer", exact: true }).last();
    await answer.getByText("Files checked.").waitFor({ timeout: 60_000 });
    await openSteps(page.getByRole("button", { name: /(Show|Hide) steps/ }).last());
    await page.getByRole("region", { name: "Trajectory" }).getByText("⟨U+202E⟩gnp.exe.txt", { exact: false }).waitFor();

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export answer (.md)" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^[\p{L}\p{N}-]+\.md$/u);
    const md = readFileSync((await download.path())!, "utf8");
    expect(md).toContain("⟨U+202E⟩gnp.exe.txt");
    expect(md).not.toMatch(/[\u202E\u200B]/);
    // Nothing in the file would load in another viewer: no image syntax with a remote URL, no tags.
    expect(md).not.toMatch(/!\[[^\]]*\]\(\s*<?https?:/);
    expect(md).not.toMatch(/<img\b/i);
    expect(md).toContain("[image: chart] (`http://127.0.0.1:9/chart.png?d=x`)");
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("a repository's zip", () => {
  it("names the session and suggests questions from its README and entry point, not from its first file (issue 28)", async () => {
    // In archive order: a CI workflow and the licence come first, as in many real zips.
    const repo = zipOf({
      "tinyproj-main/.github/workflows/ci.yml": "name: CI\non: push\njobs: {}\n",
      "tinyproj-main/LICENSE": "MIT License\n\nCopyright (c) the authors\n",
      "tinyproj-main/src/tinyproj/__main__.py": "from .cli import run\n\nrun()\n",
      "tinyproj-main/src/tinyproj/cli.py": "def run():\n    print('tiny')\n",
      "tinyproj-main/README.md":
        "# Tinyproj [![CI](https://ci.example/badge.svg)](https://ci.example)\n\nA tiny project.\n\n## Installation\n\npip install tinyproj\n\n## Usage\n\npython -m tinyproj\n",
    });
    const { context, page, errors } = await stack.openPage();
    await documentInput(page).setInputFiles({ name: "tinyproj-main.zip", mimeType: "application/zip", buffer: Buffer.from(repo) });
    await page.locator(".docs .name", { hasText: "README.md" }).waitFor({ timeout: 60_000 });
    await page.locator(".sessions .title", { hasText: /^Tinyproj$/ }).waitFor({ timeout: 10_000 });
    const suggestions = page.getByRole("group", { name: "Suggested questions" }).getByRole("button");
    await suggestions.first().waitFor();
    const offered = await suggestions.allInnerTexts();
    expect(offered[0]).toBe("What does Tinyproj do, and how is it organised?");
    expect(offered).toContain("What happens when src/tinyproj/__main__.py runs?");
    expect(offered.join(" ")).not.toMatch(/ci\.yml|LICENSE|these \d+ documents/);
    await page.screenshot({ path: new URL("../../test-results/screenshots/repo-zip-named-1280.png", import.meta.url).pathname });
    expect(errors).toEqual([]);
    await context.close();
  });
});
