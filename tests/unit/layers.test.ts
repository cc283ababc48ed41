import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

// The layer walls in eslint.config.js are regular expressions on import specifiers: one that
// matches nothing would pass `npm run check` for ever. Each wall is shown a crossing it must stop
// and a neighbour it must let through, as code placed at a path in that layer.
const crossings: [file: string, code: string][] = [
  ["src/core/loop.ts", `import { applyEvent } from "../app/run-view.ts";`],
  ["src/core/guards/stuck.ts", `import type { Props } from "../../ui/App.svelte";`],
  ["src/core/session.ts", `import type { SessionRecord } from "../store/index.ts";`],
  ["src/core/session.ts", `const store = await import("../store/index.ts");`],
  ["src/core/session.ts", `import { createBrowserRepl } from "../repl/browser.ts";`],
  ["src/core/session.ts", `import { lockDown } from "../../workers/shared/lockdown.ts";`],
  ["src/core/session.ts", `import { WebLLMClient } from "../engines/webllm/client.ts";`],
  ["src/core/session.ts", `import { readFile } from "node:fs/promises";`],
  ["src/core/session.ts", `import { join } from "path";`],
  ["src/core/session.ts", `import { serve } from "../node/http-fetch.ts";`],
  ["src/core/session.ts", `import source from "../../workers/python/rlm_runtime.py?raw";`],
  ["src/core/session.ts", `const worker = new Worker(new URL("./x.ts", import.meta.url));`],
  ["src/core/session.ts", `export const title = () => document.title;`],
  ["src/core/session.ts", `export const home = () => process.env.HOME;`],
  ["src/store/db.ts", `import type { Exchange } from "../app/run-view.ts";`],
  ["src/store/db.ts", `import { formatBytes } from "../ui/markdown.ts";`],
  ["src/engines/openai.ts", `import type { Settings } from "../app/settings.ts";`],
  ["src/engines/webllm/engine.ts", `import { formatBytes } from "../../ui/markdown.ts";`],
  ["workers/shared/repl-runtime.ts", `import { SessionStore } from "../../src/store/index.ts";`],
  ["workers/node/lockdown.node.ts", `import type { Settings } from "../../src/app/settings.ts";`],
  ["workers/shared/snapshot-boot.ts", `import { copyText } from "../../src/ui/copy-text.ts";`],
  // The REPL's boundary (issue 37 #2): src/repl never imports the workers, and they reach it only
  // through its messages, its worker contract and the stores both sides share.
  ["src/repl/sandbox-frame.ts", `import { portSnapshotStore } from "../../workers/browser/snapshot-store-port.ts";`],
  ["src/repl/sandbox-frame.ts", `import { browserReplWorker } from "../../workers/browser/repl-browser-api.ts";`],
  ["src/repl/sandbox-frame.ts", `const m = await import("../../workers/shared/repl-runtime.ts");`],
  ["workers/browser/repl-sandboxed.frame.ts", `import { SANDBOXED_WORKER_FILE } from "../../src/repl/messages.ts";`],
  ["workers/browser/repl-sandboxed.frame.ts", `import type { ReplClient } from "../../src/repl/client.ts";`],
  // The frame's script is the one exception, and only for the module that puts it in the frame.
  ["src/repl/browser.ts", `import { frameScript } from "../../workers/browser/repl-sandboxed.frame.ts";`],
  ["src/repl/client.ts", `const m = await import("../../workers/browser/repl-sandboxed.frame.ts");`],
  ["src/repl/node-sandbox.ts", `import type { BridgeState } from "../../workers/shared/repl-host-bridge.ts";`],
  ["src/repl/client.ts", `const m = await import("../../workers/shared/repl-runtime.ts");`],
  ["workers/shared/repl-runtime.ts", `import { ReplClient } from "../../src/repl/client.ts";`],
  ["workers/shared/repl-host-bridge.ts", `import type { ReplTransport } from "../../src/repl/types.ts";`],
  ["workers/node/repl-worker.node.mjs", `await import("../../src/app/settings.ts");`],
  ["workers/browser/render.worker.ts", `import { formatBytes } from "../../src/ui/markdown.ts";`],
  // Rooms by process (issue 37 #3): the page's workers and the runtime both processes share never
  // reach Node, and the Node sandbox's code never reaches the page's workers.
  ["workers/browser/repl-browser-api.ts", `import { fileSnapshotStore } from "../node/snapshot-store.node.ts";`],
  ["workers/browser/model.worker.ts", `import { readFileSync } from "node:fs";`],
  ["workers/browser/repl.worker.ts", `import { cachedBundle } from "../../src/node/esbuild-cache.mjs";`],
  ["workers/browser/render.worker.ts", `import { readFileSync } from "fs";`],
  ["workers/shared/repl-runtime.ts", `import { lockDownNode } from "../node/lockdown.node.ts";`],
  ["workers/shared/snapshot-boot.ts", `import { portSnapshotStore } from "../browser/snapshot-store-port.ts";`],
  ["workers/shared/shared-wasm.ts", `import { readFileSync } from "node:fs";`],
  ["workers/shared/lockdown.ts", `import { RLM_FLAGS } from "../../src/cli/flags.mjs";`],
  ["workers/node/repl-entry.node.ts", `import { RUNTIME_FILES } from "../browser/runtime-package.browser.ts";`],
  ["workers/node/repl-worker.node.mjs", `await import("../browser/repl-browser-api.ts");`],
  ["workers/node/lockdown.node.ts", `import { RLM_FLAGS } from "../../src/cli/flags.mjs";`],
  ["workers/node/repl-entry.node.ts", `import { SessionStore } from "../../src/store/index.ts";`],
  // src/cli stands on src/node, never the reverse: the two imported each other (issue 37 #3).
  ["src/node/python-sandbox.mjs", `import { RLM_FLAGS } from "../cli/flags.mjs";`],
  ["src/node/http-fetch.ts", `const { resolveCacheDir } = await import("../cli/cache-dir.mjs");`],
  ["src/ui/App.svelte", `<script lang="ts">\n  import { ReplClient } from "../repl/index.ts";\n</script>\n<p>{ReplClient.name}</p>`],
  ["src/ui/render/view.ts", `import { WebLLMClient } from "../../engines/webllm/client.ts";`],
  [
    "src/ui/Documents.svelte",
    `<script lang="ts">\n  import { SessionStore } from "../store/index.ts";\n</script>\n<p>{SessionStore.name}</p>`,
  ],
  ["src/ui/copy-text.ts", `export const w = new Worker(new URL("../../workers/browser/repl.worker.ts", import.meta.url));`],
  ["src/ui/copy-text.ts", `import { loadPyodide } from "pyodide";`],
  // Each engine is a folder of its own, and its views are held like its code (issue 37 #5).
  ["src/engines/wllama/engine.ts", `import { CATALOG } from "../webllm/catalog.ts";`],
  // Test seams come into an engine as options; none reads a global (issue 37 #5).
  ["src/engines/wllama/catalog.ts", `export const base = () => (globalThis as { __rlmTestCatalogBase?: string }).__rlmTestCatalogBase;`],
  ["src/engines/test-grammar.ts", `export const hook = () => (globalThis as { __rlmTestGrammar?: unknown }).__rlmTestGrammar;`],
  ["src/engines/llama-node/index.ts", `export const hook = (globalThis as Record<symbol, unknown>)[Symbol.for("x")];`],
  ["src/engines/webllm/host.svelte.ts", `export const hook = (window as { __rlmTestGrammar?: unknown }).__rlmTestGrammar;`],
  ["src/engines/openai/page.ts", `import { pageAssets } from "../wllama/host.svelte.ts";`],
  [
    "src/engines/webllm/Settings.svelte",
    `<script lang="ts">\n  import { CPU_CATALOG } from "../wllama/catalog.ts";\n</script>\n<p>{CPU_CATALOG.length}</p>`,
  ],
  [
    "src/engines/wllama/Settings.svelte",
    `<script lang="ts">\n  import { SessionStore } from "../../store/index.ts";\n</script>\n<p>{SessionStore.name}</p>`,
  ],
  [
    "src/engines/openai/Settings.svelte",
    `<script lang="ts">\n  import { AppController } from "../../app/controller.svelte.ts";\n</script>\n<p>{AppController.name}</p>`,
  ],
  [
    "src/engines/webllm/StartStep.svelte",
    `<script lang="ts">\n  import { copyText } from "../../ui/copy-text.ts";\n</script>\n<p>{copyText.name}</p>`,
  ],
  [
    "src/engines/wllama/StartStep.svelte",
    `<script lang="ts">\n  import { ReplClient } from "../../repl/client.ts";\n</script>\n<p>{ReplClient.name}</p>`,
  ],
];

const allowed: [file: string, code: string][] = [
  ["src/core/session.ts", `import type { ReplApi } from "../repl/types.ts";\nimport { parseCellResult } from "../repl/protocol.ts";`],
  ["src/core/session.ts", `import type { ChatEngine } from "../engines/types.ts";`],
  ["src/core/session.ts", `export function f(document: string) {\n  return document;\n}`],
  ["src/store/db.ts", `import type { RlmResult } from "../core/types.ts";`],
  ["src/engines/wllama/page.ts", `import type { EnginePage } from "../../app/engine-host.ts";`],
  [
    "src/engines/wllama/engine.ts",
    `import { EngineAbortedError } from "../errors.ts";\nimport { readGgufHeader } from "../gguf/index.ts";`,
  ],
  [
    "src/engines/wllama/Settings.svelte",
    `<script lang="ts">\n  import type { SettingsViewProps } from "../../app/engine-host.ts";\n  import { formatBytes } from "../../ui/markdown.ts";\n  import { CPU_CATALOG } from "./catalog.ts";\n  let { draft }: SettingsViewProps = $props();\n</script>\n<p>{formatBytes(CPU_CATALOG.length)} {draft}</p>`,
  ],
  ["workers/browser/render.worker.ts", `import { renderMarkdown } from "../../src/ui/render/markdown-html.ts";`],
  ["workers/shared/repl-runtime.ts", `import { parseCellResult } from "../../src/repl/protocol.ts";`],
  ["workers/shared/repl-host-bridge.ts", `import type { SubcallMessage } from "../../src/repl/messages.ts";`],
  ["workers/shared/snapshot-boot.ts", `import { SnapshotRejected } from "../../src/repl/snapshot-store.ts";`],
  ["workers/node/repl-entry.node.ts", `import { localCacheWriter } from "../../src/repl/cache-writes.node.ts";`],
  [
    "workers/node/repl-entry.node.ts",
    `import { createReplWorker } from "../shared/repl-runtime.ts";\nimport { dirname } from "node:path";`,
  ],
  ["workers/node/repl-worker.node.mjs", `import { cachedBundle } from "../../src/node/esbuild-cache.mjs";`],
  ["workers/browser/repl-browser-api.ts", `import { createReplWorker } from "../shared/repl-runtime.ts";`],
  ["workers/shared/snapshot-boot.ts", `import { checksum } from "./snapshot-format.ts";`],
  ["workers/browser/repl-sandboxed.frame.ts", `import type { PageToFrame } from "../../src/repl/messages.ts";`],
  ["src/repl/sandbox-frame.ts", `import { frameScript } from "../../workers/browser/repl-sandboxed.frame.ts";`],
  [
    "src/repl/browser.ts",
    `export const w = () => new Worker(new URL("../../workers/browser/repl.worker.ts", import.meta.url), { type: "module" });`,
  ],
  [
    "src/ui/Documents.svelte",
    `<script lang="ts">\n  import type { DocumentMeta } from "../store/index.ts";\n  let d: DocumentMeta | null = $state(null);\n</script>\n<p>{d}</p>`,
  ],
  [
    "src/ui/StartSteps.svelte",
    `<script lang="ts">\n  import { formatMB } from "../engines/webllm/index.ts";\n</script>\n<p>{formatMB(1)}</p>`,
  ],
  ["src/ui/render/render-client.ts", `export const w = new Worker(new URL("../../../workers/browser/render.worker.ts", import.meta.url));`],
  ["src/cli/prestart.mjs", `import { sandboxLaunch } from "../node/python-sandbox.mjs";`],
  ["src/node/python-sandbox.mjs", `import { BUNDLE_DIR } from "./esbuild-cache.mjs";`],
];

describe("the layer walls (eslint.config.js)", () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint();
  });

  const wallsHit = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: file });
    const fatal = result!.messages.filter((m) => m.fatal);
    expect(fatal, `${file} did not parse`).toEqual([]);
    return result!.messages.filter((m) => m.message.includes("Layer wall")).map((m) => m.ruleId);
  };

  it.each(crossings)("stops %s: %s", async (file, code) => {
    expect(await wallsHit(file, code)).not.toEqual([]);
  });

  it.each(allowed)("lets through %s: %s", async (file, code) => {
    expect(await wallsHit(file, code)).toEqual([]);
  });
});

describe("the browser tests' habit (eslint.config.js)", () => {
  it.each([
    ["tests/e2e/app.test.ts", `export const f = (page: { waitForTimeout(ms: number): Promise<void> }) => page.waitForTimeout(500);`],
    ["tests/e2e/sandbox/drive.ts", `export const f = () => new Promise((r) => setTimeout(r, 500));`],
  ])("stops a fixed sleep in %s", async (file, code) => {
    const [result] = await new ESLint().lintText(code, { filePath: file });
    expect(result!.messages.map((m) => m.message)).toEqual([expect.stringContaining("A fixed sleep in a browser test")]);
  });

  it("lets waits.ts, which names them, keep its timer", async () => {
    const [result] = await new ESLint().lintText(`export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));`, {
      filePath: "tests/e2e/waits.ts",
    });
    expect(result!.messages).toEqual([]);
  });
});
