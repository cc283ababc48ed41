// The cached plain-JavaScript bundles the `rlm` CLI and its REPL worker run from (saving tsx's
// compile on every start): rebuilt when a source changes, and each module keeps its own location.
import { mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { cachedBundle } from "../../src/node/esbuild-cache.mjs";

const dir = new URL(`../../test-results/bundle-probe-${process.pid}/`, import.meta.url);
mkdirSync(new URL("nested/", dir), { recursive: true });
const cache = new URL("../../.cache/bundles/", import.meta.url);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const f of readdirSync(cache)) if (f.startsWith(`probe-${process.pid}-`)) rmSync(new URL(f, cache));
});

const entry = new URL("entry.ts", dir);
const nested = new URL("nested/where.ts", dir);

async function load(name: string): Promise<{ value: number; entryUrl: string; nestedUrl: string }> {
  const bundle = await cachedBundle(entry, name);
  expect(bundle).not.toBeNull();
  // A query makes Node load the file again rather than its module cache.
  return (await import(`${bundle!.href}?${Date.now()}`)) as { value: number; entryUrl: string; nestedUrl: string };
}

describe("cached bundles", () => {
  it("are rebuilt when a source changes, and every module keeps its own import.meta.url", async () => {
    writeFileSync(nested, "export const nestedUrl: string = import.meta.url;\n");
    writeFileSync(
      entry,
      'export { nestedUrl } from "./nested/where.ts";\nexport const entryUrl: string = import.meta.url;\nexport const value: number = 1;\n',
    );
    const first = await load(`probe-${process.pid}`);
    expect(first.value).toBe(1);
    expect(first.entryUrl).toBe(entry.href);
    expect(first.nestedUrl).toBe(nested.href);

    writeFileSync(
      entry,
      'export { nestedUrl } from "./nested/where.ts";\nexport const entryUrl: string = import.meta.url;\nexport const value: number = 2;\n',
    );
    // Same size as before: the modification time must tell the change.
    const later = new Date(Date.now() + 5000);
    utimesSync(entry, later, later);
    expect((await load(`probe-${process.pid}`)).value).toBe(2);
  });

  it("gives null, never throws, when the entry cannot be bundled (the caller then uses tsx)", async () => {
    expect(await cachedBundle(new URL("missing.ts", dir), `missing-${process.pid}`)).toBeNull();
  });
});
