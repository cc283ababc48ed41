// How long the renderer takes on pathological markdown, against marked (the renderer before it)
// on the same inputs, in Node. Each marked run is a child process with a time limit: some of its
// runs take minutes. Writes bench/out/render.md with --write.
//
// node --import tsx bench/render.ts [--write]
import { spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { MarkdownRenderer } from "../src/ui/render/markdown-html.ts";
import { Report, load, today } from "./lib/report.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({});

const MARKED_LIMIT_MS = 10_000;
const CASES: Record<string, (n: number) => string> = {
  '"_a" repeated (emphasis)': (n) => "_a".repeat(n / 2),
  '"*a" repeated (emphasis)': (n) => "*a".repeat(n / 2),
  '"[a](" repeated (links)': (n) => "[a](".repeat(n / 4),
  '"[" repeated': (n) => "[".repeat(n),
  "5,000 nested quotes": () => `${"> ".repeat(5000)}x`,
  "table rows": (n) => `|a|b|\n|-|-|\n${"|x|y|\n".repeat(n / 6)}`,
  "ordinary markdown": (n) =>
    "# T\n\nSome *text* with `code` and [a link](http://x).\n\n- a\n- b\n\n```python\nprint(1)\n```\n\n".repeat(n / 80),
};

function markedMs(name: string, size: number): string {
  const script = `
    import { Marked } from "marked";
    const cases = { ${Object.entries(CASES)
      .map(([k, f]) => `${JSON.stringify(k)}: ${f.toString()}`)
      .join(",")} };
    const m = new Marked({ gfm: true });
    m.parse("warm *up*", { async: false });
    const text = cases[${JSON.stringify(name)}](${size});
    const t = performance.now();
    try { m.parse(text, { async: false }); console.log((performance.now() - t).toFixed(0)); }
    catch (e) { console.log("throws (" + String(e.message).slice(0, 40) + ")"); }`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    timeout: MARKED_LIMIT_MS,
    encoding: "utf8",
    cwd: new URL("..", import.meta.url).pathname,
  });
  if (run.error || run.signal) return `over ${MARKED_LIMIT_MS / 1000} s`;
  const out = run.stdout.replace(/\s+/g, " ").trim();
  return out.includes("throws") ? out : `${out} ms`;
}

function oursMs(name: string, size: number): number {
  const renderer = new MarkdownRenderer();
  const text = CASES[name]!(size);
  renderer.render(text.slice(0, 1000));
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    renderer.render(text);
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[1]!;
}

const report = new Report("render");
report.line(
  `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), Node ${process.version}. Date: ${today()}. Load average at start: ${load()}.`,
);
report.line();
report.table(["input", "marked, 100 KB", "this renderer, 100 KB (median of 3)", "this renderer, 1 MB (median of 3)"]);
for (const name of Object.keys(CASES)) {
  report.row([name, markedMs(name, 100_000), `${oursMs(name, 100_000).toFixed(0)} ms`, `${oursMs(name, 1_000_000).toFixed(0)} ms`]);
}
report.line();
report.line(`Load average at end: ${load()}.`);
if (args.write) console.error(`written to ${report.save()}`);
