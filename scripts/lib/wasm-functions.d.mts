/** Bodies of a wasm binary's defined functions, by their names in the "name" section. */
export function functionBodies(bytes: Uint8Array): Map<string, Uint8Array>;
/** Byte patterns (LEB128-encoded opcodes) of a few SIMD instructions. */
export const SIMD_OPS: Record<
  | "i32x4.dot_i16x8_s"
  | "i16x8.extmul_low_i8x16_s"
  | "i32x4.extadd_pairwise_i16x8_s"
  | "i16x8.relaxed_dot_i8x16_i7x16_s"
  | "f32x4.mul"
  | "i32x4.shl"
  | "f32x4.relaxed_madd",
  number[]
>;
/** How often `pattern` occurs in `body`. */
export function countPattern(body: Uint8Array, pattern: number[]): number;
