// The production build of the WebLLM test page in plain headless Chromium, which has no WebGPU
// adapter: the user gets the no-WebGPU message (browsers and flags) before any download starts,
// and the main thread's bundle does not contain web-llm.
import { describe, expect, it } from "vitest";
import { failedLoad, useWebllmPage } from "./pages/webllm/use-page.ts";
import { expectNothingFor } from "./waits.ts";

const used = useWebllmPage("preview", { webgpu: false });

describe("WebLLM without WebGPU (production build)", () => {
  it("keeps web-llm out of the main chunk and inside the worker chunk", () => {
    const names = [...used.server.assets.keys()];
    const worker = names.find((n) => n.startsWith("model.worker-") && n.endsWith(".js"));
    const main = names.filter((n) => n.endsWith(".js") && n !== worker);
    expect(worker).toBeDefined();
    // A log line that exists only in web-llm's engine code.
    const marker = "Multiround chatting, reuse KVCache";
    expect(used.server.assets.get(worker!)).toContain(marker);
    for (const name of main) {
      expect(used.server.assets.get(name)).not.toContain(marker);
      expect(used.server.assets.get(name)!.length, name).toBeLessThan(200_000);
    }
  });

  it("the probe reports no adapter and there is no recommendation", async () => {
    const { probe, recommendation } = await used.session.page.evaluate(() => window.webllmTest.probe());
    expect(probe).toMatchObject({ available: false, reason: "no-adapter" });
    expect(recommendation).toBeNull();
  }, 60_000);

  it("loading a model fails with the no-WebGPU message, before any download", async () => {
    const result = await failedLoad(used, "Qwen2.5-Coder-3B-Instruct-q4f16_1-MLC");
    expect(result.name).toBe("WebGPUUnavailableError");
    expect(result.message).toMatch(
      /^This browser cannot run local models because WebGPU is not available \(the browser found no usable GPU adapter\)/,
    );
    for (const needle of ["Chrome or Edge 113", "chrome://flags/#enable-unsafe-webgpu", "Firefox 141", "Safari 26"]) {
      expect(result.message).toContain(needle);
    }
    expect(used.session.blocked).toEqual([]); // the GPU check comes before WebLLM fetches anything

    // A late rejection would surface after the failure: none may, in the page or the worker.
    await expectNothingFor(300, async () => {
      expect(await used.session.page.evaluate(() => window.webllmTest.problems())).toEqual({ page: [], worker: [] });
      expect(used.session.pageErrors).toEqual([]);
    });
  }, 60_000);
});
