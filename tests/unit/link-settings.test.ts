// Settings from a page link are a proposal: what would change, what was refused and why, and
// never a saved key carried to another origin.
import { describe, expect, it } from "vitest";
import { LINK_PARAMS, proposeFromLink, shareLink, withoutLinkParams } from "../../src/app/link-settings.ts";
import { DEFAULT_SETTINGS, apiKeyFor, describeEndpoint, loadSettings, originOf, type Settings } from "../../src/app/settings.ts";

function saved(patch: Partial<Settings["openai"]> = {}): Settings {
  const s = structuredClone(DEFAULT_SETTINGS);
  s.backend = "openai";
  Object.assign(
    s.openai,
    { baseUrl: "https://mine.example/v1", model: "qwen", apiKey: "sk-mine", apiKeyOrigin: "https://mine.example" },
    patch,
  );
  return s;
}

describe("API keys belong to an origin", () => {
  it("is sent to the origin it was entered for, and to no other", () => {
    const s = saved();
    expect(apiKeyFor(s.openai)).toBe("sk-mine");
    expect(apiKeyFor({ ...s.openai, baseUrl: "https://mine.example/other/v1" })).toBe("sk-mine");
    expect(apiKeyFor({ ...s.openai, baseUrl: "https://evil.example/v1" })).toBe("");
    expect(apiKeyFor({ ...s.openai, baseUrl: "http://mine.example/v1" })).toBe(""); // another scheme is another origin
    expect(apiKeyFor({ ...s.openai, baseUrl: "https://mine.example:444/v1" })).toBe("");
    expect(apiKeyFor({ ...s.openai, baseUrl: "not a url" })).toBe("");
    expect(apiKeyFor({ ...s.openai, apiKeyOrigin: "" })).toBe("");
  });

  it("settings saved before keys had an origin: the key belongs to the saved base URL", () => {
    const old = { backend: "openai", openai: { baseUrl: "http://gpu-box:8000/v1", model: "m", apiKey: "sk-old" } };
    const s = loadSettings({ getItem: () => JSON.stringify(old) });
    expect(s.openai.apiKeyOrigin).toBe("http://gpu-box:8000");
    expect(apiKeyFor(s.openai)).toBe("sk-old");
  });

  it("origins are only http(s)", () => {
    expect(originOf("javascript:alert(1)")).toBe("");
    expect(originOf("file:///etc/passwd")).toBe("");
    expect(originOf(" https://a.example:8443/v1 ")).toBe("https://a.example:8443");
  });

  it("describes where questions go", () => {
    expect(describeEndpoint(saved())).toEqual({ origin: "https://mine.example", model: "qwen" });
    expect(describeEndpoint({ ...saved(), backend: "webllm" }).origin).toBe("this browser");
  });
});

describe("a link's settings", () => {
  it("carries none: no proposal", () => {
    expect(proposeFromLink(saved(), "?view=benchmark&replSync=sab")).toBeNull();
    expect(proposeFromLink(saved(), "")).toBeNull();
  });

  it("naming another endpoint: shown as a change of endpoint, and the key stays behind", () => {
    const current = saved();
    const p = proposeFromLink(current, "?backend=openai&baseUrl=http://attacker.example:9000/v1&model=evil")!;
    expect(p.endpoint).toEqual({ from: "https://mine.example", to: "http://attacker.example:9000", changed: true });
    expect(p.keyWithheld).toBe(true);
    expect(apiKeyFor(p.next.openai)).toBe("");
    expect(p.changes.map((c) => [c.key, c.from, c.to])).toEqual([
      ["baseUrl", "https://mine.example/v1", "http://attacker.example:9000/v1"],
      ["model", "qwen", "evil"],
    ]);
    expect(current.openai.baseUrl).toBe("https://mine.example/v1"); // nothing applied
  });

  it("on the same endpoint: the key still applies, and only real changes are listed", () => {
    const p = proposeFromLink(saved(), "?backend=openai&baseUrl=https://mine.example/v1&model=qwen&maxIterations=7")!;
    expect(p.endpoint.changed).toBe(false);
    expect(p.keyWithheld).toBe(false);
    expect(apiKeyFor(p.next.openai)).toBe("sk-mine");
    expect(p.changes.map((c) => c.key)).toEqual(["maxIterations"]);
  });

  it("refuses invalid values with the reason, and never reads a key from a link", () => {
    const p = proposeFromLink(
      saved(),
      "?backend=ollama&baseUrl=javascript:alert(1)&maxIterations=abc&maxDepth=9&temperature=NaN&topP=2&seed=1.5&compare=maybe&apiKey=sk-evil&model=%E2%80%AEevil",
    )!;
    const why = Object.fromEntries(p.refused.map((r) => [r.key, r.why]));
    expect(Object.keys(why).sort()).toEqual([
      "apiKey",
      "backend",
      "baseUrl",
      "compare",
      "maxDepth",
      "maxIterations",
      "model",
      "seed",
      "temperature",
      "topP",
    ]);
    expect(why.baseUrl).toMatch(/not an http/);
    expect(why.maxDepth).toMatch(/from 1 to 3/);
    expect(why.apiKey).toMatch(/never taken from links/);
    expect(p.refused.find((r) => r.key === "apiKey")!.value).toBe("(hidden)");
    expect(p.changes).toEqual([]);
    expect(p.next).toEqual(saved());
  });

  it("a base URL with credentials is refused", () => {
    const p = proposeFromLink(saved(), "?baseUrl=https://user:pw@mine.example/v1")!;
    expect(p.refused[0]).toMatchObject({ key: "baseUrl", why: expect.stringMatching(/user name or password/) });
  });

  it("a local model that is not in the catalog is refused", () => {
    const local = structuredClone(DEFAULT_SETTINGS);
    const p = proposeFromLink(local, "?backend=webllm&model=not-a-real-model")!;
    expect(p.refused.map((r) => r.key)).toEqual(["model"]);
  });

  it("says what changes in people's words, and never calls a value the app asks the server for unset", () => {
    const local = structuredClone(DEFAULT_SETTINGS);
    const p = proposeFromLink(local, "?backend=openai&baseUrl=http://gpu-box:8000/v1&model=qwen&mode=rlm&prompt=guided&compare=1")!;
    const rows = Object.fromEntries(p.changes.map((c) => [c.key, `${c.from} → ${c.to}`]));
    expect(rows.backend).toBe("In this browser, on the GPU (WebLLM, WebGPU) → OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp…)");
    expect(rows.mode).toBe("Auto (direct if it fits) → Always RLM");
    expect(rows.prompt).toBe("Auto (from the model) → Guided (≤ 4B models)");
    expect(rows.compare).toBe("no → yes");
    expect(rows.contextWindow).toMatch(/→ asked from the server$/);
    for (const c of p.changes) expect(`${c.from} ${c.to}`).not.toMatch(/not set|webllm|openai/);
  });

  it("switching to the local backend still shows a changed base URL", () => {
    const p = proposeFromLink(saved(), "?backend=webllm&baseUrl=http://attacker.example/v1")!;
    expect(p.changes.map((c) => c.key)).toEqual(expect.arrayContaining(["backend", "baseUrl"]));
  });

  it("leaves the address bar with only what is not a setting", () => {
    const href = "http://app.example/?backend=openai&baseUrl=http%3A%2F%2Fx&apiKey=k&model=m&view=benchmark&replSync=sab#top";
    expect(withoutLinkParams(href)).toBe("http://app.example/?view=benchmark&replSync=sab#top");
    expect(LINK_PARAMS).toContain("apiKey");
  });

  it("a share link round-trips as a proposal with no changes, and never holds the key", () => {
    const s = saved();
    s.run.maxIterations = 9;
    s.run.temperature = 0.3;
    const link = shareLink(s, "http://app.example/?old=1");
    expect(link).not.toContain("sk-mine");
    expect(link).not.toContain("old=1");
    const p = proposeFromLink(s, new URL(link).search)!;
    expect(p.changes).toEqual([]);
    expect(p.refused).toEqual([]);
    expect(proposeFromLink(DEFAULT_SETTINGS, new URL(link).search)!.changes.map((c) => c.key)).toEqual(
      expect.arrayContaining(["backend", "baseUrl", "model", "maxIterations", "temperature"]),
    );
  });
});
