// `rlm --prompt`: choose the prompt profile from the command line; every other flag unchanged.
import { describe, expect, it } from "vitest";
import { HELP, UsageError, parseCliArgs } from "../../src/cli/args.ts";

describe("--prompt", () => {
  it.each([["auto"], ["guided"], ["standard"], ["canonical"]])("accepts %s", (choice) => {
    expect(parseCliArgs(["--task", "q", "--model", "m", "--prompt", choice], {}).prompt).toBe(choice);
  });

  it("is absent unless given (the caller's default is auto)", () => {
    expect(parseCliArgs(["--task", "q", "--model", "m"], {}).prompt).toBeUndefined();
  });

  it("rejects other names with the list of choices", () => {
    expect(() => parseCliArgs(["--task", "q", "--model", "m", "--prompt", "tiny"], {})).toThrow(UsageError);
    expect(() => parseCliArgs(["--task", "q", "--model", "m", "--prompt", "tiny"], {})).toThrow(/auto, guided, standard, canonical/);
  });

  it("is documented in --help", () => {
    expect(HELP).toMatch(/--prompt NAME/);
  });

  it("leaves the existing options as they were", () => {
    const o = parseCliArgs(["--task", "q", "--model", "m", "--prompt", "guided", "--json", "--max-iterations", "3"], {});
    expect(o).toMatchObject({ task: "q", engine: { options: { model: "m" } }, json: true, maxIterations: 3, prompt: "guided" });
  });
});
