// What can be chosen is choosable everywhere a person chooses it: Settings, a share link and the
// `rlm` command line (issue 27 §3). A REPL helper reaches the model through the prompt profile
// that offers it, so the profiles are checked here; the helpers themselves and the engines are
// checked against the lists their owners are building (the todos below say exactly what).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { proposeFromLink } from "../../src/app/link-settings.ts";
import { DEFAULT_SETTINGS } from "../../src/app/settings.ts";
import { HELP, parseCliArgs } from "../../src/cli/args.ts";
import { PROMPT_CHOICES, PROMPT_PROFILES } from "../../src/core/profiles/index.ts";

const settingsDialog = readFileSync(new URL("../../src/ui/SettingsDialog.svelte", import.meta.url), "utf8");

/** The values of the <select> bound to `binding` in the Settings dialog (its options are written out there). */
function settingsOptions(binding: string): string[] {
  const select = new RegExp(`<select bind:value=\\{${binding.replaceAll(".", "\\.")}\\}>([\\s\\S]*?)</select>`).exec(settingsDialog);
  if (!select) throw new Error(`src/ui/SettingsDialog.svelte has no <select bind:value={${binding}}> any more: update this test.`);
  return [...select[1]!.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]!);
}

describe("every prompt profile can be chosen in Settings, by a share link and on the command line", () => {
  it("every named profile is one of the choices, and every choice but auto names a profile", () => {
    expect([...PROMPT_CHOICES].filter((c) => c !== "auto").sort()).toEqual(Object.keys(PROMPT_PROFILES).sort());
  });

  it("Settings offers exactly the choices", () => {
    expect(settingsOptions("draft.run.prompt").sort()).toEqual([...PROMPT_CHOICES].sort());
  });

  it.each(PROMPT_CHOICES.map((c) => [c]))("a share link carrying prompt=%s is taken", (choice) => {
    const current = structuredClone(DEFAULT_SETTINGS);
    current.run.prompt = choice === "auto" ? "standard" : "auto"; // so that the link changes something
    const proposal = proposeFromLink(current, `?prompt=${choice}`);
    expect(proposal?.refused).toEqual([]);
    expect(proposal?.next.run.prompt).toBe(choice);
  });

  it.each(PROMPT_CHOICES.map((c) => [c]))("rlm --prompt %s is taken, and --help names it", (choice) => {
    expect(parseCliArgs(["--task", "q", "--model", "m", "--prompt", choice], {}).prompt).toBe(choice);
    expect(HELP).toContain(choice);
  });

  it("each profile offers the model the helpers it needs to answer", () => {
    for (const [name, profile] of Object.entries(PROMPT_PROFILES)) {
      const helpers = profile.helpers(false);
      expect(helpers, name).toContain("context");
      expect(helpers, name).toContain("llm_query");
      // A way to finish: FINAL / FINAL_VAR, or the canonical harness's `answer` dict.
      expect(
        helpers.some((h) => h.startsWith("FINAL") || h === "answer"),
        name,
      ).toBe(true);
    }
  });
});

describe("left for the registries being built (issue 27 §1 and the engine registry)", () => {
  // Needs the helper vocabulary declared once (issue 27 §1, the loop branch): each entry's name,
  // signature, prompt line and profiles. Then: every helper Python installs (the vocabulary, not
  // a parse of rlm_runtime.py) is offered by at least one profile's helpers(); every name a
  // profile's helpers() or prompt text offers exists in Python; and every profile that offers a
  // helper is reachable as above, so the helper is reachable from Settings, links and the CLI.
  it.todo("every REPL helper is offered by a prompt profile, and every offered helper exists in Python");

  // Needs the engine registry (src/engines/registry.ts, ENGINES, on the wllama branch). Then, for
  // every entry: Settings lists it (the dialog iterates ENGINES); `?backend=<id>` is taken by
  // proposeFromLink and shareLink writes it back with the engine's own link fields; and an engine
  // whose descriptor says it runs in Node is chosen by an `rlm` flag that parseCliArgs accepts,
  // while a page-only engine (WebLLM needs WebGPU) is named as such in `rlm --help`. Today the
  // backends are a type (`Backend` in src/app/settings.ts) with no list to iterate.
  it.todo("every engine is reachable from Settings, share links and (where it runs in Node) the CLI");
});
