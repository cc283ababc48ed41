#!/usr/bin/env node
// Runs the gemm-test modules that scripts/llama-wasm-gemm-test.sh built (simd and relaxed) in
// headless Chromium, one page, one thread, alternating simd and relaxed for the given number of
// rounds, and prints every line they print. Exits non-zero unless every run printed PASS.
// Usage: node scripts/llama-wasm-gemm-test.mjs <dir with gemm-test-*.js> [rounds]
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { join, normalize } from "node:path";
import { chromium } from "playwright-core";

const dir = process.argv[2];
const rounds = Number(process.argv[3] ?? 2);
if (!dir) {
  console.error("usage: llama-wasm-gemm-test.mjs <dir> [rounds]");
  process.exit(2);
}

const page = `<!doctype html><meta charset="utf-8"><script src="gemm-test-simd.js"></script>
<script src="gemm-test-relaxed.js"></script><body>`;
const server = createServer(async (req, res) => {
  const name = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^\/+/, "");
  if (name === "" || name === "index.html") {
    res.writeHead(200, { "content-type": "text/html" }).end(page);
    return;
  }
  try {
    const body = await readFile(join(dir, name));
    const type = name.endsWith(".wasm") ? "application/wasm" : "text/javascript";
    res.writeHead(200, { "content-type": type }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless=new", "--no-sandbox"],
});
let failed = false;
try {
  const tab = await browser.newPage();
  await tab.goto(url);
  console.log(`Chromium ${browser.version()}, relaxed SIMD validates: ${await tab.evaluate(relaxedValidates)}`);
  for (let round = 1; round <= rounds; round++) {
    for (const variant of round % 2 ? ["simd", "relaxed"] : ["relaxed", "simd"]) {
      const lines = await tab.evaluate(
        (v) =>
          new Promise((resolve, reject) => {
            const out = [];
            globalThis[`gemmTest_${v}`]({
              print: (s) => out.push(s),
              printErr: (s) => out.push(`stderr: ${s}`),
              onExit: () => resolve(out),
              onAbort: (e) => reject(new Error(`${v} aborted: ${e}\n${out.join("\n")}`)),
            }).catch(reject);
          }),
        variant,
      );
      console.log(`--- round ${round}, ${variant}`);
      for (const line of lines) console.log(line);
      if (lines.at(-1) !== "PASS") failed = true;
    }
  }
} finally {
  await browser.close();
  server.close();
}
process.exit(failed ? 1 : 0);

// A module with one i16x8.relaxed_dot_i8x16_i7x16_s (0xfd 0x112): what the page's worker asks.
function relaxedValidates() {
  return WebAssembly.validate(
    new Uint8Array([
      0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 15, 1, 13, 0, 65, 0, 253, 17, 65, 0, 253, 17, 253, 146, 2, 11,
    ]),
  );
}
