// The CPU catalog's download, against a server on 127.0.0.1 (never the internet): the first
// response is cut off partway, the page says so and keeps what arrived, and Resume finishes
// with an HTTP Range request for the rest only; the model is then kept, listed and chosen.
import { describe, expect, it } from "vitest";
import { newPage } from "./harness.ts";
import { useModelServer } from "./model-server.ts";
import { useAppAndBrowser } from "./stack.ts";

const SHOTS = new URL("../../test-results/screenshots/", import.meta.url).pathname;
const used = useAppAndBrowser(120_000);
const ranges: string[] = [];
let served = 0;
const models = useModelServer((model, req, res, headers) => {
  const range = req.headers.range;
  ranges.push(range ?? "");
  if (served++ === 0) {
    // The first download: 40 % of the file, then the connection drops.
    res.writeHead(200, { ...headers, "Content-Length": String(model.length), "Content-Type": "application/octet-stream" });
    res.write(model.subarray(0, Math.floor(model.length * 0.4)), () => setTimeout(() => res.destroy(), 200));
    return;
  }
  const from = range ? Number(/bytes=(\d+)-/.exec(range)![1]) : 0;
  res.writeHead(range ? 206 : 200, {
    ...headers,
    "Content-Length": String(model.length - from),
    ...(range ? { "Content-Range": `bytes ${from}-${model.length - 1}/${model.length}` } : {}),
  });
  res.end(model.subarray(from));
});

describe("the CPU catalog", () => {
  it("a cut-off download says so, keeps what arrived, and resumes with a Range request", async () => {
    const { context, page, errors } = await newPage(used.browser);
    await context.addInitScript(`globalThis.__rlmTestCatalogBase = ${JSON.stringify(models.base)};`);
    // Every "x MB of y MB" the download shows, as it appears (issue 34 #2: it was a bare bar).
    await context.addInitScript(`
      globalThis.__bytes = [];
      new MutationObserver(() => {
        for (const el of document.querySelectorAll("[data-testid=download-bytes]")) {
          const t = el.textContent.trim();
          if (!globalThis.__bytes.includes(t)) globalThis.__bytes.push(t);
        }
      }).observe(document, { subtree: true, childList: true, characterData: true });
    `);
    await page.goto(used.app.url);
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    await dialog.getByText("Download a model (Qwen, from Hugging Face)").click();
    const list = dialog.getByRole("list", { name: "Models to download" });
    const row = list.getByRole("listitem").filter({ hasText: "Qwen2.5 0.5B Instruct (Q4_K_M)" });
    const facts = ((await row.textContent()) ?? "").replace(/\s+/g, " ");
    expect(facts).toMatch(
      /≈ 400 MB download · KV cache 12 KiB per token · about [\d,]+ MiB of memory at 8,192 tokens · ≈ \d+ tokens\/s reading/,
    );
    await row.getByRole("button", { name: "Download" }).click();
    await row
      .getByRole("alert")
      .getByText(/cut off|ended before the whole model arrived/)
      .waitFor({ timeout: 60_000 });
    await dialog.screenshot({ path: `${SHOTS}wllama-catalog-cut.png` });
    await row.getByRole("button", { name: "Resume download" }).click();
    await row.getByText("Downloaded ✓").waitFor({ timeout: 60_000 });
    const shown = await page.evaluate(() => (globalThis as unknown as { __bytes: string[] }).__bytes);
    expect(shown.length, JSON.stringify(shown)).toBeGreaterThan(0);
    for (const t of shown) expect(t).toMatch(/^[\d.]+ (B|KB|MB)( of [\d.]+ MB)?$/);
    expect(
      shown.some((t) => / of [\d.]+ MB$/.test(t)),
      JSON.stringify(shown),
    ).toBe(true);
    expect(ranges[0]).toBe("");
    expect(ranges[1]).toMatch(/^bytes=\d{6,}-$/);
    // Kept and chosen: the model list shows it, selected.
    const kept = dialog.locator(".model", { hasText: "random-weight tiny" });
    expect(await kept.getByRole("radio").isChecked()).toBe(true);
    await dialog.screenshot({ path: `${SHOTS}wllama-catalog-done.png` });
    expect(errors.filter((e) => !/favicon|Failed to load resource|ERR_/.test(e))).toEqual([]);
    await context.close();
  }, 180_000);
});
