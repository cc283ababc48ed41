// Every llama.cpp wasm the page serves needs WebAssembly SIMD; the probe must say so truthfully
// (Node's V8 has SIMD, so the real validate() says yes) and fail closed.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { NO_SIMD_REASON, hasWasmRelaxedSimd, hasWasmSimd } from "../../src/engines/wllama/simd.ts";

const SIMD_MODULE = fileURLToPath(new URL("../../src/engines/wllama/simd.ts", import.meta.url));

describe("hasWasmSimd", () => {
  it("is true where WebAssembly validates a SIMD module (V8)", () => {
    expect(hasWasmSimd()).toBe(true);
  });
  it("is false where the engine rejects the SIMD module, throws, or has no WebAssembly", () => {
    expect(hasWasmSimd({ validate: () => false })).toBe(false);
    expect(
      hasWasmSimd({
        validate: () => {
          throw new Error("CompileError");
        },
      }),
    ).toBe(false);
    expect(hasWasmSimd(null)).toBe(false);
  });
  it("tells the person what to do", () => {
    expect(NO_SIMD_REASON).toMatch(/update the browser/);
  });
});

describe("hasWasmRelaxedSimd", () => {
  it("asks WebAssembly about a module with relaxed SIMD's dot product, and fails closed", () => {
    expect(hasWasmRelaxedSimd({ validate: () => true })).toBe(true);
    expect(hasWasmRelaxedSimd({ validate: () => false })).toBe(false);
    expect(
      hasWasmRelaxedSimd({
        validate: () => {
          throw new Error("CompileError");
        },
      }),
    ).toBe(false);
    expect(hasWasmRelaxedSimd(null)).toBe(false);
  });

  it("probes with a module that validates only where relaxed SIMD is on (V8 with and without its flag)", () => {
    // Node 20's V8 ships relaxed SIMD behind a flag: the same probe, validated in a child Node
    // with and without it, tells a well-formed relaxed module from a plain SIMD one.
    const probe = (flags: string[]) =>
      execFileSync(
        process.execPath,
        [
          ...flags,
          "--import",
          "tsx",
          "--input-type=module",
          "-e",
          `import { hasWasmRelaxedSimd } from ${JSON.stringify(SIMD_MODULE)}; console.log(hasWasmRelaxedSimd());`,
        ],
        { encoding: "utf8" },
      ).trim();
    expect(probe(["--experimental-wasm-relaxed-simd"])).toBe("true");
    expect(probe(["--no-experimental-wasm-relaxed-simd"])).toBe("false");
  });
});
