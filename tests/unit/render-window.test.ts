// The pure parts of the windowed view of a long text (src/ui/render/window.ts): the text a
// resting chunk shows, and how chunks are grouped into the slots the page watches. The view
// itself is tested in a real browser (tests/e2e/render-fuzz.test.ts).
import { describe, expect, it } from "vitest";
import type { RenderChunk } from "../../src/ui/render/markdown-html.ts";
import { groupChunks, htmlToText } from "../../src/ui/render/window.ts";

describe("htmlToText", () => {
  it("keeps the text a formatted chunk shows and drops its tags", () => {
    expect(
      htmlToText('<h2>Part</h2>\n<p>Some <em>text</em> with <code>code</code> and <a href="https://example.org">a link</a>.</p>\n'),
    ).toBe("Part\nSome text with code and a link.\n");
  });

  it("reads a table row as one line with its cells apart, and keeps blank lines single", () => {
    const table =
      '<table class="split">\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>x <em>y</em></td>\n<td class="align-right"><a href="https://example.org">z</a></td>\n</tr>\n</tbody>\n</table>\n';
    expect(htmlToText(table)).toBe("\n\na\tb\n\nx y\tz\n\n");
    expect(htmlToText("<p>one</p>\n\n\n\n<p>two</p>")).toBe("one\n\ntwo");
  });

  it("decodes the entities the renderer writes, and numeric ones, once", () => {
    expect(htmlToText("&lt;script&gt; &amp;lt; &quot;q&quot; &#39;s&#39; &#x1F600; &#65;")).toBe("<script> &lt; \"q\" 's' 😀 A");
  });

  it("leaves unknown or impossible entities as they are", () => {
    expect(htmlToText("&bogus; &#0; &#x110000;")).toBe("&bogus; &#0; &#x110000;");
  });
});

const html = (tags: number, sourceChars = 100): RenderChunk => ({ kind: "html", html: "<p>x</p>", sourceChars, tags });

describe("groupChunks", () => {
  it("puts consecutive chunks into slots of bounded weight, covering every chunk once", () => {
    const chunks = Array.from({ length: 100 }, () => html(160));
    const groups = groupChunks(chunks);
    expect(groups[0]![0]).toBe(0);
    expect(groups.at(-1)![1]).toBe(100);
    for (let g = 1; g < groups.length; g++) expect(groups[g]![0]).toBe(groups[g - 1]![1]);
    // 160 tags is about 80 elements; a slot holds about 1,500.
    expect(groups.length).toBeGreaterThan(4);
    expect(groups.length).toBeLessThan(10);
  });

  it("bounds a slot by its text too, and gives an oversized chunk a slot of its own", () => {
    const chunks = [html(2, 40_000), html(2, 40_000), { kind: "plain", text: "p".repeat(100_000) } as RenderChunk, html(2)];
    expect(groupChunks(chunks)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ]);
  });

  it("has no slot for no chunks", () => {
    expect(groupChunks([])).toEqual([]);
  });
});
