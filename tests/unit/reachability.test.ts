// What can be chosen is choosable everywhere a person chooses it: Settings, a share link and the
// `rlm` command line (issue 27 §3). A REPL helper reaches the model through the prompt profile
// that offers it (src/core/repl-vocabulary.ts declares which); an engine is an entry of the
// page's registry (src/engines/registry.ts), and the command line's route to it is declared below.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { proposeFromLink, shareLink } from "../../src/app/link-settings.ts";
import { DEFAULT_SETTINGS } from "../../src/app/settings.ts";
import { HELP, parseCliArgs } from "../../src/cli/args.ts";
import { PROMPT_CHOICES, PROMPT_PROFILES } from "../../src/core/profiles/index.ts";
import { REPL_VOCABULARY } from "../../src/core/repl-vocabulary.ts";
import { ENGINE_IDS, type EngineId } from "../../src/engines/registry.ts";

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

describe("every REPL helper reaches the model through a profile a person can choose", () => {
  it("every REPL helper is offered by a prompt profile, and every offered helper exists in Python", () => {
    const declared = new Set(REPL_VOCABULARY.map((n) => n.name));
    for (const entry of REPL_VOCABULARY) {
      const profiles = Object.keys(entry.offeredBy);
      // Offered by a profile, and every such profile is choosable (checked above).
      expect(profiles.length, entry.name).toBeGreaterThan(0);
      for (const p of profiles) expect(Object.keys(PROMPT_PROFILES), `${entry.name} offered by ${p}`).toContain(p);
    }
    for (const [name, profile] of Object.entries(PROMPT_PROFILES)) {
      for (const helper of [...profile.helpers(false), ...profile.helpers(true)]) {
        expect(declared.has(helper), `${name} offers ${helper}, which the vocabulary (and so Python) lacks`).toBe(true);
      }
    }
  });
});

/**
 * How each engine of the page's registry is reached from the command line: the flags that choose
 * it there, or why it cannot run there (said in `rlm --help`). A new engine must be added here.
 */
const CLI_ROUTES: Record<EngineId, { args: string[] } | { pageOnly: RegExp }> = {
  openai: { args: ["--base-url", "http://127.0.0.1:8000/v1", "--model", "m"] },
  // The same llama.cpp, native in the CLI's process (src/engines/llama-node/).
  wllama: { args: ["--model-file", "model.gguf"] },
  webllm: { pageOnly: /WebLLM engine needs WebGPU and runs only in the page/ },
};

describe("every engine is reachable from Settings, share links and (where it runs in Node) the CLI", () => {
  it("Settings lists the registry's engines, not a list of its own", () => {
    expect(settingsDialog).toMatch(/\{#each ENGINES as e \(e\.id\)\}/);
  });

  it.each(ENGINE_IDS.map((id) => [id]))("a share link carrying backend=%s is taken, and a share link writes it back", (id) => {
    const current = structuredClone(DEFAULT_SETTINGS);
    current.backend = ENGINE_IDS.find((other) => other !== id)!;
    const proposal = proposeFromLink(current, `?backend=${id}`);
    expect(proposal?.refused).toEqual([]);
    expect(proposal?.next.backend).toBe(id);
    expect(new URL(shareLink(proposal!.next, "http://localhost/")).searchParams.get("backend")).toBe(id);
  });

  it.each(ENGINE_IDS.map((id) => [id]))("%s is chosen by an rlm flag, or rlm --help says why not", (id) => {
    const route = CLI_ROUTES[id];
    expect(route, `add ${id} to CLI_ROUTES`).toBeDefined();
    if ("args" in route) expect(() => parseCliArgs(["--task", "q", ...route.args], {})).not.toThrow();
    else expect(HELP).toMatch(route.pageOnly);
  });
});
