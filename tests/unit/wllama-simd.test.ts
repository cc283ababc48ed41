// Every llama.cpp wasm the page serves needs WebAssembly SIMD; the probe must say so truthfully
// (Node's V8 has SIMD, so the real validate() says yes) and fail closed.
import { describe, expect, it } from "vitest";
import { NO_SIMD_REASON, hasWasmSimd } from "../../src/engines/wllama/simd.ts";

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
