// Prompt profile and method (auto / RLM / direct) as settings: a share link carries them, the run
// gets them, and the page says how an answer came about (issue 13).
import { describe, expect, it } from "vitest";
import { howAnswered } from "../../src/app/run-view.ts";
import { proposeFromLink, shareLink } from "../../src/app/link-settings.ts";
import { DEFAULT_SETTINGS, toRlmConfig } from "../../src/app/settings.ts";
import { HELP, parseCliArgs } from "../../src/cli/args.ts";

describe("prompt profile and method in settings", () => {
  it("default to auto, and reach the run", () => {
    expect(DEFAULT_SETTINGS.run).toMatchObject({ prompt: "auto", mode: "auto" });
    expect(toRlmConfig(DEFAULT_SETTINGS)).toMatchObject({ prompt: "auto", runMode: "auto" });
    expect(toRlmConfig(DEFAULT_SETTINGS)).not.toHaveProperty("thinking");
  });

  it("come from a share link, and go into one; other values are refused", () => {
    const proposal = proposeFromLink(DEFAULT_SETTINGS, "?prompt=guided&mode=rlm")!;
    const settings = proposal.next;
    expect(settings.run).toMatchObject({ prompt: "guided", mode: "rlm" });
    expect(proposal.changes.map((c) => c.key)).toEqual(expect.arrayContaining(["prompt", "mode"]));
    const link = new URL(shareLink(settings, "http://app.test/"));
    expect(link.searchParams.get("prompt")).toBe("guided");
    expect(link.searchParams.get("mode")).toBe("rlm");
    expect(new URL(shareLink(DEFAULT_SETTINGS, "http://app.test/")).searchParams.has("prompt")).toBe(false);
    const bad = proposeFromLink(settings, "?prompt=tiny&mode=fast")!;
    expect(bad.next.run).toMatchObject({ prompt: "guided", mode: "rlm" });
    expect(bad.refused.map((r) => r.key)).toEqual(["prompt", "mode"]);
  });

  it("compare mode always runs the RLM beside the direct answer", () => {
    expect(toRlmConfig({ ...DEFAULT_SETTINGS, compare: true }).runMode).toBe("rlm");
  });

  it("the local model's thinking switch reaches the root", () => {
    const thinking = { ...DEFAULT_SETTINGS, webllm: { ...DEFAULT_SETTINGS.webllm, thinking: true } };
    expect(toRlmConfig(thinking).thinking).toBe(true);
    expect(toRlmConfig({ ...thinking, backend: "openai" })).not.toHaveProperty("thinking");
  });
});

describe("how an answer came about", () => {
  it("names the fallback and what it read", () => {
    const line = howAnswered({
      producedBy: "fallback",
      fallback: {
        reason: "The model could not drive the run: it wrote nothing that could run in 2 turns in a row.",
        chunksRead: 3,
        chunksTotal: 9,
        partial: true,
      },
    });
    expect(line).toBe(
      "Answered by the fallback, not by the model. The model could not drive the run: it wrote nothing that could run in 2 turns in a row. So the harness read the 3 most relevant of the document's 9 parts with the helper model.",
    );
    const whole = howAnswered({
      producedBy: "fallback",
      fallback: {
        reason: "The model could not drive the run: it used all 4 turns, and its last reply gave no usable answer.",
        chunksRead: 1,
        chunksTotal: 1,
        partial: false,
        decision: "agreed",
      },
    });
    expect(whole).toBe(
      "Answered by the fallback, not by the model. The model could not drive the run: it used all 4 turns, and its last reply gave no usable answer. So the harness read the whole document with the helper model, as you chose.",
    );
  });

  it("names a direct answer and why; says nothing for an ordinary RLM run", () => {
    const reason = "the whole document and question fit the window (about 900 of the model's 8,192 tokens), so it was answered in one call";
    expect(howAnswered({ mode: { used: "direct", reason }, producedBy: "model" })).toBe(`Answered directly: ${reason}.`);
    expect(howAnswered({ mode: { used: "rlm", reason: "RLM was asked for" }, producedBy: "model" })).toBeNull();
  });

  it("says when no output showed the model's answer (issue 25)", () => {
    const unverified = "No output of the run showed this answer: the model was asked for evidence and submitted it again without any.";
    expect(howAnswered({ mode: { used: "rlm", reason: "too big" }, producedBy: "model", unverified })).toBe(unverified);
  });
});

describe("rlm --mode and --thinking", () => {
  it.each([["auto"], ["rlm"], ["direct"]])("accepts --mode %s", (mode) => {
    expect(parseCliArgs(["--task", "q", "--model", "m", "--mode", mode]).mode).toBe(mode);
  });

  it("rejects other modes, and leaves mode and thinking unset unless given", () => {
    expect(() => parseCliArgs(["--task", "q", "--model", "m", "--mode", "fast"])).toThrow(/auto, rlm, direct/);
    const o = parseCliArgs(["--task", "q", "--model", "m"]);
    expect(o.mode).toBeUndefined();
    expect(o.thinking).toBe(false);
    expect(parseCliArgs(["--task", "q", "--model", "m", "--thinking"]).thinking).toBe(true);
    expect(HELP).toMatch(/--mode MODE/);
    expect(HELP).toMatch(/--thinking/);
  });
});
