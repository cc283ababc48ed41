// Reading the model's reply: which code to run, and whether it gave a final answer in text.
// Small models write code in many shapes (```python, ```py, a bare fence with "python" on the
// first line, <code> tags, a fence never closed because the reply ran out of tokens); every block
// is found and given a verdict here, and the loop decides what to run from the verdict.
import { strayThinkClose } from "./stray-markup.ts";

/** Fence languages that are Python for sure. Small models write ```python as often as ```repl. */
const RUNNABLE = /^(?:repl|python|py|python3|py3|ipython|pycon)$/i;

/** Words that name a text format, not code: alone on a bare fence's first line, they are its language. */
const TEXT_FORMAT = /^(?:text|plaintext|plain|txt|markdown|md|output|log|csv|tsv|diff|ini|cfg|conf|tex|latex|rst)$/i;

/** Languages that are never Python: answered with a format reminder, never run (M06). */
const NEVER_PYTHON =
  /^(?:bash|sh|shell|zsh|fish|console|shell-session|shellsession|powershell|ps1?|pwsh|cmd|bat|batch|javascript|js|jsx|mjs|cjs|node|typescript|ts|tsx|xml|html|svg|json|jsonc|json5|yaml|yml|toml|sql|c|cpp|c\+\+|csharp|cs|java|kotlin|go|golang|rust|rs|ruby|rb|php|perl|pl|r|lua|swift|scala|dockerfile|makefile)$/i;

/** What the loop should do with a block. */
export type BlockVerdict =
  /** Labelled Python (repl/python/py/python3 fence): runs as it is; its errors come from the REPL. */
  | "run"
  /**
   * Not labelled Python (a bare fence, a <code> tag, markdown, text, …): runs only if Python's
   * parser accepts it, so `ls -l`, `md foldername` or XML in a bare fence never runs (issue 25).
   */
  | "run-if-python"
  /** Shell, JavaScript, XML…: never run; the model gets a one-line format reminder. */
  | "refuse";

export interface CodeBlock {
  code: string;
  /** The fence's language word, lower-cased; "" for a bare fence or a <code> tag. */
  language: string;
  verdict: BlockVerdict;
  /** The reply ended inside this block (no closing fence): its last line may be cut off. */
  unclosed: boolean;
  form: "fence" | "one-line-fence" | "code-tag";
}

const CLOSE_TAGS = /<\/?think(?:ing)?\s*\/?>/gi;

/**
 * Where a lone </think> (no opening tag before it) ends the thinking that precedes it, or -1.
 * It does when the server dropped the opening tag (vLLM's reasoning parser, Qwen3 templates that
 * pre-fill it): the reply goes on after it. A lone tag with nothing after it is a stray leftover
 * at the end of a reply (issue 25), and the text before it is the reply.
 */
function loneCloseEndsThinking(text: string): number {
  const firstClose = text.search(/<\/think(?:ing)?\s*>/i);
  const firstOpen = text.search(/<think(?:ing)?\s*>/i);
  if (firstClose < 0 || (firstOpen >= 0 && firstOpen < firstClose)) return -1;
  const after = text.slice(firstClose).replace(CLOSE_TAGS, "");
  return after.trim() && !strayThinkClose(text.slice(0, firstClose), after) ? firstClose : -1;
}

/** Removes reasoning: <think>…</think> spans, a span left open at the end, and lone tags. */
export function stripThinking(text: string): string {
  let out = text;
  const close = loneCloseEndsThinking(out);
  if (close >= 0) out = out.slice(close).replace(/^<\/think(?:ing)?\s*>/i, "");
  out = out.replace(/<think(?:ing)?\s*>[\s\S]*?(?:<\/think(?:ing)?\s*>|$)/gi, "");
  return out.replace(CLOSE_TAGS, "");
}

/** The thinking spans of a reply (what stripThinking removes), for "your code was in <think>". */
export function thinkingOf(text: string): string {
  const removed = stripThinking(text);
  if (removed === text) return "";
  const spans = [...text.matchAll(/<think(?:ing)?\s*>([\s\S]*?)(?:<\/think(?:ing)?\s*>|$)/gi)].map((m) => m[1] ?? "");
  const close = loneCloseEndsThinking(text);
  if (close >= 0) spans.unshift(text.slice(0, close));
  return spans.join("\n");
}

function languageVerdict(language: string): BlockVerdict {
  if (RUNNABLE.test(language)) return "run";
  if (NEVER_PYTHON.test(language)) return "refuse";
  return "run-if-python";
}

/**
 * A bare fence whose first line is a language word alone ("```\npython\nprint(1)") says its
 * language there; the word is not code.
 */
function languageOnFirstLine(lines: string[]): { language: string; body: string[] } | null {
  const first = lines.findIndex((l) => l.trim() !== "");
  if (first < 0) return null;
  const word = lines[first]!.trim();
  if (!/^[A-Za-z][\w+#-]*$/.test(word)) return null;
  if (!RUNNABLE.test(word) && !NEVER_PYTHON.test(word) && !TEXT_FORMAT.test(word)) return null;
  return { language: word.toLowerCase(), body: lines.slice(first + 1) };
}

/** `<code>` or `<pre><code class="language-python">` at the start of a line opens a block. */
const CODE_TAG_OPEN = /^\s*(?:<pre>\s*)?<code(?:\s[^>]*)?>/i;
const CODE_TAG_CLOSE = /<\/code>\s*(?:<\/pre>)?/i;

function tagLanguage(line: string): string {
  return /class\s*=\s*["']?(?:language-|lang-)?([\w+-]+)/i.exec(line)?.[1]?.toLowerCase() ?? "";
}

/**
 * Shell commands (`ls -l`, `cd data`, `cat notes.txt | grep x`): some even parse as Python
 * (`ls -l` is a subtraction), so an unlabelled block of them is refused before the parser.
 */
const SHELL_LINE =
  /^\s*(?:\$\s*)?(?:ls|dir|cd|md|mkdir|rmdir|rm|del|cp|copy|mv|move|cat|type|grep|findstr|find|echo|head|tail|wc|sed|awk|curl|wget|pip3?|npm|git|sudo|touch|chmod|less|more|sort|uniq)(?:\s+\S.*)?$/;

export function looksLikeShell(code: string): boolean {
  const lines = code.split("\n").filter((l) => l.trim() && !/^\s*#/.test(l));
  // A call or an assignment is Python: find(x), head = context[:100].
  return lines.length > 0 && lines.every((l) => SHELL_LINE.test(l) && !/\w\(|^\s*\w+\s*=[^=]/.test(l));
}

function makeBlock(lines: string[], language: string, form: CodeBlock["form"], unclosed: boolean): CodeBlock {
  let body = lines;
  let lang = language.toLowerCase();
  if (lang === "") {
    const said = languageOnFirstLine(lines);
    if (said) {
      lang = said.language;
      body = said.body;
    }
  }
  const code = dedent(body.join("\n"));
  const verdict = languageVerdict(lang);
  // An unlabelled block of shell commands is shell, whatever Python's parser would say.
  if (verdict === "run-if-python" && looksLikeShell(code)) return { code, language: "shell", verdict: "refuse", unclosed, form };
  return { code, language: lang, verdict, unclosed, form };
}

/** ```lang code``` on one line. */
function oneLineFence(line: string): CodeBlock | null {
  const m = /^\s*```([^`]+?)```\s*$/.exec(line);
  if (!m) return null;
  const inner = m[1]!.trim();
  const word = /^([A-Za-z][\w+#-]*)\s+([\s\S]+)$/.exec(inner);
  if (word && (RUNNABLE.test(word[1]!) || NEVER_PYTHON.test(word[1]!) || /^(?:markdown|md|text)$/i.test(word[1]!))) {
    return makeBlock([word[2]!], word[1]!, "one-line-fence", false);
  }
  return makeBlock([inner], "", "one-line-fence", false);
}

interface OpenBlock {
  lines: string[];
  language: string;
  form: "fence" | "code-tag";
  /** Backticks in the opening fence; the closing fence needs at least as many. */
  ticks: number;
}

/** Handles one line while inside a block; returns the finished block, or null to continue. */
function continueBlock(open: OpenBlock, line: string): CodeBlock | null {
  if (open.form === "fence") {
    const close = /^\s*(`{3,})\s*$/.exec(line);
    if (close && close[1]!.length >= open.ticks) return makeBlock(open.lines, open.language, "fence", false);
    open.lines.push(line);
    return null;
  }
  const end = CODE_TAG_CLOSE.exec(line);
  if (!end) {
    open.lines.push(line);
    return null;
  }
  open.lines.push(line.slice(0, end.index));
  return makeBlock(open.lines, open.language, "code-tag", false);
}

/** Opens a block if the line starts one; a one-line block is returned through `done`. */
function openBlock(line: string, done: CodeBlock[]): OpenBlock | null {
  const one = oneLineFence(line);
  if (one) {
    if (one.code.trim()) done.push(one);
    return null;
  }
  // ```lang, optionally with attributes ({.python}, title=x); anything else is prose.
  const fence = /^\s*(`{3,})\s*([\w+#.-]*)\s*(?:\{[^}]*\}|[\w-]+=\S*)?\s*$/.exec(line);
  if (fence) return { lines: [], language: fence[2] ?? "", form: "fence", ticks: fence[1]!.length };
  const tag = CODE_TAG_OPEN.exec(line);
  if (!tag) return null;
  const rest = line.slice(tag[0].length);
  const end = CODE_TAG_CLOSE.exec(rest);
  if (end) {
    const block = makeBlock([rest.slice(0, end.index)], tagLanguage(line), "code-tag", false);
    if (block.code.trim()) done.push(block);
    return null;
  }
  return { lines: rest.trim() ? [rest] : [], language: tagLanguage(line), form: "code-tag", ticks: 0 };
}

/**
 * Every code block of a reply, in order, with a verdict. A fence opens with ``` (and an
 * optional language) on its own line and closes with a line that is only ``` — so a fence with
 * a language inside a Python string does not end the block early. A block left open at the end
 * is returned with `unclosed`. Thinking is removed first; code in thoughts is not meant to run.
 */
export function extractCodeBlocks(reply: string): CodeBlock[] {
  const lines = stripThinking(reply).split(/\r?\n/);
  const blocks: CodeBlock[] = [];
  let open: OpenBlock | null = null;
  for (const line of lines) {
    if (open) {
      const finished = continueBlock(open, line);
      if (finished) {
        blocks.push(finished);
        open = null;
      }
    } else {
      open = openBlock(line, blocks);
    }
  }
  if (open && open.lines.some((l) => l.trim())) blocks.push(makeBlock(open.lines, open.language, open.form, true));
  return blocks.filter((b) => b.code.trim().length > 0);
}

/** The code of every block labelled Python, in order (the long-standing API). */
export function findCodeBlocks(reply: string): string[] {
  return extractCodeBlocks(reply)
    .filter((b) => b.verdict === "run")
    .map((b) => b.code);
}

/** Removes indentation shared by every line (models indent code inside list items). */
export function dedent(code: string): string {
  const lines = code.split("\n");
  let common = Infinity;
  for (const l of lines) {
    if (!l.trim()) continue;
    common = Math.min(common, /^[ \t]*/.exec(l)?.[0].length ?? 0);
  }
  if (!Number.isFinite(common) || common === 0) return code.replace(/\s+$/, "");
  return lines
    .map((l) => l.slice(common))
    .join("\n")
    .replace(/\s+$/, "");
}

/** The reply without its code blocks and thoughts: where plain-text FINAL(...) may appear. */
export function proseOf(reply: string): string {
  const out: string[] = [];
  let open: OpenBlock | null = null;
  const sink: CodeBlock[] = [];
  for (const line of stripThinking(reply).split(/\r?\n/)) {
    if (open) {
      if (continueBlock(open, line)) open = null;
      continue;
    }
    const before = sink.length;
    open = openBlock(line, sink);
    if (!open && sink.length === before && !/^\s*```/.test(line)) out.push(line);
  }
  return out.join("\n");
}

export type TextAnswer = { kind: "final"; value: string } | { kind: "final_var"; name: string };

/**
 * The legacy protocol: FINAL(answer) or FINAL_VAR(name) written as plain text at the start of a
 * line, outside code. FINAL_VAR wins when both appear (it names computed data). FINAL takes
 * everything up to the last ")" that ends a line, so answers may contain parentheses and span
 * lines; one pair of surrounding quotes is removed.
 */
export function findTextAnswer(reply: string): TextAnswer | null {
  const prose = proseOf(reply);
  const finalVar = /^\s*(?:\*\*)?FINAL_VAR\(\s*["']?([A-Za-z_][A-Za-z0-9_]*)["']?\s*\)(?!\s*=)/m.exec(prose);
  if (finalVar?.[1]) return { kind: "final_var", name: finalVar[1] };
  const final = /^\s*(?:\*\*)?FINAL\(([\s\S]*)\)(?:\*\*)?[ \t]*$/m.exec(prose);
  if (final) return { kind: "final", value: unquote((final[1] ?? "").trim()) };
  return null;
}

export function unquote(value: string): string {
  const m = /^(?:"""([\s\S]*)"""|'''([\s\S]*)'''|"([\s\S]*)"|'([\s\S]*)'|`([^`]*)`)$/.exec(value);
  if (!m) return value;
  return (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? "").trim();
}
