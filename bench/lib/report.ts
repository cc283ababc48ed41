// Markdown output for the benchmarks: rows of median and p10–p90, echoed to the console and
// written to bench/out/<name>.md with --write.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fmt, summarize } from "../stats.ts";

export class Report {
  readonly lines: string[] = [];
  constructor(private readonly name: string) {}

  line(s = ""): void {
    this.lines.push(s);
    console.log(s);
  }

  table(header: string[]): void {
    this.line(`| ${header.join(" | ")} |`);
    this.line(`|${header.map(() => "---").join("|")}|`);
  }

  row(cells: Array<string | number>): void {
    this.line(`| ${cells.join(" | ")} |`);
  }

  save(): string {
    const dir = new URL("../out/", import.meta.url);
    mkdirSync(dir, { recursive: true });
    const path = new URL(`${this.name}.md`, dir);
    writeFileSync(path, `${this.lines.join("\n")}\n`);
    return path.pathname;
  }

  saveJson(suffix: string, value: unknown): string {
    const dir = new URL("../out/", import.meta.url);
    mkdirSync(dir, { recursive: true });
    const path = new URL(`${this.name}${suffix}.json`, dir);
    writeFileSync(path, JSON.stringify(value, null, 1));
    return path.pathname;
  }
}

/** "median (p10–p90)" of milliseconds. */
export function spread(samples: number[]): { median: string; range: string; n: number } {
  const s = summarize(samples);
  return { median: fmt(s.median), range: `${fmt(s.p10)}–${fmt(s.p90)}`, n: s.n };
}

/** Same for values that are not milliseconds (bytes already turned into MB, counts). */
export function spreadOf(samples: number[], digits = 0): { median: string; range: string; n: number } {
  const s = summarize(samples);
  const f = (v: number) => v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
  return { median: f(s.median), range: `${f(s.p10)}–${f(s.p90)}`, n: s.n };
}

export const today = () => new Date().toISOString().slice(0, 10);

/** The 1-minute load average: other work on a 2-core machine shows up in the spreads. */
export const load = () => loadavg()[0]!.toFixed(1);

/** bench/llama-cli.ts's section (bench/page-rlm.ts puts its own before it). */
export const CLI_SECTION = "## Local model in the CLI: llama.cpp through node-llama-cpp (issue 26)";

/**
 * Puts `body` under `heading` in bench/RESULTS.md: in place of the section with that heading (up
 * to the next heading of the same or a higher level), or, the first time, before the heading
 * `insertBefore` (at the end without one).
 */
export function writeResultsSection(heading: string, body: string, insertBefore?: string): void {
  const path = new URL("../RESULTS.md", import.meta.url);
  const old = readFileSync(path, "utf8");
  const section = `${heading}\n\n${body.trim()}\n\n`;
  const level = /^#+/.exec(heading)![0];
  const cut = old.indexOf(`${heading}\n`);
  if (cut >= 0) {
    const rest = old.slice(cut + heading.length);
    const next = rest.search(new RegExp(`\n#{1,${level.length}} `));
    writeFileSync(path, old.slice(0, cut) + section + (next >= 0 ? rest.slice(next + 1) : ""));
    return;
  }
  const at = insertBefore ? old.indexOf(insertBefore) : -1;
  writeFileSync(path, at >= 0 ? old.slice(0, at) + section + old.slice(at) : `${old.trimEnd()}\n\n${section}`);
}
