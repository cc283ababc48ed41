// The renderer is total and bounded: any text becomes chunks of safe HTML or plain text, never
// an exception, never lost text, and never a chunk too big to insert in one short task.
import { describe, expect, it } from "vitest";
import { MAX_NESTING, MarkdownRenderer, type RenderChunk } from "../../src/ui/render/markdown-html.ts";
import { splitPlain } from "../../src/ui/render/plain.ts";

const renderer = new MarkdownRenderer();
const html = (chunks: RenderChunk[]) => chunks.map((c) => (c.kind === "html" ? c.html : `<plain>${c.text}</plain>`)).join("");
const tags = (s: string) => (s.match(/</g) ?? []).length;

describe("markdown to chunks", () => {
  it("prototype-named fence languages are plain names", () => {
    for (const lang of ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf", "prototype", "__defineGetter__"]) {
      const out = html(renderer.render(`\`\`\`${lang}\ncode\n\`\`\``));
      expect(out).toContain(`<span class="code-lang">${lang}</span>`);
      expect(out).toContain('<code class="hljs">code\n</code>');
    }
  });

  it("highlights the languages it knows, under any alias", () => {
    expect(html(renderer.render("```repl\nx = 1\n```"))).toContain("hljs-");
    expect(html(renderer.render("```PY\nimport os\n```"))).toContain("hljs-keyword");
  });

  it("raw HTML is text: nothing can open an element that swallows the rest", () => {
    const out = html(renderer.render("<math><mtext><table><mglyph><style><!--\n\nrest of the answer <img src=x onerror=alert(1)>"));
    expect(out).not.toMatch(/<(math|table|style|img)\b/);
    expect(out).toContain("&lt;math&gt;");
    expect(out).toContain("rest of the answer");
  });

  it("links keep only http(s) and mailto; remote images become text; inline images stay", () => {
    const out = html(
      renderer.render(
        "[a](javascript:alert(1)) [b](/?baseUrl=x) [c](https://ok.example) ![chart](https://evil.example/c.png?d=S) ![d](data:image/png;base64,AAAA)",
      ),
    );
    expect(out).not.toContain('href="javascript');
    expect(out).not.toContain('href="/?');
    expect(out).toContain('<a href="https://ok.example" target="_blank" rel="noopener noreferrer" referrerpolicy="no-referrer">c</a>');
    expect(out).not.toMatch(/<img[^>]+https?:/);
    expect(out).toContain('<code class="url">https://evil.example/c.png?d=S</code>');
    expect(out).toContain('<img src="data:image/png;base64,AAAA" alt="d">');
  });

  it("table alignment is a class, never a style", () => {
    const out = html(renderer.render("| a | b |\n|:-:|--:|\n| 1 | 2 |"));
    expect(out).toContain('class="align-center"');
    expect(out).not.toContain("style=");
  });

  it("5,000 nested quotes: no stack overflow, and the deep text is still there (as plain text)", () => {
    const chunks = renderer.render(`${"> ".repeat(5000)}deep inside\n\nafter`);
    const out = html(chunks);
    expect(out).toContain("deep inside");
    expect(out).toContain("<p>after</p>");
    expect(chunks.some((c) => c.kind === "plain")).toBe(true);
  });

  it("nesting just under the limit still renders as markdown", () => {
    const out = html(renderer.render(`${"> ".repeat(MAX_NESTING - 5)}fine`));
    expect(out).toContain("<blockquote>");
    expect(out).toContain("fine");
  });

  it("quadratic inputs stay fast and keep every character", () => {
    for (const text of ["_a".repeat(50_000), "*a".repeat(50_000), "[a](".repeat(25_000), "[".repeat(100_000), "![".repeat(50_000)]) {
      const started = performance.now();
      const chunks = renderer.render(`${text}\n\nEND`);
      expect(performance.now() - started, text.slice(0, 4)).toBeLessThan(20_000); // marked took minutes
      const visible = chunks.map((c) => (c.kind === "html" ? c.html.replace(/<[^>]*>/g, "") : c.text)).join("");
      expect(visible).toContain("END");
    }
  }, 60_000);

  it("no chunk is too big to sanitize and insert in one short task", () => {
    const unit =
      "## Part\n\nSome *text* with `code`, **bold** and [a link](https://example.org).\n\n- one\n- two\n\n```python\nprint('hi')\n```\n\n";
    const inputs = [
      unit.repeat(3000),
      "| a | b |\n|---|---|\n" + "| x *y* | [z](https://example.org) |\n".repeat(5000),
      Array.from({ length: 5000 }, (_, i) => `${i + 1}. item *${i}*`).join("\n"),
      "```python\n" + "def f(x):\n    return x + 1  # c\n".repeat(2000) + "```",
      "x".repeat(300_000),
    ];
    for (const text of inputs) {
      const chunks = renderer.render(text);
      for (const c of chunks) {
        if (c.kind === "html") {
          expect(tags(c.html)).toBeLessThanOrEqual(700);
          expect(c.html.length).toBeLessThanOrEqual(64 * 1024);
          expect(c.tags).toBe(tags(c.html));
        } else expect(c.text.length).toBeLessThanOrEqual(8 * 1024);
      }
    }
  }, 60_000);

  it("a long ordered list split in pieces keeps its numbering", () => {
    const chunks = renderer.render(Array.from({ length: 3000 }, (_, i) => `${i + 1}. item ${i}`).join("\n"));
    const starts = chunks.map((c) => (c.kind === "html" ? (/<ol(?: start="(\d+)")?>/.exec(c.html)?.[1] ?? "1") : null));
    expect(starts.length).toBeGreaterThan(1);
    const counts = chunks.map((c) => (c.kind === "html" ? (c.html.match(/<li>/g) ?? []).length : 0));
    let expected = 1;
    starts.forEach((s, i) => {
      expect(Number(s)).toBe(expected);
      expected += counts[i]!;
    });
    expect(expected).toBe(3001);
  });

  it("a long table split in pieces repeats its header", () => {
    const chunks = renderer.render("| h1 | h2 |\n|---|---|\n" + "| a | b |\n".repeat(3000));
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.kind === "html" && c.html.startsWith('<table class="split">\n<thead>')).toBe(true);
  });

  it("empty and whitespace-only text", () => {
    expect(renderer.render("")).toEqual([]);
    expect(() => renderer.render("\u0000\r\n\t ")).not.toThrow();
  });
});

describe("plain pieces", () => {
  it("cut at line breaks or spaces, never inside a surrogate pair, and lose nothing", () => {
    const text = `${"word ".repeat(10_000)}\n${"😀".repeat(20_000)}`;
    const pieces = splitPlain(text, 1000);
    expect(pieces.join("")).toBe(text);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(1000);
      expect(/[\uD800-\uDBFF]$/.test(p)).toBe(false);
    }
  });
});
