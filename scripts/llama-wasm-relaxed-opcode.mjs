#!/usr/bin/env node
// Renumbers relaxed SIMD's dot product between LLVM's final opcode and the prototype opcode that
// Debian's binaryen (version 108, the wasm-opt/wasm-emscripten-finalize emscripten 3.1.6 runs) reads.
//
// Why: clang-19 emits `i32x4.relaxed_dot_i8x16_i7x16_add_s` as 0xfd 0x113 (the final spec).
// Binaryen 108 numbers relaxed SIMD as the proposal did before it was renumbered: it reads 0x113
// as the two-operand `i16x8.dot_i8x16_i7x16_u` and silently drops an operand (a broken module),
// and knows the same three-operand instruction as 0xfd 0x114 (`i32x4.dot_i8x16_i7x16_add_s`).
// Both encodings are three bytes (fd 93 02 / fd 94 02), so a swap in place keeps every offset and
// relocation. `--to=binaryen108` runs on clang-19's object before the link, `--to=final` on the
// linked, optimized wasm after binaryen is done with it.
//
// Instructions are found with llvm-objdump-19's disassembly (never by a byte search: the same
// bytes can occur in constants), and every address is checked against the bytes before it is
// written.
//
// Usage: node scripts/llama-wasm-relaxed-opcode.mjs --to=binaryen108|final <in.wasm|in.o> <out>
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const FINAL = [0xfd, 0x93, 0x02]; // 0x113 i32x4.relaxed_dot_i8x16_i7x16_add_s (LLVM 16+, V8)
const PROTO = [0xfd, 0x94, 0x02]; // 0x114 i32x4.dot_i8x16_i7x16_add_s in binaryen 108

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
const [from, into] = to === "final" ? [PROTO, FINAL] : [FINAL, PROTO];
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
// which is right for both of these (neither has immediates).
const dis = execFileSync("llvm-objdump-19", ["-d", inPath], {
  encoding: "utf8",
  maxBuffer: 1 << 30,
});
const pattern = new RegExp(`^\\s*([0-9a-f]+):\\s+${hex(from)}\\s+(\\S.*)$`);
let swapped = 0;
for (const line of dis.split("\n")) {
  const m = pattern.exec(line);
  if (!m) continue;
  const addr = parseInt(m[1], 16);
  // llvm-objdump prints an object's addresses from the code section's payload, a linked module's
  // from the start of the file.
  const at = object ? code + addr : addr;
  if (!from.every((b, i) => bytes[at + i] === b)) {
    throw new Error(`${inPath}: disassembly says ${hex(from)} at ${m[1]} but the bytes differ`);
  }
  into.forEach((b, i) => (bytes[at + i] = b));
  swapped++;
}
writeFileSync(outPath, bytes);
console.log(`${outPath}: ${swapped} relaxed dot(s) renumbered ${hex(from)} -> ${hex(into)}`);
