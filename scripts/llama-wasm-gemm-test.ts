// Runs the gemm-test modules that scripts/llama-wasm-gemm-test.sh built (simd and relaxed) in
// real browsers (Chromium, Firefox: both validate relaxed SIMD; WebKitGTK does not, so it gets
// only the SIMD128 module), one page and one thread per engine, alternating simd and relaxed for
// the given number of rounds, and prints every line they print. Exits non-zero unless every run
// printed PASS. The relaxed dot product has to be tested in a browser: Node 20's V8 computes it
// wrongly.
// Usage: node --import tsx scripts/llama-wasm-gemm-test.ts <dir with gemm-test-*.js> [rounds] [engines]
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join, normalize } from "node:path";
import { launchEngine, missingEngine, waitForFunction, type EngineName } from "../tests/e2e/engines/index.ts";

const [dir, roundsArg, enginesArg] = process.argv.slice(2);
if (!dir) throw new Error("usage: llama-wasm-gemm-test.ts <dir> [rounds] [chromium,firefox,webkit]");
const rounds = Number(roundsArg ?? 2);
const engines = (enginesArg ?? "chromium,firefox").split(",") as EngineName[];

const page = `<!doctype html><meta charset="utf-8"><title>gemm-test</title>
<script src="gemm-test-simd.js"></script><script src="gemm-test-relaxed.js"></script><body>`;
const server = createServer((req, res) => {
  const name = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(/^\/+/, "");
  if (name === "" || name === "index.html") {
    res.writeHead(200, { "content-type": "text/html" }).end(page);
    return;
  }
  readFile(join(dir, name)).then(
    (body) => res.writeHead(200, { "content-type": name.endsWith(".wasm") ? "application/wasm" : "text/javascript" }).end(body),
    () => res.writeHead(404).end(),
  );
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

let failed = false;
try {
  for (const engine of engines) {
    const missing = missingEngine(engine);
    if (missing) {
      console.log(`${engine}: not run (${missing})`);
      continue;
    }
    const browser = await launchEngine(engine);
    try {
      const tab = await browser.newPage();
      await tab.goto(url);
      await waitForFunction(tab, () => "gemmTest_simd" in window, undefined, { timeout: 60_000, what: "the test modules" });
      // the same probe as src/engines/wllama/simd.ts: one i16x8.relaxed_dot_i8x16_i7x16_s
      const relaxed = await tab.evaluate(() =>
        WebAssembly.validate(
          new Uint8Array([
            0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 15, 1, 13, 0, 65, 0, 253, 17, 65, 0, 253, 17, 253, 146, 2,
            11,
          ]),
        ),
      );
      console.log(`=== ${browser.version}: relaxed SIMD validates: ${relaxed}`);
      const variants = relaxed ? ["simd", "relaxed"] : ["simd"];
      for (let round = 1; round <= rounds; round++) {
        for (const variant of round % 2 ? variants : [...variants].reverse()) {
          const lines = await tab.evaluate(
            (v: string) =>
              new Promise<string[]>((resolve) => {
                const out: string[] = [];
                const factory = (window as unknown as Record<string, (m: object) => Promise<unknown>>)[`gemmTest_${v}`]!;
                factory({
                  print: (s: string) => out.push(s),
                  printErr: (s: string) => out.push(`stderr: ${s}`),
                  onExit: () => resolve(out),
                  onAbort: (e: unknown) => resolve([...out, `ABORT: ${String(e)}`]),
                }).catch((e: unknown) => resolve([...out, `ERROR: ${String(e)}`]));
              }),
            variant,
          );
          console.log(`--- ${engine}, round ${round}, ${variant}`);
          for (const line of lines) console.log(line);
          if (lines.at(-1) !== "PASS") failed = true;
        }
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  server.close();
}
process.exit(failed ? 1 : 0);
