// Reads a WebAssembly binary far enough to find each defined function's body by its name (the
// "name" custom section) and to list the SIMD instructions in it. Used by the test that checks the
// shipped llama.cpp build really runs ggml's SIMD128 kernels (issue 33): a build made without
// -DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm links ggml's generic C dot products under the same names.

/** @param {Uint8Array} bytes @param {{ at: number }} pos */
function leb(bytes, pos) {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[pos.at++];
    if (b === undefined) throw new Error("truncated LEB128 in wasm");
    result += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if ((b & 0x80) === 0) return result;
  }
}

/** @param {Uint8Array} bytes @param {{ at: number }} pos */
function name(bytes, pos) {
  const len = leb(bytes, pos);
  const text = new TextDecoder().decode(bytes.subarray(pos.at, pos.at + len));
  pos.at += len;
  return text;
}

/** Number of imported functions (they come first in the function index space). */
function importedFunctions(bytes, start, end) {
  const pos = { at: start };
  const count = leb(bytes, pos);
  let functions = 0;
  for (let i = 0; i < count && pos.at < end; i++) {
    name(bytes, pos);
    name(bytes, pos);
    const kind = bytes[pos.at++];
    if (kind === 0) {
      leb(bytes, pos); // type index
      functions++;
    } else if (kind === 1) {
      pos.at++; // reference type
      const flags = leb(bytes, pos);
      leb(bytes, pos);
      if (flags & 1) leb(bytes, pos);
    } else if (kind === 2) {
      const flags = leb(bytes, pos);
      leb(bytes, pos);
      if (flags & 1) leb(bytes, pos);
    } else if (kind === 3) {
      pos.at += 2; // value type, mutability
    } else if (kind === 4) {
      pos.at++;
      leb(bytes, pos);
    } else throw new Error(`unknown import kind ${kind}`);
  }
  return functions;
}

/**
 * Bodies of the defined functions, by name.
 * @param {Uint8Array} bytes
 * @returns {Map<string, Uint8Array>}
 */
export function functionBodies(bytes) {
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) throw new Error("not a wasm binary");
  const pos = { at: 8 };
  let imported = 0;
  /** @type {Uint8Array[]} */
  const bodies = [];
  /** @type {Map<number, string>} */
  const names = new Map();
  while (pos.at < bytes.length) {
    const id = bytes[pos.at++];
    const size = leb(bytes, pos);
    const start = pos.at;
    const end = start + size;
    if (id === 2) imported = importedFunctions(bytes, start, end);
    if (id === 10) {
      const p = { at: start };
      const count = leb(bytes, p);
      for (let i = 0; i < count; i++) {
        const len = leb(bytes, p);
        bodies.push(bytes.subarray(p.at, p.at + len));
        p.at += len;
      }
    }
    if (id === 0) {
      const p = { at: start };
      if (name(bytes, p) === "name") {
        while (p.at < end) {
          const sub = bytes[p.at++];
          const subSize = leb(bytes, p);
          const subEnd = p.at + subSize;
          if (sub === 1) {
            const count = leb(bytes, p);
            for (let i = 0; i < count; i++) names.set(leb(bytes, p), name(bytes, p));
          }
          p.at = subEnd;
        }
      }
    }
    pos.at = end;
  }
  if (names.size === 0) throw new Error("the wasm has no function names (name section): link with --profiling-funcs");
  /** @type {Map<string, Uint8Array>} */
  const out = new Map();
  for (const [index, fn] of names) {
    const body = bodies[index - imported];
    if (body) out.set(fn, body);
  }
  return out;
}

/** SIMD opcodes (0xFD prefix) this module names; the byte patterns are their LEB128 encodings. */
export const SIMD_OPS = {
  "i32x4.dot_i16x8_s": [0xfd, 0xba, 0x01],
  "i16x8.extmul_low_i8x16_s": [0xfd, 0x9c, 0x01],
  "i32x4.extadd_pairwise_i16x8_s": [0xfd, 0xfe, 0x00],
  // the float side: exp (soft_max, SwiGLU) four lanes at a time
  "f32x4.mul": [0xfd, 0xe6, 0x01],
  "i32x4.shl": [0xfd, 0xab, 0x01],
  // relaxed SIMD (0x112; the same number in the final spec and in binaryen 108)
  "i16x8.relaxed_dot_i8x16_i7x16_s": [0xfd, 0x92, 0x02],
  // relaxed SIMD's fused multiply-add (0x105 in the final spec; binaryen 108 knows it as 0xaf, see
  // scripts/llama-wasm-relaxed-opcode.mjs, which puts the final number back after the link)
  "f32x4.relaxed_madd": [0xfd, 0x85, 0x02],
};

/**
 * How often an instruction's byte pattern occurs in a function body. A byte scan, not a decoder:
 * an immediate could in principle hold the same bytes, so it is used to show presence in a build
 * that has the kernels and absence in one that has not, both checked by the tests.
 * @param {Uint8Array} body @param {number[]} pattern
 */
export function countPattern(body, pattern) {
  let n = 0;
  outer: for (let i = 0; i + pattern.length <= body.length; i++) {
    for (let j = 0; j < pattern.length; j++) if (body[i + j] !== pattern[j]) continue outer;
    n++;
  }
  return n;
}
