// Every failure the weak-model simulator injects, run through the modules that remedy it: none
// may end a run with a wrong answer, and each must lead to a run, a re-prompt or a refusal.
// The same failures against the real loop and the scripted server: tests/node/small-model-loop.test.ts.
import { describe, expect, it } from "vitest";
import { judgeFinalWithCode } from "../../src/core/finals.ts";
import { EvidenceGate, RepeatGuard } from "../../src/core/guards/index.ts";
import { analyseReply } from "../../src/core/reply.ts";
import { FAILURE_MODES, failedTurn, planFor, type FailureMode } from "../fixtures/weak-model.ts";

const question = "What is the special magic number for odd-stew mentioned in the provided text? Answer with the number.";
const plan = planFor(question)!;
const previous = `Next step.\n\`\`\`repl\n${plan.steps[0]!.code}\n\`\`\``;

/** What the modules make of one failed turn, as the loop will use them. */
function remedy(mode: FailureMode): string {
  const reply = failedTurn(mode, plan, 0, previous);
  const a = analyseReply(reply);
  const gate = new EvidenceGate({ contextChars: 28_000, rootWindowTokens: 4096 });
  if (a.kind === "neither") return a.foreign ? "reprompt:foreign" : a.refused.length ? "reprompt:language" : "reprompt";
  if (a.final && a.kind === "final") {
    // Python decides what FINAL(name) means (tests/node/small-model-helpers.test.ts): the loop runs it as a cell.
    if (a.final.kind === "value" && a.final.bareName) return "bare:run-as-cell";
    const v = gate.check({ answer: a.final.kind === "value" ? a.final.value : "", source: "text" });
    return v.accept ? "ACCEPTED" : `refused:${v.reason}`;
  }
  if (a.kind === "both") {
    const v = judgeFinalWithCode(a.final!, [{ stdout: "[s0] 7319001", stderr: "", error: null }]);
    return v.accept ? "ACCEPTED" : `run+drop-final:${v.why}`;
  }
  // The turn before a "repetition" ran this step's code; every other failure is a first try.
  const guard = new RepeatGuard();
  if (mode === "repetition") guard.record(plan.steps[0]!.code, "NameError: name 're' is not defined", true);
  if (a.runnable.length && guard.check(a.runnable.map((b) => b.code).join("\n")).repeated) return "repeat:cached";
  const b = a.runnable[0]!;
  return `run:${b.verdict}${b.unclosed ? ":unclosed" : ""}${a.problems.includes("fabricated-output") ? ":cut" : ""}`;
}

describe("each simulated failure meets its remedy", () => {
  const expected: Record<FailureMode, string> = {
    prose: "reprompt",
    empty: "reprompt",
    "premature-guess": "refused:no-code-yet",
    "bare-final-name": "bare:run-as-cell",
    "final-var-assign": "run:run",
    "code-and-final": "run+drop-final:not-in-output",
    "fabricated-output": "run:run:cut",
    "bare-fence": "run:run",
    "code-tag": "run:run-if-python", // not labelled Python: runs once the parser accepts it
    "markdown-fence": "run:run-if-python",
    "shell-fence": "reprompt:language",
    "unclosed-fence": "run:run:unclosed",
    "tool-call": "reprompt:foreign",
    "thinking-leak": "reprompt",
    repetition: "repeat:cached",
  };
  it.each(FAILURE_MODES.map((m) => [m]))("%s", (mode) => {
    expect(remedy(mode)).toBe(expected[mode]);
  });

  it("no failure mode is ever accepted as an answer", () => {
    for (const mode of FAILURE_MODES) expect(remedy(mode), mode).not.toBe("ACCEPTED");
  });
});
