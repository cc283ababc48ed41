// Two rarer M01/M09 shapes: a reply that parrots its prompt (a template or stop-token fault),
// and a reply that loops inside itself until its token budget is gone.
import { describe, expect, it } from "vitest";
import { messageForInaction } from "../../src/core/feedback.ts";
import { taskFacts } from "../fixtures/task-facts.ts";
import { endsInRunawayRepetition } from "../../src/core/guards/index.ts";
import { analyseReply, isEcho } from "../../src/core/reply.ts";

const system = "You answer a question about a document that is too long to read at once. The document is the variable `context`.";
const user = "Question: What is the vault code?\n\n`context` is a str of 2,000,000 characters.";

describe("M01: echoes", () => {
  it("a reply that repeats the system prompt or the last message is an echo", () => {
    expect(isEcho(system, [system, user])).toBe(true);
    expect(isEcho(`${user}\nStart by looking.`, [system, user])).toBe(true);
    const a = analyseReply(system, { prompts: [system, user] });
    expect(a.kind).toBe("neither");
    expect(a.problems).toContain("echo");
    const facts = taskFacts({ question: "Q", context: "c", helpers: [] });
    expect(messageForInaction(facts, a)).toMatch(/repeated the message you were sent/);
  });

  it("short replies and replies with code are not echoes", () => {
    expect(isEcho("What is the vault code?", [user])).toBe(false);
    expect(analyseReply("```repl\nprint(1)\n```", { prompts: [system] }).problems).not.toContain("echo");
    expect(isEcho("I will search the document for the vault code and print what I find.", [system, user])).toBe(false);
  });
});

describe("M09: runaway repetition inside one reply", () => {
  it("is caught when the same unit repeats back to back", () => {
    expect(endsInRunawayRepetition("Let me look.\n" + "print(context[:100])\n".repeat(8))).toBe(true);
    expect(endsInRunawayRepetition("I need to find the code. ".repeat(10))).toBe(true);
  });

  it("ordinary code and prose are not", () => {
    const code = "import re\nfor i in range(10):\n    print(i)\nhits = re.findall(r'code', context)\nprint(len(hits))\n";
    expect(endsInRunawayRepetition(code)).toBe(false);
    expect(endsInRunawayRepetition("a".repeat(30))).toBe(false);
    expect(endsInRunawayRepetition(`Results\n${"-".repeat(120)}\n${"=".repeat(120)}`)).toBe(false);
    expect(endsInRunawayRepetition("print(1)\n".repeat(3))).toBe(false);
  });
});
