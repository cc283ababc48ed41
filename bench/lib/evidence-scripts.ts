// Scripted root and sub-models for the evidence benchmark: for each suite, several ways a small
// model explores a document (regex then a sub-call, find then print, a map over chunks, a
// compiled pattern, and ways that leave no trace Python can see). The root reads the REPL's
// output like a model would; the sub-model reads the text it is given. No answer is written
// in: every one is found in the document by the script's code or read from it by the sub-model.
import type { ChatRequest } from "../../src/engines/types.ts";
import type { BenchTask } from "../../src/bench/types.ts";

export interface Strategy {
  name: string;
  /** True when the script reads the document only in ways Python cannot record (`in`, json.loads). */
  traceless: boolean;
  /** The root's reply on `turn` (0-based), given the last REPL output. */
  reply(turn: number, output: string): string;
}

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const between = (text: string, a: string, b: string) => text.slice(text.indexOf(a) + a.length, text.lastIndexOf(b));
const py = (s: string) => JSON.stringify(s);
const final = (value: string) => repl(`FINAL(${py(value)})`);
const CHUNK = 20_000;

// --- what the sub-model understands: one regex per kind of fact --------------------------------

/** How each generated fact is worded (src/bench/suites/niah.ts, docqa.ts), keyed by the question. */
function factPatterns(question: string): { key: string; answer: RegExp } | null {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const rules: Array<[RegExp, (m: RegExpExecArray) => { key: string; answer: RegExp }]> = [
    [
      /special magic number for ([\w-]+) mentioned/,
      (m) => ({ key: `magic numbers for ${m[1]}`, answer: new RegExp(`magic numbers for ${esc(m[1]!)} is: (\\d+)`) }),
    ],
    [/In which town was (.+?) born\?/, (m) => ({ key: m[1]!, answer: new RegExp(`${esc(m[1]!)} was born in the town of ([\\w ]+?)\\.`) })],
    [
      /What is the name of (.+?)'s ([\w ]+)\?/,
      (m) => ({ key: m[1]!, answer: new RegExp(`${esc(m[1]!)} keeps a ${esc(m[2]!)} named (\\w+)\\.`) }),
    ],
    [/What was (.+?)'s profession\?/, (m) => ({ key: m[1]!, answer: new RegExp(`${esc(m[1]!)} earned a living as an? ([\\w ]+?)\\.`) })],
    [
      /In which year was the (.+?) founded\?/,
      (m) => ({ key: m[1]!, answer: new RegExp(`The ${esc(m[1]!)} was founded in the year (\\d+)\\.`) }),
    ],
    [/What did the ship (.+?) carry/, (m) => ({ key: `ship ${m[1]}`, answer: new RegExp(`the ship ${esc(m[1]!)} carried ([\\w ]+?)\\.`) })],
    [
      /door of the (.+?)\?/,
      (m) => ({ key: `door of the ${m[1]}`, answer: new RegExp(`door of the ${esc(m[1]!)} opens with the code (\\d+)\\.`) }),
    ],
  ];
  for (const [re, make] of rules) {
    const m = re.exec(question);
    if (m) return make(m);
  }
  return null;
}

/** The sub-model: answers a question about the text between << and >>, or says NONE. */
export function subModel(request: ChatRequest): string {
  const prompt = request.messages.at(-1)?.content ?? "";
  // A reduce step: the findings of the map step, one per line; the first real one wins.
  if (prompt.startsWith("Combine these findings"))
    return (
      between(prompt, "<<", ">>")
        .split("\n")
        .find((l) => l.trim() && l !== "NONE") ?? "NONE"
    );
  const text = prompt.slice(prompt.indexOf("<<") + 2, prompt.lastIndexOf(">>"));
  const question = prompt.slice(prompt.lastIndexOf(">>") + 2);
  const fact = factPatterns(question);
  const m = fact?.answer.exec(text);
  return m ? m[1]! : "NONE";
}

// --- the root's strategies per suite ------------------------------------------------------------

function documentStrategies(task: BenchTask): Strategy[] {
  const fact = factPatterns(task.question)!;
  const ask = (window: string) => `llm_query("<<" + ${window} + ">>\\n" + ${py(task.question)})`;
  // The map both chunked strategies start with: every chunk asked the question, the replies in order.
  const mapChunks =
    `chunks = [context[i:i + ${CHUNK}] for i in range(0, len(context), ${CHUNK})]\n` +
    `replies = llm_query_batched(["<<" + c + ">>\\n" + ${py(task.question)} for c in chunks])\n`;
  return [
    {
      name: "regex, window, sub-call",
      traceless: false,
      reply: (turn) =>
        turn === 0
          ? repl(
              `import re\nm = re.search(${py(fact.key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))}, context)\nreply = ${ask("context[max(0, m.start() - 1000):m.end() + 1000]")}\nprint(reply)`,
            )
          : repl("FINAL(reply)"),
    },
    {
      name: "find, print, read the output",
      traceless: false,
      reply: (turn, output) => {
        if (turn === 0) return repl(`i = context.find(${py(fact.key)})\nprint(context[max(0, i - 300):i + 300])`);
        const m = fact.answer.exec(output);
        return final(m ? m[1]! : "not found");
      },
    },
    {
      name: "map over chunks",
      traceless: false,
      reply: (turn) =>
        turn === 0 ? repl(`${mapChunks}found = [r for r in replies if r != "NONE"]\nprint(len(chunks), found)`) : repl("FINAL(found[0])"),
    },
    {
      name: "map over chunks, then reduce",
      traceless: false,
      reply: (turn) =>
        turn === 0
          ? repl(
              mapChunks +
                `answer_text = llm_query("Combine these findings into one answer:\\n<<" + "\\n".join(replies) + ">>\\n" + ${py(task.question)})\nprint(answer_text)`,
            )
          : repl("FINAL(answer_text)"),
    },
    {
      name: "findall the fact",
      traceless: false,
      reply: (turn) =>
        turn === 0 ? repl(`import re\nvalues = re.findall(${py(fact.answer.source)}, context)\nprint(values)`) : repl("FINAL(values[0])"),
    },
  ];
}

function codeStrategies(task: BenchTask): Strategy[] {
  const subject = String(task.meta?.subject ?? "");
  if (task.variant === "function-file") {
    const literal = `function ${subject}(`;
    return [
      {
        name: "regex over files",
        traceless: false,
        reply: (turn) =>
          turn === 0
            ? repl(`import re\nhits = [p for p, t in context.items() if re.search(r"function\\s+${subject}\\s*\\(", t)]\nprint(hits)`)
            : repl("FINAL(hits[0])"),
      },
      {
        name: "compiled pattern, print the line",
        traceless: false,
        reply: (turn, output) => {
          if (turn > 0) return final(/^FILE (\S+)/m.exec(output)?.[1] ?? "not found");
          return repl(
            `import re\npat = re.compile(r"^[ \\t]*function\\s+${subject}\\s*\\(", re.M)\n` +
              "for p, t in context.items():\n    for m in pat.finditer(t):\n        print('FILE', p)\n        print(t[m.start():m.start() + 200])",
          );
        },
      },
      {
        name: "substring test (no trace)",
        traceless: true,
        reply: (turn) =>
          turn === 0 ? repl(`hits = [p for p, t in context.items() if ${py(literal)} in t]\nprint(hits)`) : repl("FINAL(hits[0])"),
      },
    ];
  }
  return [
    {
      name: "regex on package.json",
      traceless: false,
      reply: (turn) =>
        turn === 0
          ? repl(
              `import re\nm = re.search(r'"${subject.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}"\\s*:\\s*"([^"]+)"', context["package.json"])\nvalue = m.group(1)\nprint(value)`,
            )
          : repl("FINAL(value)"),
    },
    {
      name: "print package.json, read the output",
      traceless: false,
      reply: (turn, output) => {
        if (turn === 0) return repl('print(context["package.json"])');
        const m = new RegExp(`"${subject.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}"\\s*:\\s*"([^"]+)"`).exec(output);
        return final(m ? m[1]! : "not found");
      },
    },
    {
      name: "json.loads (no trace)",
      traceless: true,
      reply: (turn) =>
        turn === 0
          ? repl(
              `import json\nd = json.loads(context["package.json"])\nvalue = {**d.get("devDependencies", {}), **d.get("dependencies", {})}[${py(subject)}]\nprint(value)`,
            )
          : repl("FINAL(value)"),
    },
  ];
}

export function strategiesFor(task: BenchTask): Strategy[] {
  return task.suite === "code" ? codeStrategies(task) : documentStrategies(task);
}

/** The root model for one task and strategy: turn = assistant messages so far. */
export function rootModel(strategy: Strategy): (request: ChatRequest) => string {
  return (request) => {
    const turn = request.messages.filter((m) => m.role === "assistant").length;
    return strategy.reply(turn, request.messages.at(-1)?.content ?? "");
  };
}

/** Where the answer is in the task's document(s): the passage a source should point at. */
export function goldPassage(task: BenchTask): { doc: string; start: number; end: number } {
  const cp = (s: string, i: number) => [...s.slice(0, i)].length; // Python counts code points
  if (task.context.kind === "files") {
    const files = task.context.files;
    const subject = String(task.meta?.subject ?? "");
    if (task.variant === "function-file") {
      const path = (task.expected as { answer: string }).answer;
      const text = files[path]!;
      const at = new RegExp(`function\\s+${subject}\\s*\\(`).exec(text)!.index;
      return { doc: path, start: cp(text, at), end: cp(text, at) + `function ${subject}(`.length };
    }
    const text = files["package.json"]!;
    const at = text.indexOf(`"${subject}"`);
    const lineEnd = text.indexOf("\n", at);
    return { doc: "package.json", start: cp(text, at), end: cp(text, lineEnd < 0 ? text.length : lineEnd) };
  }
  const text = task.context.text;
  if (task.suite === "niah") {
    const at = task.meta!.offset as number;
    return { doc: "document.txt", start: at, end: at + text.indexOf(".", at) + 1 - at };
  }
  const facts = task.meta!.facts as string[];
  const statement = facts[task.meta!.asked as number]!;
  const at = text.indexOf(statement);
  return { doc: "document.txt", start: at, end: at + statement.length };
}
