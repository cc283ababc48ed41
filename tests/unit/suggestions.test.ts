import { describe, expect, it } from "vitest";
import { headingsOf, MAX_SUGGESTIONS, suggestQuestions } from "../../src/app/suggestions.ts";
import type { DocumentMeta } from "../../src/store/index.ts";

const doc = (name: string, preview: string, chars = 5000): DocumentMeta => ({
  path: name,
  name,
  kind: "text",
  sourceBytes: chars,
  chars,
  tokensEstimate: chars / 4,
  preview,
});

describe("suggested questions", () => {
  it("are empty without a document", () => {
    expect(suggestQuestions([])).toEqual([]);
  });

  it("name the document and a section found in its first lines", () => {
    const qs = suggestQuestions([doc("guide.md", "# The Lighthouse Keeper's Log\n\nIntro text.\n\n## Storms of 1887\nMore.")]);
    expect(qs[0]).toBe("Summarise guide.md in five bullet points.");
    expect(qs).toContain('What does the section "Storms of 1887" say?');
    expect(qs.length).toBeLessThanOrEqual(MAX_SUGGESTIONS);
  });

  it("fit the kind of document: code, tables and logs get their own questions", () => {
    expect(suggestQuestions([doc("main.py", "import os\n")]).join(" ")).toMatch(/What does main\.py do/);
    expect(suggestQuestions([doc("data.csv", "a,b\n1,2")]).join(" ")).toMatch(/columns/);
    expect(suggestQuestions([doc("server.log", "INFO start")]).join(" ")).toMatch(/errors or warnings/);
  });

  it("compare several documents and ask about dates in long ones", () => {
    const qs = suggestQuestions([doc("a.txt", "x", 150_000), doc("b.txt", "y", 150_000)]);
    expect(qs[0]).toMatch(/these 2 documents/);
    expect(qs).toContain("List every date mentioned, with what happened on it.");
  });

  it("find Markdown, numbered and capitalised headings", () => {
    expect(headingsOf("# Title\n1. Getting Started\nplain line\nCHAPTER NOTES\n## **Bold**:")).toEqual([
      "Title",
      "Getting Started",
      "CHAPTER NOTES",
      "Bold",
    ]);
  });
});

describe("names in suggestions", () => {
  it("show a right-to-left override instead of obeying it", () => {
    const qs = suggestQuestions([doc("\u202Egnp.exe.txt", "plain")]);
    expect(qs[0]).toBe("Summarise ⟨U+202E⟩gnp.exe.txt in five bullet points.");
  });
});
