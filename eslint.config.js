// The layers of docs/architecture.md, as rules a change cannot quietly break, plus a handful of
// correctness rules. Style is prettier's job: nothing here is about layout.
//
// The walls are `no-restricted-imports` patterns (typescript-eslint's version, for
// `allowTypeImports`) rather than a resolver-based import plugin: this project imports across
// folders only by relative path (no aliases), so a folder is always reached as `../…/name/`,
// and one regular expression per wall says it. Dynamic `import()` and `new Worker(…)` are not
// import declarations, so the same expressions also feed `no-restricted-syntax`, and the
// globals a layer may not touch go to `no-restricted-globals`.
import { builtinModules } from "node:module";
import svelte from "eslint-plugin-svelte";
import tseslint from "typescript-eslint";

/** A specifier that climbs out of the importing folder and enters `path` (under src/ or the root). */
const into = (path) => `^(\\.\\./)+(src/)?(${path})`;

/**
 * Test seams read from globals (a `__rlm…` property, a `Symbol.for` key) have no place in engine
 * code: an engine takes them as options, and the page or the command line reads them once
 * (src/app/test-seams.ts, src/cli/test-hook.ts). Issue 37 #5.
 */
const NO_TEST_GLOBALS = [
  "MemberExpression[property.name=/^__rlm/]",
  "CallExpression[callee.object.name='Symbol'][callee.property.name='for']",
];

/** Node's builtin modules, by either name (`node:fs`, `fs`). */
const NODE_BUILTINS = "^(node:|(" + builtinModules.join("|").replaceAll("/", "\\/") + ")(/|$))";

/**
 * What every worker keeps to: nothing of the page (its state, views, storage), and of src/repl
 * only its boundary (issue 37 #2): the messages, the worker's call contract, and the two snapshot
 * stores the host and the worker share.
 */
const WORKER_IMPORTS = [into("app|ui|store") + "/", into("repl") + "/(?!(messages|protocol|snapshot-store|cache-writes\\.node)\\.ts$)"];

/** The engines that are folders of their own (src/engines/<engine>/, each with a registry entry). */
const ENGINES = ["llama-node", "openai", "webllm", "wllama"];

/**
 * One wall: the files it holds, what they may not import (regexes on the specifier), the globals
 * they may not touch, any other syntax they may not use (esquery selectors), and why (the message
 * a violation prints).
 */
const walls = [
  {
    name: "src/core runs in the browser and in Node: no DOM, no page, no storage, no workers, nothing Node-only",
    files: ["src/core/**/*.ts"],
    imports: [
      into("app|ui|store|cli|node|bench|ingest|viewer|security") + "/",
      into("workers") + "/",
      // The REPL's pure half (its protocol and types) is shared; its transports start workers,
      // frames and processes.
      into("repl") + "/(?!(protocol|types)\\.ts$)",
      // WebLLM's client side starts the model worker and probes WebGPU.
      into("engines/webllm") + "/",
      NODE_BUILTINS,
      "^(pyodide|@mlc-ai/web-llm|comlink)(/|$)",
      // Vite's ?worker / ?url / ?raw suffixes mean nothing to Node, where the core also runs.
      "\\?",
    ],
    globals: [
      ...["window", "document", "navigator", "location", "localStorage", "sessionStorage", "indexedDB", "caches"],
      ...["Worker", "SharedWorker", "importScripts", "postMessage", "self", "HTMLElement", "Element", "requestAnimationFrame"],
      ...["MutationObserver", "IntersectionObserver", "ResizeObserver", "getComputedStyle", "alert", "confirm"],
      ...["process", "Buffer", "require", "module", "__dirname", "__filename", "global", "setImmediate"],
    ],
  },
  {
    name: "src/store keeps what the core produces: it does not import the page (src/app) or its views (src/ui)",
    files: ["src/store/**/*.ts"],
    imports: [into("app|ui") + "/"],
  },
  {
    // The page's half of an engine (its Settings view, start step and host, when an engine is a
    // folder of its own) is the page's by definition, so it may import src/app and src/ui.
    name: "src/engines speaks to models; the page uses it, not the other way round (no src/app, no src/ui)",
    files: ["src/engines/**/*.ts"],
    ignores: ["src/engines/*/page.ts", "src/engines/*/host.svelte.ts"],
    imports: [into("app|ui") + "/"],
    syntax: NO_TEST_GLOBALS,
  },
  // Each engine is a folder of its own (issue 37 #5): what two engines share lives beside them
  // (errors.ts, types.ts, descriptor.ts, gguf/), never in one engine that another reaches into.
  // A file matched by two walls keeps the later one's rule, so each of these restates the wall
  // above for its files and adds the fence between engines.
  ...ENGINES.flatMap((engine) => {
    const others = `^(\\.\\./)+(engines/)?(${ENGINES.filter((other) => other !== engine).join("|")})/`;
    const page = [`src/engines/${engine}/page.ts`, `src/engines/${engine}/host.svelte.ts`];
    return [
      {
        name: `src/engines/${engine}/ speaks to models: no src/app, no src/ui, no other engine's folder`,
        files: [`src/engines/${engine}/**/*.ts`],
        ignores: page,
        imports: [into("app|ui") + "/", others],
        syntax: NO_TEST_GLOBALS,
      },
      {
        name: `src/engines/${engine}/'s page half (page.ts, its host) never imports another engine's folder`,
        files: page,
        imports: [others],
        syntax: NO_TEST_GLOBALS,
      },
      {
        // An engine's own views (Settings, StartStep) are the page's half of that engine, as its
        // page.ts and host are: they read the host contract's types (src/app/engine-host.ts) and
        // the page's formats (src/ui/markdown.ts), nothing else of the page, nothing of the
        // store, the REPL or the workers.
        name: `src/engines/${engine}/'s views use src/app's types and src/ui/markdown.ts only: no store, REPL, worker or other engine's folder`,
        files: [`src/engines/${engine}/**/*.svelte`],
        imports: [
          into("store|repl|workers|cli|node|bench") + "/",
          into("ui") + "/(?!markdown\\.ts$)",
          "^(pyodide|@mlc-ai/web-llm|comlink|idb)(/|$)",
          others,
        ],
        typeOnly: [into("app") + "/"],
        globals: ["Worker", "SharedWorker", "indexedDB"],
        syntax: NO_TEST_GLOBALS,
      },
    ];
  }),
  {
    // Model-written code runs in these modules' process: nothing of the page may be reachable
    // from it. Every other worker keeps to the same wall, except that the render worker
    // formats markdown with the page's own renderer (src/ui/render).
    // They reach src/repl through its boundary alone (issue 37 #2): the messages and the worker's
    // call contract, and the two snapshot stores the host and the worker share.
    name: "the workers (above all the REPL's: repl*, lockdown*, snapshot-*, the Python glue) never import src/app, src/ui or src/store, and of src/repl only messages.ts, protocol.ts, snapshot-store.ts and cache-writes.node.ts",
    files: ["workers/**/*.{ts,mts,mjs}"],
    ignores: ["workers/browser/render.worker.ts"],
    imports: WORKER_IMPORTS,
  },
  // Rooms by process (issue 37 #3). Each restates the wall above for its files (the later wall's
  // rule wins) and adds the rooms it may not enter. `into("node")` matches both the sibling
  // `../node/` and `../../src/node/`.
  {
    name: "workers/browser/ runs in the page's workers: no Node builtin, nothing of workers/node/, src/node or src/cli (and the workers' wall)",
    files: ["workers/browser/**/*.{ts,mts,mjs}"],
    ignores: ["workers/browser/render.worker.ts"],
    imports: [...WORKER_IMPORTS, into("node|cli") + "/", NODE_BUILTINS],
  },
  {
    // The frame runs the source text of this module's functions (src/repl/sandbox-frame.ts), so a
    // value it imported would not be there; and importing only types, it never brings src/repl
    // back round through the exception below.
    name: "workers/browser/repl-sandboxed.frame.ts runs as its own source text in the frame: type imports only (and the workers' walls)",
    files: ["workers/browser/repl-sandboxed.frame.ts"],
    imports: [...WORKER_IMPORTS, into("node|cli") + "/", NODE_BUILTINS],
    syntax: ["ImportDeclaration[importKind!='type']", "ImportExpression"],
  },
  {
    name: "workers/node/ runs in the CLI's sandbox process: nothing of workers/browser/ or src/cli (and the workers' wall)",
    files: ["workers/node/**/*.{ts,mts,mjs}"],
    imports: [...WORKER_IMPORTS, into("browser|cli") + "/"],
  },
  {
    name: "workers/shared/ runs in both: no Node builtin, nothing of workers/browser/, workers/node/, src/node or src/cli (and the workers' wall)",
    files: ["workers/shared/**/*.{ts,mts,mjs}"],
    imports: [...WORKER_IMPORTS, into("browser|node|cli") + "/", NODE_BUILTINS],
  },
  {
    // The other half of the boundary: what the workers build on never builds on them, so the
    // folders do not import each other in a circle. Starting a worker names its entry file in
    // `new Worker(new URL(…))`, which is not an import.
    name: "src/repl (the REPL's host side and its message boundary) never imports workers/",
    files: ["src/repl/**/*.ts"],
    imports: [into("workers") + "/"],
  },
  {
    // The one exception, for one file and one module: the sandboxed frame's script lives beside
    // the worker it starts (rooms by process, issue 37 #3), yet the page pastes its source text
    // into the frame's srcdoc, so the page's side must import it. That script imports only types
    // (a wall above), so no module cycle comes back. The later wall's rule wins.
    name: "src/repl/sandbox-frame.ts imports of workers/ only the frame's own script (workers/browser/repl-sandboxed.frame.ts)",
    files: ["src/repl/sandbox-frame.ts"],
    imports: [into("workers") + "/(?!browser/repl-sandboxed\\.frame\\.ts$)"],
  },
  {
    name: "the render worker may use the page's renderer (src/ui/render), nothing else of the page",
    files: ["workers/browser/render.worker.ts"],
    imports: [into("app|store") + "/", into("ui") + "/(?!render/)", into("node|cli") + "/", NODE_BUILTINS],
  },
  {
    // The CLI stands on the Node plumbing; the plumbing takes what it needs as arguments, so the
    // two never import each other in a circle (issue 37 #3).
    name: "src/node is the plumbing under src/cli: it never imports src/cli",
    files: ["src/node/**/*.{ts,mts,mjs}"],
    imports: [into("cli") + "/"],
  },
  {
    // Components read the controller's state and call its methods. Types of stored records are
    // fine (`import type`); values from src/store would be IndexedDB itself.
    name: "src/ui talks to Pyodide, WebLLM, workers and IndexedDB only through the controller (src/app)",
    files: ["src/ui/**/*.{ts,svelte}"],
    imports: [into("repl|workers") + "/", into("engines/webllm") + "/(?!index\\.ts$)", "^(pyodide|@mlc-ai/web-llm|comlink|idb)(/|$)"],
    typeOnly: [into("store") + "/"],
    globals: ["Worker", "SharedWorker", "indexedDB"],
  },
  {
    // The one worker a component owns: the markdown renderer (src/ui/render/render-client.ts).
    name: "src/ui/render/render-client.ts starts the render worker",
    files: ["src/ui/render/render-client.ts"],
    imports: [into("repl|workers") + "/", "^(pyodide|@mlc-ai/web-llm|idb)(/|$)"],
    typeOnly: [into("store") + "/"],
    globals: ["SharedWorker", "indexedDB"],
  },
];

const wallConfigs = walls.map((wall) => {
  const message = `Layer wall: ${wall.name} (docs/architecture.md).`;
  const patterns = [
    ...wall.imports.map((regex) => ({ regex, message })),
    ...(wall.typeOnly ?? []).map((regex) => ({ regex, message, allowTypeImports: true })),
  ];
  // esquery's /regex/ ends at the first slash, escaped or not: spell slashes as \x2F there.
  const dynamic = [...wall.imports, ...(wall.typeOnly ?? [])].map((regex) => ({
    selector: `ImportExpression[source.value=/${regex.replaceAll("\\/", "/").replaceAll("/", "\\x2F")}/]`,
    message,
  }));
  return {
    name: `layers: ${wall.files.join(", ")}`,
    files: wall.files,
    ...(wall.ignores ? { ignores: wall.ignores } : {}),
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", { patterns }],
      "no-restricted-syntax": ["error", ...dynamic, ...(wall.syntax ?? []).map((selector) => ({ selector, message }))],
      ...(wall.globals ? { "no-restricted-globals": ["error", ...wall.globals.map((name) => ({ name, message }))] } : {}),
    },
  };
});

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      // Caches (CLI bundles, the tiny GGUF, Vite's): kept out of node_modules (src/node/esbuild-cache.mjs).
      ".cache/",
      "dist/",
      "dist-alt/",
      "public/pyodide/",
      // Copied from node_modules by the build (scripts/copy-wllama.mjs), like Pyodide.
      "public/wllama/",
      // Our llama.cpp build's Emscripten glue, generated by scripts/build-llama-wasm.sh.
      "vendor/",
      "bench/out/",
      "test-results/",
      // Generated from web-llm's catalog by scripts/extract-webllm-catalog.mjs.
      "src/engines/webllm/catalog.generated.ts",
    ],
  },
  {
    // Parsers only: the plugins' recommended sets restyle code, which is prettier's business.
    files: ["**/*.{ts,mts,js,mjs,svelte}"],
    languageOptions: { parser: tseslint.parser, ecmaVersion: "latest", sourceType: "module" },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // Correctness: each of these is a bug when it fires, and the tree passes them.
      "no-debugger": "error",
      "no-cond-assign": "error",
      "no-self-assign": "error",
      "no-self-compare": "error",
      "no-unsafe-finally": "error",
      "no-unreachable-loop": "error",
      "no-constant-binary-expression": "error",
      "no-async-promise-executor": "error",
      "no-dupe-else-if": "error",
      "no-duplicate-case": "error",
      "no-sparse-arrays": "error",
      "no-unsafe-optional-chaining": "error",
      "no-loss-of-precision": "error",
      "no-empty-character-class": "error",
      "no-invalid-regexp": "error",
      "no-misleading-character-class": "error",
      "no-template-curly-in-string": "error",
      "no-var": "error",
      "@typescript-eslint/ban-ts-comment": ["error", { "ts-expect-error": "allow-with-description" }],
      // What nothing reads is deleted, not kept "for later" (issue 37 #5). tsc's noUnusedLocals /
      // noUnusedParameters say the same for .ts files; this also covers .svelte and .mjs. A
      // parameter a signature needs but the body does not read is named with a leading "_".
      "@typescript-eslint/no-unused-vars": [
        "error",
        { args: "after-used", argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true },
      ],
    },
  },
  ...svelte.configs.base,
  {
    files: ["**/*.svelte", "**/*.svelte.ts"],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  ...wallConfigs,
  {
    // A habit kept by a wall: a browser test waits on what the page shows (waitUntil, or
    // Playwright's own waits), or says it proves that nothing happens (expectNothingFor); a fixed
    // sleep is too short on a busy machine and too long on an idle one. Both live in waits.ts.
    name: "browser tests: no fixed sleeps, no unscoped document picker",
    files: ["tests/e2e/**/*.ts"],
    ignores: ["tests/e2e/waits.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        ...[
          "CallExpression[callee.property.name='waitForTimeout']",
          "NewExpression[callee.name='Promise'] CallExpression[callee.name='setTimeout']",
        ].map((selector) => ({
          selector,
          message: "A fixed sleep in a browser test: wait on what the page shows (waitUntil) or use expectNothingFor (tests/e2e/waits.ts).",
        })),
        // getByLabel matches any label that contains its text: "Document" also found the Settings
        // dialog's "When the model cannot drive a document…" select, and a test failed whenever that
        // dialog was still open (issue 38). The picker has one scoped helper.
        ...[
          "CallExpression[callee.property.name='getByLabel'][arguments.0.value=/document/i]",
          "CallExpression[callee.property.name='getByLabel'][arguments.0.regex.pattern=/document/i]",
          "CallExpression[callee.property.name='getByLabel'][arguments.0.type='TemplateLiteral']",
        ].map((selector) => ({
          selector,
          message:
            "An unscoped document locator in a browser test: use documentInput(page) (tests/e2e/harness.ts), or scope getByLabel to its region or dialog with a literal, exact name.",
        })),
      ],
    },
  },
);
