#!/usr/bin/env node
// Renumbers relaxed SIMD instructions between LLVM's final opcodes and the prototype opcodes that
// Debian's binaryen (version 108, the wasm-opt/wasm-emscripten-finalize emscripten 3.1.6 runs) reads.
//
// Why: binaryen 108 numbers relaxed SIMD as the proposal did before it was renumbered.
// - clang-19 emits `i32x4.relaxed_dot_i8x16_i7x16_add_s` as 0xfd 0x113 (the final spec). Binaryen
//   108 reads 0x113 as the two-operand `i16x8.dot_i8x16_i7x16_u` and silently drops an operand (a
//   broken module), and knows the same three-operand instruction as 0xfd 0x114
//   (`i32x4.dot_i8x16_i7x16_add_s`).
// - clang-19 emits `f32x4.relaxed_madd` (a*b + c) as 0xfd 0x105; binaryen 108 refuses 0x105 ("invalid
//   code after SIMD prefix: 261") and knows the same instruction as 0xfd 0xaf (`f32x4.relaxed_fma`,
//   checked with its own wasm-as), operands in the same order.
// Each pair's encodings are three bytes (fd 93 02 / fd 94 02, fd 85 02 / fd af 01), so a swap in
// place keeps every offset and relocation. `--to=binaryen108` runs on clang-19's object before the
// link, `--to=final` on the linked, optimized wasm after binaryen is done with it.
//
// Instructions are found with llvm-objdump-19's disassembly (never by a byte search: the same
// bytes can occur in constants), and every address is checked against the bytes before it is
// written.
//
// Usage: node scripts/llama-wasm-relaxed-opcode.mjs --to=binaryen108|final <in.wasm|in.o> <out>
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

/** Final opcode (LLVM 16+, V8, SpiderMonkey) and binaryen 108's for the same instruction. */
const PAIRS = [
  { name: "relaxed dot", final: [0xfd, 0x93, 0x02], binaryen108: [0xfd, 0x94, 0x02] }, // 0x113 / 0x114
  { name: "relaxed madd", final: [0xfd, 0x85, 0x02], binaryen108: [0xfd, 0xaf, 0x01] }, // 0x105 / 0xaf
];

const [toArg, inPath, outPath] = process.argv.slice(2);
if (!toArg?.startsWith("--to=") || !inPath || !outPath) {
  console.error("usage: llama-wasm-relaxed-opcode.mjs --to=binaryen108|final <in> <out>");
  process.exit(2);
}
const to = toArg.slice("--to=".length);
if (to !== "binaryen108" && to !== "final") {
  console.error(`unknown target ${to}: use --to=binaryen108 or --to=final`);
  process.exit(2);
}
const swaps = PAIRS.map((p) => ({
  name: p.name,
  from: to === "final" ? p.binaryen108 : p.final,
  into: to === "final" ? p.final : p.binaryen108,
}));
const hex = (b) => b.map((x) => x.toString(16).padStart(2, "0")).join(" ");

const bytes = readFileSync(inPath);

/** File offset of the CODE section's payload (id 10), and whether the file is a relocatable object. */
function layout(buf) {
  let p = 8;
  const leb = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = buf[p++];
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) return v;
    }
  };
  let code = -1;
  let object = false;
  while (p < buf.length) {
    const id = buf[p++];
    const size = leb();
    if (id === 10) code = p;
    if (id === 0) {
      const start = p;
      const nameLength = leb();
      object ||= buf.subarray(p, p + nameLength).toString() === "linking";
      p = start;
    }
    p += size;
  }
  if (code < 0) throw new Error(`${inPath} has no code section`);
  return { code, object };
}
const { code, object } = layout(bytes);

// llvm-objdump prints an unknown SIMD opcode as "<unknown>" and goes on decoding after its LEB,
// which is right for all of these (none has immediates).
const dis = execFileSync("llvm-objdump-19", ["-d", inPath], {
  encoding: "utf8",
  maxBuffer: 1 << 30,
});
const counts = swaps.map(() => 0);
// an instruction of exactly three bytes: the third is not followed by another byte
const line3 = /^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} ){2}[0-9a-f]{2})\s+(?![0-9a-f]{2}\b)\S/;
for (const line of dis.split("\n")) {
  const m = line3.exec(line);
  if (!m) continue;
  const k = swaps.findIndex((s) => hex(s.from) === m[2]);
  if (k < 0) continue;
  const { from, into } = swaps[k];
  const addr = parseInt(m[1], 16);
  // llvm-objdump prints an object's addresses from the code section's payload, a linked module's
  // from the start of the file.
  const at = object ? code + addr : addr;
  if (!from.every((b, i) => bytes[at + i] === b)) {
    throw new Error(`${inPath}: disassembly says ${hex(from)} at ${m[1]} but the bytes differ`);
  }
  into.forEach((b, i) => (bytes[at + i] = b));
  counts[k]++;
}
writeFileSync(outPath, bytes);
for (const [k, s] of swaps.entries()) console.log(`${outPath}: ${counts[k]} ${s.name}(s) renumbered ${hex(s.from)} -> ${hex(s.into)}`);
