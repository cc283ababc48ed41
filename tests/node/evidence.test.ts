// What the REPL records of the documents a cell read (workers/python/rlm_runtime/evidence/), with real
// Pyodide: printed slices, sub-call prompts, regex matches and cite(), for a str and a dict
// context, with line numbers, PDF pages and DOCX paragraphs, over multi-byte and repetitive text.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ReplClient } from "../../src/repl/client.ts";
import type { SourceRange, SubcallRequest } from "../../src/repl/protocol.ts";
import { startRepl, text } from "./helpers.ts";

let repl: ReplClient;
let requests: SubcallRequest[];

beforeAll(async () => {
  repl = await startRepl("auto");
});
afterAll(() => repl?.close());
beforeEach(async () => {
  requests = [];
  repl.setSubcallHandler(async (req) => {
    requests.push(req);
    return req.prompts.map((p) => (p.includes("ZEBRA-4471") ? "The code is ZEBRA-4471." : "nothing here"));
  });
  await repl.resetNamespace();
});

/** Line numbers as Python counts them: 1 + newlines before the offset (JS string = code units). */
function lineAt(doc: string, offset: number): number {
  return [...doc].slice(0, offset).filter((c) => c === "\n").length + 1;
}
/** Code-point offset of a substring (what Python reports). */
const cpIndex = (doc: string, needle: string) => [...doc.slice(0, doc.indexOf(needle))].length;
const only = (sources: SourceRange[] | undefined, kind: string) => (sources ?? []).filter((s) => s.kind === kind);

function report(lines: number, needleAt: number, needle: string): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++)
    out.push(i === needleAt ? needle : `Line ${i}: nothing to see in this part of the report, only filler text.`);
  return out.join("\n");
}

describe("a str context", () => {
  const needle = "The launch code is ZEBRA-4471, said the memo.";
  const doc = report(5000, 3210, needle);

  beforeEach(async () => {
    await repl.loadDocuments([{ name: "report.txt", data: text(doc) }]);
  });

  it("records a regex match with its offsets and line", async () => {
    const r = await repl.runCell("import re\nm = re.search(r'launch code is [A-Z]+-\\d+', context)\nprint(m.start())");
    const [match] = only(r.sources, "match");
    const start = doc.indexOf("launch code is");
    expect(match).toEqual({
      doc: "report.txt",
      start,
      end: start + "launch code is ZEBRA-4471".length,
      line: 3211,
      end_line: 3211,
      kind: "match",
    });
  });

  it("records a printed slice where it came from, and not printed text of its own", async () => {
    const r = await repl.runCell(
      "i = context.find('launch code')\nprint('Found it; here is the passage around it, for the record:')\nprint(context[i - 200:i + 150])",
    );
    const printed = only(r.sources, "print");
    const at = doc.indexOf("launch code");
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatchObject({ start: at - 200, end: at + 150, line: lineAt(doc, at - 200), end_line: lineAt(doc, at + 149) });
  });

  it("sends the ranges a prompt quotes with the sub-call, one list per prompt", async () => {
    const r = await repl.runCell(
      [
        "import re",
        "m = re.search('ZEBRA', context)",
        "reply = llm_query('Read this:\\n<<' + context[m.start() - 500:m.end() + 500] + '>>\\nWhat is the code?')",
        "chunks = [context[i:i + 20000] for i in range(0, 100000, 20000)]",
        "replies = llm_query_batched(['Summarise:\\n' + c for c in chunks])",
        "print(reply)",
      ].join("\n"),
    );
    expect(r.error).toBeNull();
    const at = doc.indexOf("ZEBRA");
    expect(requests[0]!.sources).toEqual([
      [expect.objectContaining({ doc: "report.txt", start: at - 500, end: at + 5 + 500, kind: "prompt" })],
    ]);
    // Chunks in order: each prompt's range is its own chunk (found next to where the last ended).
    expect(requests[1]!.sources!.map((list) => list.map((s) => [s.start, s.end]))).toEqual(
      [0, 1, 2, 3, 4].map((k) => [[k * 20000, (k + 1) * 20000]]),
    );
    // Printing the reply (not document text) records nothing.
    expect(only(r.sources, "print")).toEqual([]);
  });

  it("files every chunk of a long map under its prompt, whatever text comes before it", async () => {
    const r = await repl.runCell(
      "chunks = [context[i:i + 1000] for i in range(0, len(context), 1000)]\nreplies = llm_query_batched(['Read this part:\\n<<' + c + '>> Anything odd?' for c in chunks])\nprint(len(replies))",
    );
    expect(r.error).toBeNull();
    const lists = requests[0]!.sources!;
    expect(lists.length).toBeGreaterThan(300); // more than a cell's probe budget would allow one by one
    expect(lists.map((list) => list.map((x) => [x.start, x.end]))).toEqual(
      lists.map((_, k) => [[k * 1000, Math.min(doc.length, (k + 1) * 1000)]]),
    );
  });

  it("finds the answer in what the question read when a cell submits it", async () => {
    await repl.runCell("import re\nm = re.search('launch code', context)\nwindow = context[m.start() - 300:m.end() + 300]\nprint(window)");
    const r = await repl.runCell("FINAL('ZEBRA-4471')");
    const [hit] = only(r.sources, "answer");
    const at = doc.indexOf("ZEBRA-4471");
    expect(hit).toEqual({ doc: "report.txt", start: at, end: at + 10, line: 3211, end_line: 3211, kind: "answer", score: 1 });
  });

  it("does not claim a short answer (a count, yes) is shown wherever it occurs by chance", async () => {
    await repl.runCell("print(context[:2000])");
    for (const answer of ["12", "yes", "7"]) {
      const r = await repl.runCell(`FINAL(${JSON.stringify(answer)})`);
      expect(only(r.sources, "answer"), answer).toEqual([]);
    }
  });

  it("cite() marks a range the model names, and says what is wrong with a bad one", async () => {
    const at = doc.indexOf(needle);
    const r = await repl.runCell(`cite(${at}, ${at + needle.length})\ncite(10, 5)`);
    expect(only(r.sources, "cite")).toEqual([
      { doc: "report.txt", start: at, end: at + needle.length, line: 3211, end_line: 3211, kind: "cite" },
    ]);
    expect(r.stderr).toContain("cite: the range is empty");
    expect(r.error).toBeNull();
  });

  it("leaves the documents alone: context is the plain str, regex results are unchanged", async () => {
    const r = await repl.runCell(
      [
        "import re",
        "copy = context.encode().decode()",
        "assert type(context) is str and copy is not context",
        "pats = [r'Line (\\d+):', r'(Line) (\\d)(x)?', r'\\bnothing\\b', r'x*', r'(?m)^Line 4\\d{3}']",
        "for p in pats:",
        "    assert re.findall(p, context) == re.findall(p, copy), p",
        "    assert [m.span() for m in re.finditer(p, context)] == [m.span() for m in re.finditer(p, copy)], p",
        "    c = re.compile(p)",
        "    assert c.findall(context, 5, 90000) == c.findall(copy, 5, 90000), p",
        "    assert re.sub(c, '#', context[:500]) == re.sub(p, '#', copy[:500])",
        "print('same')",
      ].join("\n"),
    );
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("same");
    // Matches on the document were recorded (capped per call), those on the copy were not.
    const matches = only(r.sources, "match");
    expect(matches.length).toBeGreaterThan(0);
    expect(matches.every((m) => m.doc === "report.txt")).toBe(true);
  });
});

describe("a dict context", () => {
  const files: Record<string, string> = {
    "src/a.js": "function alpha() {\n  return 1;\n}\n",
    "src/b.js": "// helpers\n\nfunction bravoHelper(x) {\n  return x * 2;\n}\nmodule.exports = { bravoHelper };\n",
    "README.md": "# Demo\n\nThis repository has two files with one function each, used in tests of evidence.\n",
    "package.json": '{\n  "name": "demo",\n  "dependencies": {\n    "left-pad": "^1.3.0"\n  }\n}\n',
  };

  beforeEach(async () => {
    await repl.loadDocuments(
      Object.entries(files).map(([name, s]) => ({ name, data: text(s) })),
      "dict",
    );
  });

  it("records matches under the document searched, also through a compiled pattern", async () => {
    const r = await repl.runCell(
      [
        "import re",
        "pat = re.compile(r'function (\\w+)\\(')",
        "found = {p: pat.findall(t) for p, t in context.items()}",
        "hits = [p for p, t in context.items() if re.search(r'function bravoHelper\\(', t)]",
        "print(found, hits)",
      ].join("\n"),
    );
    expect(r.stdout).toContain("'src/b.js': ['bravoHelper']");
    const matches = only(r.sources, "match");
    const b = files["src/b.js"]!;
    expect(matches).toContainEqual({
      doc: "src/b.js",
      start: b.indexOf("function"),
      end: b.indexOf("(x)") + 1,
      line: 3,
      end_line: 3,
      kind: "match",
    });
    expect(matches).toContainEqual(expect.objectContaining({ doc: "src/a.js", start: 0, line: 1 }));
  });

  it("locates printed text in the right document, also from a printed repr", async () => {
    const r = await repl.runCell("print(context['README.md'])\nprint(repr(context['src/b.js']))");
    const printed = only(r.sources, "print");
    const readme = files["README.md"]!;
    expect(printed).toContainEqual(expect.objectContaining({ doc: "README.md", start: 0, end: readme.length, line: 1, end_line: 3 }));
    const b = files["src/b.js"]!;
    expect(printed).toContainEqual(expect.objectContaining({ doc: "src/b.js", start: b.indexOf("module.exports"), line: 6 }));
  });

  it("finds the answer in the documents the code named when nothing read shows it", async () => {
    // json.loads and `in` leave no trace; the code's strings and the answer still point there.
    await repl.runCell("import json\nv = json.loads(context['package.json'])['dependencies']['left-pad']\nprint(v)");
    const version = await repl.runCell("FINAL(v)");
    const pkg = files["package.json"]!;
    expect(only(version.sources, "answer")).toEqual([
      expect.objectContaining({ doc: "package.json", start: pkg.indexOf("^1.3.0"), line: 4 }),
    ]);
    await repl.runCell('hits = [p for p, t in context.items() if "function bravoHelper(" in t]');
    const file = await repl.runCell("FINAL(hits[0])");
    const b = files["src/b.js"]!;
    expect(only(file.sources, "answer")).toEqual([
      expect.objectContaining({ doc: "src/b.js", start: b.indexOf("function bravoHelper("), line: 3, score: 0.5 }),
    ]);
  });

  it("cite() needs the document when there are several", async () => {
    const r = await repl.runCell("cite(0, 5)\ncite(0, 8, doc='src/a.js')");
    expect(r.stderr).toContain("name one");
    expect(only(r.sources, "cite")).toEqual([{ doc: "src/a.js", start: 0, end: 8, line: 1, end_line: 1, kind: "cite" }]);
  });
});

describe("multi-byte text, pages and paragraphs", () => {
  it("counts offsets in characters (code points) and lines past checkpoints", async () => {
    // Astral characters (2 UTF-16 units, 1 Python character) before the needle, and enough text
    // that the line number comes from a checkpoint block far into the document.
    const lines = Array.from({ length: 40_000 }, (_, i) =>
      i % 7 === 0 ? `😀 Zeile ${i}: Grüße aus Köln 🚀` : `Zeile ${i}: nichts hier, nur Füllung.`,
    );
    lines[31_337] = "Der geheime Schlüssel ist ÆØÅ-9931 🔑 für die Tür.";
    const doc = lines.join("\n");
    await repl.loadDocuments([{ name: "brief.txt", data: text(doc) }]);
    const r = await repl.runCell("import re\nm = re.search('ÆØÅ-\\\\d+', context)\nprint(context[m.start() - 40:m.end() + 20])");
    const [match] = only(r.sources, "match");
    const start = cpIndex(doc, "ÆØÅ-9931");
    expect(match).toMatchObject({ start, end: start + 8, line: 31_338, end_line: 31_338 });
    const [printed] = only(r.sources, "print");
    expect(printed).toMatchObject({ start: start - 40, end: start + 8 + 20, line: 31_337 });
  });

  it("gives PDF pages from the ingest's page markers, and DOCX paragraphs", async () => {
    const pages = ["Cover page", "Budget overview\nThe total is 4,200 crowns.", "Appendix with the deadline of 12 May."];
    const pdf = pages.map((p, i) => `--- page ${i + 1} ---\n\n${p}`).join("\n\n");
    const docx = ["Title", "First paragraph.", "Second paragraph mentions the secret word OSPREY.", "Third."].join("\n\n");
    await repl.loadDocuments([
      { name: "report.pdf", data: text(pdf) },
      { name: "notes.docx", data: text(docx) },
    ]);
    const matchOf = async (code: string) => only((await repl.runCell(`import re\nm = ${code}`)).sources, "match");
    expect(await matchOf("re.search('4,200', context['report.pdf'])")).toEqual([
      expect.objectContaining({ doc: "report.pdf", page: 2, end_page: 2, line: 8 }),
    ]);
    expect(await matchOf("re.search(r'total[\\s\\S]*deadline', context['report.pdf'])")).toEqual([
      expect.objectContaining({ page: 2, end_page: 3, line: 8, end_line: 12 }),
    ]);
    expect(await matchOf("re.search('Cover', context['report.pdf'])")).toEqual([expect.objectContaining({ page: 1, line: 3 })]);
    expect(await matchOf("re.search('OSPREY', context['notes.docx'])")).toEqual([
      expect.objectContaining({ doc: "notes.docx", paragraph: 3, line: 5 }),
    ]);
  });
});

describe("slices of context", () => {
  it("are where printed text is looked for first, and taking them changes nothing", async () => {
    const doc = Array.from({ length: 50_000 }, (_, i) => `record ${i}: status nominal, nothing to report`).join("\n");
    await repl.loadDocuments([{ name: "log.txt", data: text(doc) }]);
    const r = await repl.runCell(
      [
        "i = context.find('record 41234:')",
        "piece = context[i - 100:i + 200]",
        "assert piece == context.encode().decode()[i - 100:i + 200] and context[::-1][:3] == context[-3:][::-1]",
        "print('the record:', piece)",
      ].join("\n"),
    );
    expect(r.stderr).toBe("");
    const at = doc.indexOf("record 41234:");
    expect(only(r.sources, "print")).toEqual([expect.objectContaining({ start: at - 100, end: at + 200 })]);
  });

  it("keep errors pointing at the cell's own line", async () => {
    await repl.loadDocuments([
      { name: "a.txt", data: text("alpha") },
      { name: "b.txt", data: text("beta") },
    ]);
    const r = await repl.runCell("x = 1\ny = context[0:2]");
    expect(r.error).toBe("KeyError"); // what Python says for a dict sliced like a str (slices hash since 3.12)
    expect(r.stderr).toContain("at line 2: y = context[0:2]");
  });
});

describe("repetitive text", () => {
  it("places each chunk of a map by the order the chunks were taken, where their text repeats", async () => {
    const filler = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again. ";
    const doc = filler.repeat(3000); // every chunk's text also occurs elsewhere
    await repl.loadDocuments([{ name: "noise.txt", data: text(doc) }]);
    await repl.runCell("chunks = [context[i:i + 5000] for i in range(0, len(context), 5000)]");
    const r = await repl.runCell("replies = llm_query_batched(['<<' + c + '>> Anything?' for c in chunks])");
    expect(r.error).toBeNull();
    const lists = requests.at(-1)!.sources!;
    expect(lists.map((list) => list.map((x) => [x.start, x.end]))).toEqual(
      lists.map((_, k) => [[k * 5000, Math.min(doc.length, (k + 1) * 5000)]]),
    );
  });

  it("places a printed window at the needle, not at the first place its filler occurs", async () => {
    const filler = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again. ";
    const body = filler.repeat(5000);
    const at = Math.floor(body.length / 2) - (Math.floor(body.length / 2) % filler.length);
    const doc = `${body.slice(0, at)}One of the special magic numbers for witty-harbor is: 7654321. ${body.slice(at)}`;
    await repl.loadDocuments([{ name: "haystack.txt", data: text(doc) }]);
    // No regex: the window is found by looking its text up.
    const r = await repl.runCell("i = context.find('magic numbers')\nprint(context[i - 250:i + 300])");
    const printed = only(r.sources, "print");
    const i = doc.indexOf("magic numbers");
    expect(printed).toEqual([expect.objectContaining({ start: i - 250, end: i + 300 })]);
  });
});

describe("quoting and switching off", () => {
  it("quotes a range with the rest of its line, and gives null for a range that is gone", async () => {
    const doc = "first line\nsecond line with the NEEDLE in it\nthird line";
    await repl.loadDocuments([{ name: "q.txt", data: text(doc) }]);
    const at = doc.indexOf("NEEDLE");
    const [quote, gone] = await repl.sourcePassages([
      { doc: "q.txt", start: at, end: at + 6 },
      { doc: "other.txt", start: 0, end: 3 },
    ]);
    expect(quote).toEqual({ before: "second line with the ", text: "NEEDLE", after: " in it" });
    expect(gone).toBeNull();
  });

  it("records nothing when the REPL was started with recording off", async () => {
    const quiet = await startRepl("sab", { recordSources: false });
    try {
      await quiet.loadDocuments([{ name: "q.txt", data: text("alpha beta gamma delta ".repeat(100)) }]);
      const r = await quiet.runCell("import re\nre.search('gamma', context)\nprint(context[:200])");
      expect(r.sources).toBeUndefined();
      expect(r.stdout.length).toBeGreaterThan(100);
    } finally {
      quiet.close();
    }
  });
});
