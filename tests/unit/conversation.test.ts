import { describe, expect, it } from "vitest";
import { RootConversation } from "../../src/core/conversation.ts";
import { clipMiddle, formatCell } from "../../src/core/format.ts";
import { estimateMessagesTokens } from "../../src/engines/tokens.ts";

describe("RootConversation", () => {
  it("stays append-only while it fits, with strict role alternation", () => {
    const c = new RootConversation("sys", "question", 10_000);
    c.addTurn("a1", "u1");
    const before = c.messages();
    c.addTurn("a2", "u2");
    expect(c.fit()).toBe(0);
    const after = c.messages();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
  });

  it("drops the oldest turns in one step, never the system prompt or question", () => {
    const c = new RootConversation("system prompt", "the question", 1000);
    for (let i = 0; i < 12; i++) c.addTurn(`reply ${i} ${"x".repeat(350)}`, `output ${i} ${"y".repeat(350)}`);
    const dropped = c.fit();
    expect(dropped).toBeGreaterThan(0);
    const messages = c.messages();
    expect(estimateMessagesTokens(messages)).toBeLessThanOrEqual(1000 * 0.7);
    expect(messages[0]?.content).toBe("system prompt");
    expect(messages[1]?.content).toContain("the question");
    expect(messages[1]?.content).toContain(`Turns 1–${dropped} were removed`);
    expect(messages.at(-1)?.content).toContain("output 11");
    // Right after compaction there is room to append again without dropping.
    c.addTurn("short", "short");
    expect(c.fit()).toBe(0);
  });

  it("clips a single oversized turn instead of failing", () => {
    const c = new RootConversation("s", "q", 500);
    c.addTurn("a".repeat(20_000), "u".repeat(20_000));
    c.fit();
    expect(estimateMessagesTokens(c.messages())).toBeLessThan(500);
  });

  it("appends the final request to the last user message", () => {
    const c = new RootConversation("s", "q", 1000);
    c.addTurn("a", "out");
    const messages = c.messages("give your answer");
    expect(messages.at(-1)).toEqual({ role: "user", content: "out\n\ngive your answer" });
    expect(c.messages().at(-1)?.content).toBe("out");
  });
});

describe("output formatting", () => {
  it("clipMiddle keeps both ends and says how much was cut", () => {
    const text = `HEAD${"m".repeat(10_000)}TAIL`;
    const clipped = clipMiddle(text, 500);
    expect(clipped.length).toBeLessThanOrEqual(500);
    expect(clipped.startsWith("HEAD")).toBe(true);
    expect(clipped.endsWith("TAIL")).toBe(true);
    expect(clipped).toMatch(/\[… [\d,]+ characters cut …\]/);
  });
  it("tells the model to print when a cell shows nothing", () => {
    const empty = { stdout: "", stderr: "", final_answer: null, locals: {}, execution_time: 0, error: null, interrupted: false };
    expect(formatCell(empty, 100)).toContain("use print()");
  });
});
