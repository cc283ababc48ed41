import { svelte } from "@sveltejs/vite-plugin-svelte";
import { configDefaults, defineConfig } from "vitest/config";
import { e2eFiles, laneFromEnv } from "./tests/lanes.ts";

// `npm test` runs two vitest processes and tells each its lane; a plain run gets every file.
const e2e = e2eFiles(laneFromEnv());

// Three kinds of tests, named by what they need: pure TypeScript, real Pyodide in Node, and
// real Chromium against a built app.
export default defineConfig({
  // Vitest's results cache, out of node_modules like every cache (see src/node/esbuild-cache.mjs).
  cacheDir: ".cache/vite",
  test: {
    // The default report, then the ten slowest files, so every CI log shows where the time went.
    reporters: ["default", "./tests/reporters/slowest-files.ts"],
    projects: [
      {
        // The page's controller uses Svelte runes ($state) in .svelte.ts modules: compile them,
        // with the browser build of Svelte so state behaves as on the page.
        plugins: [svelte()],
        resolve: { conditions: ["browser"] },
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          // A few unit tests do real work (write an 11 MB GGUF, measure 100 MB of text, run eslint):
          // seconds alone, several times that on a busy machine. Generous limits, not flaky ones.
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Every core: vitest's default leaves one free, which on a 2-core machine is one file at
          // a time. Measured on a shared 2-core machine at load ~30, an e2e file running beside:
          // 318 s with the default, 135 s with two workers, the same results (issue 38).
          maxWorkers: "100%",
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "node",
          include: ["tests/node/**/*.test.ts"],
          environment: "node",
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // JSPI in Node 20 needs this flag; tests of the SharedArrayBuffer path force that mode.
          execArgv: ["--experimental-wasm-stack-switching"],
        },
      },
      {
        test: {
          name: "e2e",
          // `npm test` splits these files between its two lanes (tests/lanes.ts).
          include: e2e.include,
          exclude: [...configDefaults.exclude, ...e2e.exclude],
          environment: "node",
          // One browser file at a time in each vitest process. `npm test` runs two processes
          // (scripts/test-all.ts): lane A browser files only, lane B unit + node and then the
          // browser files tests/lanes.ts names, so two browser files run at once at most.
          // Measured on the shared 2-core machine (load 10-18): 4 e2e files + 6 node files took
          // 557 s one after the other, 366 s side by side, the Stop tests green (issue 38).
          sequence: { groupOrder: 2 },
          testTimeout: 240_000,
          hookTimeout: 300_000,
          // expect.poll waits on what the page shows; its default second is less than a smooth
          // scroll or a re-render takes on a loaded machine (two reading-experience checks failed
          // so in a fresh-clone run at load ~10). A poll ends as soon as it holds.
          expect: { poll: { timeout: 15_000 } },
          fileParallelism: false,
        },
      },
    ],
  },
});
