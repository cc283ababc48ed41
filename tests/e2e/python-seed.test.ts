// The browser tests' warm Python start (tests/e2e/python-seed.ts) keeps working: should the
// seeding break, every test would start Python cold again, minutes slower a run and nothing red.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { newPage } from "./harness.ts";
import { SEEDED_HEADER, snapshotsServed } from "./python-seed.ts";
import { useAppAndBrowser } from "./stack.ts";

const stack = useAppAndBrowser();

const pythonReady = (page: Page) =>
  page.getByRole("banner").locator(".chip", { hasText: "Python ready" }).waitFor({ state: "attached", timeout: 180_000 });

/** The seed's mark on the app's snapshot entry, or null when there is no entry. */
const seedMark = (page: Page) =>
  page.evaluate(async (header) => {
    const cache = await caches.open("rlm-python-snapshot");
    const [request] = await cache.keys();
    const response = request ? await cache.match(request) : undefined;
    return response ? (response.headers.get(header) ?? "unmarked") : null;
  }, SEEDED_HEADER);

describe("Python in a browser test's fresh context", () => {
  it("starts from the snapshot seeded before the app's first page, and the app keeps it", async () => {
    const before = snapshotsServed();
    const { context, page, errors } = await newPage(stack.browser);
    try {
      await page.goto(stack.app.url);
      await pythonReady(page);
      expect(snapshotsServed()).toBe(before + 1);
      // Still the seeded entry: a rejected one is dropped before Python boots from scratch.
      expect(await seedMark(page)).toBe("1");
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("starts as a first visit when a test asks for that", async () => {
    const before = snapshotsServed();
    const { context, page } = await newPage(stack.browser, {}, { python: "cold" });
    try {
      await page.goto(stack.app.url);
      await pythonReady(page);
      expect(snapshotsServed()).toBe(before);
      expect(await seedMark(page)).not.toBe("1");
    } finally {
      await context.close();
    }
  });
});
