import { describe, expect, it } from "vitest";
import { deriveBudgets } from "../../src/core/budgets.ts";
import { systemPrompt } from "../../src/core/prompts.ts";
import { estimateTokens } from "../../src/engines/tokens.ts";

describe("deriveBudgets", () => {
  it("fits a 4,096-token WebLLM model", () => {
    const b = deriveBudgets({ rootWindow: 4096, subWindow: 4096 });
    expect(b.maxTokensPerTurn).toBe(1024);
    expect(b.historyTokens + b.maxTokensPerTurn).toBeLessThanOrEqual(4096);
    expect(b.outputCharsPerCell).toBeLessThan(3000);
    // A suggested chunk plus its reply fits the sub-model's window.
    expect(estimateTokens("x".repeat(b.chunkChars)) + b.subMaxTokens).toBeLessThan(4096);
    // The system prompt leaves most of the window for the work.
    expect(estimateTokens(systemPrompt({ budgets: b, recursive: true }))).toBeLessThan(700);
  });
  it("grows with a 128K server model and caps output shown", () => {
    const b = deriveBudgets({ rootWindow: 131_072, subWindow: 32_768 });
    expect(b.outputCharsPerCell).toBe(20_000);
    expect(b.chunkChars).toBeGreaterThan(50_000);
    expect(b.chunkChars).toBeLessThan(32_768 * 3.5);
  });
  it("honours overrides within the window", () => {
    const b = deriveBudgets({ rootWindow: 8192, subWindow: 8192, maxTokensPerTurn: 99_999, subMaxTokens: 300 });
    expect(b.maxTokensPerTurn).toBe(4096);
    expect(b.subMaxTokens).toBe(300);
  });
  it("keeps a small --max-tokens as given instead of raising it to 128 (issue 32 §5)", () => {
    expect(deriveBudgets({ rootWindow: 8192, subWindow: 8192, maxTokensPerTurn: 40 }).maxTokensPerTurn).toBe(40);
    expect(deriveBudgets({ rootWindow: 8192, subWindow: 8192 }).maxTokensPerTurn).toBe(2048);
  });
  it("puts the real numbers into the prompt", () => {
    const b = deriveBudgets({ rootWindow: 4096, subWindow: 16_384 });
    const prompt = systemPrompt({ budgets: b, recursive: false });
    expect(prompt).toContain(b.chunkChars.toLocaleString("en-US"));
    expect(prompt).not.toContain("rlm_query");
  });
});
