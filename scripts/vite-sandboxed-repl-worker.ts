import { build as esbuild, type Plugin as EsbuildPlugin } from "esbuild";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";
import { SANDBOXED_WORKER_FILE } from "../src/repl/messages.ts";

// The REPL worker of the sandboxed frame (src/repl/sandbox-frame.ts) starts from a blob: URL in
// an opaque origin, where Chromium runs classic workers only: so it is built apart, as one
// self-contained classic script, by esbuild (already a dependency, for the CLI's bundle).
export function sandboxedReplWorker(): Plugin {
  const entry = fileURLToPath(new URL("../workers/browser/repl-sandboxed.worker.ts", import.meta.url));
  const rawText: EsbuildPlugin = {
    name: "raw-text",
    setup(b) {
      b.onResolve({ filter: /\?raw$/ }, (a) => ({ path: `${a.resolveDir}/${a.path.replace(/\?raw$/, "")}`, namespace: "raw" }));
      b.onLoad({ filter: /.*/, namespace: "raw" }, async (a) => ({ contents: await readFile(a.path, "utf8"), loader: "text" }));
    },
  };
  const bundle = async (minify: boolean) => {
    const result = await esbuild({
      entryPoints: [entry],
      bundle: true,
      format: "iife",
      platform: "browser",
      target: "es2022",
      minify,
      write: false,
      // Pyodide's Node-only branches import these; a browser never takes them.
      external: ["node:*"],
      plugins: [rawText],
      logLevel: "error",
    });
    return result.outputFiles[0]!.text;
  };
  return {
    name: "sandboxed-repl-worker",
    configureServer: (server) =>
      void server.middlewares.use((req, res, next) => {
        if (req.url?.split("?")[0] !== `/${SANDBOXED_WORKER_FILE}`) return next();
        bundle(false).then(
          (code) => {
            res.setHeader("Content-Type", "text/javascript");
            res.end(code);
          },
          (err: unknown) => next(err),
        );
      }),
    async generateBundle() {
      this.emitFile({ type: "asset", fileName: SANDBOXED_WORKER_FILE, source: await bundle(true) });
    },
  };
}
