// Not Python, not run (issue 36 §8) — but the re-prompt names what the model meant, in Python:
// `grep -c ERROR server.log` is a count of lines of `context`, `<search>ERROR</search>` and a
// tool call {"name": "grep", …} are search("ERROR"), `head`/`cat` is a slice. A small model
// copies a line it is shown far more reliably than it follows a rule it is told.

/** What a shell or tool command does to the document, and its main argument. */
type Meant = { kind: "search" | "count"; text: string } | { kind: "head" } | { kind: "length"; lines: boolean };

const SEARCH_TOOLS = /^(?:grep|egrep|rg|ack|findstr|search\w*|find\w*|lookup|query|web_search|retrieve\w*|select-string)$/i;
const READ_TOOLS = /^(?:cat|type|head|less|more|read\w*|open\w*|view\w*|get_context|show\w*)$/i;

const unquoteArg = (s: string) => s.replace(/^(["'])(.*)\1$/, "$2");

/** The first shell line's command, flags and arguments, as a shell would split them (simply). */
function shellWords(code: string): string[] {
  const line = code.split("\n").find((l) => l.trim() && !/^\s*#/.test(l)) ?? "";
  const first = line.replace(/^\s*\$\s*/, "").split("|")[0]!;
  return (first.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map(unquoteArg);
}

function meantByShell(code: string): Meant | null {
  const [cmd = "", ...rest] = shellWords(code);
  const flags = rest.filter((w) => w.startsWith("-"));
  const args = rest.filter((w) => !w.startsWith("-"));
  if (/^wc$/i.test(cmd)) return { kind: "length", lines: flags.some((f) => f.includes("l")) };
  if (SEARCH_TOOLS.test(cmd) && args[0]) return { kind: flags.some((f) => /^-\w*c/.test(f)) ? "count" : "search", text: args[0] };
  if (READ_TOOLS.test(cmd)) return { kind: "head" };
  return null;
}

function meantByTool(name: string, args: Record<string, unknown>): Meant | null {
  const text = ["pattern", "query", "q", "text", "keyword", "term", "regex", "search", "input"]
    .map((k) => args[k])
    .find((v) => typeof v === "string" && v.trim());
  if (SEARCH_TOOLS.test(name) && typeof text === "string") return { kind: "search", text: text.trim() };
  if (READ_TOOLS.test(name)) return { kind: "head" };
  return null;
}

function python(meant: Meant, helpers: readonly string[]): string {
  if (meant.kind === "head") return "print(context[:2000])";
  if (meant.kind === "length") return meant.lines ? 'print(context.count("\\n") + 1)' : "print(len(context))";
  const literal = JSON.stringify(meant.text);
  if (meant.kind === "count") return `print(sum(1 for line in context.split("\\n") if ${literal} in line))`;
  return helpers.includes("search")
    ? `print(search(${literal}))`
    : `print([line for line in context.split("\\n") if ${literal} in line][:20])`;
}

/** The Python for a shell block (`grep -c ERROR log`), or null when it is not one we know. */
export function pythonForShell(code: string, helpers: readonly string[]): string | null {
  const meant = meantByShell(code);
  return meant ? python(meant, helpers) : null;
}

/** The Python for a call of a tool we do not have (grep, read_file, web_search…), or null. */
export function pythonForTool(name: string | null, args: Record<string, unknown> | null, helpers: readonly string[]): string | null {
  const meant = name ? meantByTool(name, args ?? {}) : null;
  return meant ? python(meant, helpers) : null;
}

/** An XML-ish command in a refused ```xml block (<grep>ERROR</grep>, <search query="ERROR"/>): the tool and its text. */
export function xmlCommand(code: string): { name: string; args: Record<string, unknown> } | null {
  const el = /^\s*<([A-Za-z_][\w.-]*)((?:\s+[\w-]+=(?:"[^"]*"|'[^']*'))*)\s*(?:\/>|>([\s\S]*?)<\/\1>)\s*$/.exec(code);
  if (!el) return null;
  const args: Record<string, unknown> = {};
  for (const a of el[2]!.matchAll(/([\w-]+)=(?:"([^"]*)"|'([^']*)')/g)) args[a[1]!] = a[2] ?? a[3] ?? "";
  if (el[3]?.trim()) args.input = el[3].trim();
  return { name: el[1]!, args };
}

/** The Python a refused block stands for: shell, or an XML-ish command. */
export function pythonForBlock(language: string, code: string, helpers: readonly string[]): string | null {
  const xml = xmlCommand(code);
  if (xml) return pythonForTool(xml.name, xml.args, helpers);
  return language === "xml" || language === "html" ? null : pythonForShell(code, helpers);
}
