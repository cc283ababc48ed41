// Nothing hangs and nothing is lost: runaway and crashing Python, bad files, a full disk.
// Real Chromium against the built app and the scripted model server.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { buildPdf, zipBomb, zipOf } from "../fixtures/docs/index.ts";
import { repl as code } from "../fixtures/scripted-server.ts";
import { documentInput, REACHED_LINE, newPage, startStack, subcallAnswered, openSteps } from "./harness.ts";
import { useStack } from "./stack.ts";

const stack = useStack(() => startStack());

const answer = (page: Page) => page.getByRole("region", { name: "Answer", exact: true }).last();

describe("runaway and crashing code", () => {
  it("native code that ignores Stop is killed, the REPL rebuilt, the model told, and the run goes on", async () => {
    stack.server.scripts.sub = "reached";
    stack.server.scripts.root = (req) => {
      if (req.turn === 0) return code(`kept = 1\n${REACHED_LINE}sum(range(10**12))`);
      // The model reads that its variables are gone, and carries on.
      expect(req.lastUser).toContain("All variables were lost");
      return code("FINAL('survived; kept exists: ' + str('kept' in dir()))");
    };
    const { context, page, errors } = await stack.openPage({}, { cellTimeout: "2" });
    await documentInput(page).setInputFiles({ name: "doc.txt", mimeType: "text/plain", buffer: Buffer.from("text") });
    await page.locator(".docs .name", { hasText: "doc.txt" }).waitFor();
    await page.getByRole("textbox", { name: "Question" }).fill("Spin");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    // The page answers input while Python spins (it is in the C loop once the sub-call before it is answered).
    await subcallAnswered(page);
    const started = Date.now();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
    expect(Date.now() - started).toBeLessThan(500);
    await answer(page).getByText("survived; kept exists: False").waitFor({ timeout: 60_000 });
    await openSteps(page.getByRole("button", { name: /(Show|Hide) steps/ }));
    await page
      .getByRole("region", { name: "Trajectory" })
      .getByText(/WorkerRestarted: the cell ran past its 2 s time limit/)
      .waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a cell that runs out of memory is reported and the REPL keeps working", async () => {
    stack.server.scripts.root = (req) =>
      req.turn === 0 ? code("before = 5\nbig = [0] * (10**9)") : code("FINAL('before=' + str(before))");
    const { context, page, errors } = await stack.openPage();
    await documentInput(page).setInputFiles({ name: "m.txt", mimeType: "text/plain", buffer: Buffer.from("m") });
    await page.locator(".docs .name", { hasText: "m.txt" }).waitFor();
    await page.getByRole("textbox", { name: "Question" }).fill("Allocate");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await answer(page).getByText("before=5").waitFor({ timeout: 60_000 });
    await openSteps(page.getByRole("button", { name: /(Show|Hide) steps/ }));
    await page
      .getByRole("region", { name: "Trajectory" })
      .getByText(/MemoryError/)
      .first()
      .waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("bad input", () => {
  it("each bad file gets a clear message and the session keeps what it had", async () => {
    const { context, page, errors } = await stack.openPage();
    await documentInput(page).setInputFiles({ name: "good.txt", mimeType: "text/plain", buffer: Buffer.from("keep me") });
    await page.locator(".docs .name", { hasText: "good.txt" }).waitFor();

    await documentInput(page).setInputFiles([
      { name: "empty.txt", mimeType: "text/plain", buffer: Buffer.alloc(0) },
      {
        name: "photo.bin",
        mimeType: "application/octet-stream",
        buffer: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256)),
      },
      { name: "scan.pdf", mimeType: "application/pdf", buffer: Buffer.from(buildPdf([null, null])) },
      { name: "locked.pdf", mimeType: "application/pdf", buffer: Buffer.from(buildPdf([["secret"]], { encrypted: true })) },
      { name: "bomb.zip", mimeType: "application/zip", buffer: Buffer.from(zipBomb(1024 * 1024 * 1024)) },
      {
        name: "nested.zip",
        mimeType: "application/zip",
        buffer: Buffer.from(zipOf({ "inner.zip": zipOf({ "a.txt": "a" }), "ok.txt": "fine" })),
      },
      {
        name: "sheet.xlsx",
        mimeType: "application/octet-stream",
        buffer: Buffer.from(zipOf({ "[Content_Types].xml": "<Types/>", "xl/workbook.xml": "<workbook/>" })),
      },
    ]);
    await page.getByText(/were not added/).waitFor({ timeout: 60_000 });
    const problems = (await page.locator(".problems").textContent()) ?? "";
    // One line per problem, naming the file.
    expect(problems).toMatch(/empty\.txt: .*empty/i);
    expect(problems).toMatch(/photo\.bin: .*binary/i);
    expect(problems).toMatch(/scan\.pdf: .*text layer/i);
    expect(problems).toMatch(/locked\.pdf: .*(password|encrypted)/i);
    expect(problems).toMatch(/bomb\.zip.*(bomb|limit|too large|compress)/i);
    expect(problems).toMatch(/inner\.zip: .*(archive|nested|zip)/i);
    expect(problems).toMatch(/sheet\.xlsx: /);
    await page.screenshot({ path: new URL("../../test-results/screenshots/bad-input.png", import.meta.url).pathname, fullPage: true });
    // The good documents are still there, and the zip's text entry was added.
    await page.locator(".docs .name", { hasText: "good.txt" }).waitFor();
    await page.locator(".docs .name", { hasText: "ok.txt" }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a file larger than the app accepts is refused with a size message, before it is read", async () => {
    const { context, page } = await stack.openPage();
    const dir = mkdtempSync(join(tmpdir(), "rlm-huge-"));
    const huge = join(dir, "huge.log");
    execFileSync("truncate", ["-s", "2G", huge]);
    try {
      await documentInput(page).setInputFiles(huge);
      const problem = page.locator(".problems li", { hasText: "huge.log" });
      await problem.waitFor({ timeout: 60_000 });
      expect(await problem.textContent()).toMatch(/2(\.0)? GB|GB/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await context.close();
  });
});

describe("durability", () => {
  it("a listed document whose bytes were never stored is taken off the list after a reload, and named", async () => {
    stack.server.scripts.root = code("FINAL(sorted(context) if isinstance(context, dict) else 'one: ' + context)");
    const { context, page, errors } = await stack.openPage();
    await documentInput(page).setInputFiles([
      { name: "kept.txt", mimeType: "text/plain", buffer: Buffer.from("still here") },
      { name: "lost.txt", mimeType: "text/plain", buffer: Buffer.from("never stored") },
    ]);
    await page.locator(".docs .name", { hasText: "lost.txt" }).waitFor();
    // What an older version could leave when the tab closed between its two writes: the session
    // lists lost.txt, but its bytes are not in IndexedDB.
    await page.evaluate(async () => {
      const db: IDBDatabase = await new Promise((resolve, reject) => {
        const open = indexedDB.open("browser-rlm");
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      const tx = db.transaction("documents", "readwrite");
      const store = tx.objectStore("documents");
      const keys: IDBValidKey[] = await new Promise(
        (resolve) => (store.getAllKeys().onsuccess = (e) => resolve((e.target as IDBRequest<IDBValidKey[]>).result)),
      );
      for (const key of keys) if ((key as string[])[1] === "lost.txt") store.delete(key);
      await new Promise((resolve) => (tx.oncomplete = resolve));
      db.close();
    });
    await page.reload();
    await page
      .getByRole("status")
      .filter({ hasText: /“lost\.txt” was not saved before the page closed.*Add it again/ })
      .waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator(".docs .name").allTextContents()).toEqual(["kept.txt"]);
    await page.locator(".meta", { hasText: /^1 doc ·/ }).waitFor(); // the session list counts it too
    await page.getByRole("textbox", { name: "Question" }).fill("What is loaded?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await answer(page).getByText("one: still here").waitFor({ timeout: 60_000 });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a full disk is reported, never silent", async () => {
    const { context, page } = await newPage(stack.browser);
    // Chromium here does not enforce a quota override on IndexedDB writes (checked with
    // Storage.overrideQuotaForOrigin), so the browser's own refusal is reproduced instead: a put
    // of a large Blob fails the way a full disk makes it fail.
    await page.addInitScript(() => {
      const put = IDBObjectStore.prototype.put;
      IDBObjectStore.prototype.put = function (value: unknown, key?: IDBValidKey) {
        const blob = (value as { blob?: unknown } | null)?.blob;
        if (blob instanceof Blob && blob.size > 1024 * 1024) throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
        return put.call(this, value, key);
      };
    });
    await stack.open(page);
    await documentInput(page).setInputFiles({ name: "big.txt", mimeType: "text/plain", buffer: Buffer.alloc(2 * 1024 * 1024, 97) });
    await page
      .getByRole("alert")
      .filter({ hasText: /storage for this page is full/ })
      .waitFor({ timeout: 60_000 });
    // The document is still usable in this tab.
    await page.locator(".docs .name", { hasText: "big.txt" }).waitFor();
    await context.close();
  });
});
