// The page's test seams (issue 37 #5): the engines read no globals; the page reads the two test
// globals in one place (src/app/test-seams.ts) and hands them to the engines' hosts as options.
import { describe, expect, it } from "vitest";
import { pageTestSeams } from "../../src/app/test-seams.ts";
import { CPU_CATALOG, catalogUrl } from "../../src/engines/wllama/catalog.ts";

const model = CPU_CATALOG[0]!;

describe("the catalog's download address", () => {
  it("is Hugging Face unless a test base is passed in, whatever the page's globals say", () => {
    const global = globalThis as { __rlmTestCatalogBase?: unknown };
    global.__rlmTestCatalogBase = "http://127.0.0.1:9/models/";
    try {
      expect(catalogUrl(model)).toBe(`https://huggingface.co/${model.repo}/resolve/main/${model.fileName}`);
    } finally {
      delete global.__rlmTestCatalogBase;
    }
    expect(catalogUrl(model, "http://127.0.0.1:9/models/")).toBe(`http://127.0.0.1:9/models/${model.fileName}`);
  });
});

describe("the page's test seams", () => {
  it("read the test globals when asked, so a hook defined after the page loaded still applies", () => {
    const scope: { __rlmTestGrammar?: unknown; __rlmTestCatalogBase?: unknown } = {};
    const seams = pageTestSeams(scope);
    expect(seams.testGrammar?.([{ role: "user", content: "hi" }])).toBeUndefined();
    expect(seams.catalogBase?.()).toBeUndefined();
    scope.__rlmTestGrammar = (messages: Array<{ content: string }>) => `root ::= "${messages[0]!.content}"`;
    scope.__rlmTestCatalogBase = "http://127.0.0.1:9/models/";
    expect(seams.testGrammar?.([{ role: "user", content: "hi" }])).toBe('root ::= "hi"');
    expect(seams.catalogBase?.()).toBe("http://127.0.0.1:9/models/");
  });

  it("ignore globals of the wrong kind", () => {
    const seams = pageTestSeams({ __rlmTestGrammar: "not a function", __rlmTestCatalogBase: 42 });
    expect(seams.testGrammar?.([])).toBeUndefined();
    expect(seams.catalogBase?.()).toBeUndefined();
  });
});
