import { describe, expect, it } from "vitest";
import { headingsOf, MAX_SUGGESTIONS, suggestQuestions } from "../../src/app/suggestions.ts";
import { collectionOf, commonFolderOf, entryPointOf, leadDocument, titleFor } from "../../src/app/lead-document.ts";
import type { DocumentMeta } from "../../src/store/index.ts";

const doc = (path: string, preview: string, chars = 5000): DocumentMeta => ({
  path,
  name: path.slice(path.lastIndexOf("/") + 1),
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

describe("a repository's zip", () => {
  // In archive order, as the zip lists them: the first file says nothing about the project.
  const repo = [
    doc("tinyproj-main.zip/.github/workflows/ci.yml", "name: CI\non: push"),
    doc("tinyproj-main.zip/LICENSE", "MIT License\n\nCopyright"),
    doc("tinyproj-main.zip/src/tinyproj/__main__.py", "from .cli import run\nrun()"),
    doc("tinyproj-main.zip/src/tinyproj/util.py", "def helper(): pass"),
    doc(
      "tinyproj-main.zip/README.md",
      "# Tinyproj [![CI](https://ci.example/badge.svg)](https://ci.example)\n\nA tiny project.\n\n## Installation\npip install\n\n## Usage\nrun it",
    ),
  ];

  it("is named after its README's title, else after the zip", () => {
    expect(collectionOf(repo)).toBe("tinyproj-main.zip");
    expect(titleFor(repo)).toBe("Tinyproj");
    expect(titleFor(repo.filter((d) => d.name !== "README.md"))).toBe("tinyproj-main");
    expect(titleFor([doc("notes.txt", "x")])).toBe("notes.txt");
  });

  it("names files from inside the folder they all share", () => {
    const nested = [doc("r.zip/r-main/README.md", "# R"), doc("r.zip/r-main/src/main.py", "x"), doc("r.zip/r-main/docs/a.md", "y")];
    expect(commonFolderOf(nested)).toBe("r.zip/r-main/");
    expect(commonFolderOf([doc("a/b.txt", ""), doc("c.txt", "")])).toBe("");
    expect(suggestQuestions(nested)).toContain("What happens when src/main.py runs?");
  });

  it("is read from its README, else its entry point", () => {
    expect(leadDocument(repo)!.name).toBe("README.md");
    expect(entryPointOf(repo)!.path).toBe("tinyproj-main.zip/src/tinyproj/__main__.py");
    expect(leadDocument(repo.filter((d) => d.name !== "README.md"))!.name).toBe("__main__.py");
  });

  it("gets questions about the project, from the README and the entry point, not from ci.yml or LICENSE", () => {
    const qs = suggestQuestions(repo);
    expect(qs[0]).toBe("What does Tinyproj do, and how is it organised?");
    expect(qs).toContain("What happens when src/tinyproj/__main__.py runs?");
    expect(qs).toContain('What does README.md say under "Installation"?');
    expect(qs.join(" ")).not.toMatch(/ci\.yml|LICENSE|these 5 documents/);
  });
});
