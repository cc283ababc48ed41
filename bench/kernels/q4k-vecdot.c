// Kernel bench (issue 33): ggml's wasm ggml_vec_dot_q4_K_q8_K (the page's Q4_K decode path, one
// output row at a time) against two variants, in Node 20's V8 (plain SIMD128 is right there):
//   new:          per-sub-block horizontal sums replaced by a vector multiply-add, one per block
//   widened-once: that, plus the Q8_K activations widened to int16 once per token, not per row
// Results must be bit-identical (integer sums are exact). Build and run (Debian's emscripten 3.1.6):
//   NODE_PATH=/usr/share/nodejs emcc -O3 -msimd128 bench/kernels/q4k-vecdot.c -o /tmp/q4k.js \
//     -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 -sSINGLE_FILE=1 && node /tmp/q4k.js [rows] [reps]
// 2026-11-29 08:03 UTC, load ~3: 8,960 x 1,536 (a 1.5B FFN matrix, 7.7 MB): new 0.94-0.96x,
// widened-once 0.96x; 200 rows (in cache) 0.96-0.98x; 60,000 rows (52 MB) 0.97-0.99x. Neither
// gains: the kernel is bound by its widening and dot work, not the horizontal sums.
// Bench: ggml's wasm q4_K x q8_K vec_dot (old) against one with the per-sub-block horizontal
// sums replaced by a vector multiply-accumulate and one horizontal sum per block (new).
#include <wasm_simd128.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <emscripten.h>
#define QK_K 256
typedef uint16_t half;
typedef struct { half d, dmin; uint8_t scales[12]; uint8_t qs[QK_K/2]; } block_q4_K;
typedef struct { float d; int8_t qs[QK_K]; int16_t bsums[QK_K/16]; } block_q8_K;
static float h2f(half h) { // exact fp16 -> fp32
  uint32_t s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023, o;
  if (e == 0) { float f = m / 1024.0f / 16384.0f; return s ? -f : f; }
  o = (s << 31) | ((e + 112) << 23) | (m << 13); float f; memcpy(&f, &o, 4); return f;
}
static const uint32_t kmask1 = 0x3f3f3f3f, kmask2 = 0x0f0f0f0f, kmask3 = 0x03030303;
static inline void unpack(uint32_t utmp[4], const uint8_t * sc) {
  memcpy(utmp, sc, 12);
  utmp[3] = ((utmp[2] >> 4) & kmask2) | (((utmp[1] >> 6) & kmask3) << 4);
  const uint32_t uaux = utmp[1] & kmask1;
  utmp[1] = (utmp[2] & kmask2) | (((utmp[0] >> 6) & kmask3) << 4);
  utmp[2] = uaux; utmp[0] &= kmask1;
}
__attribute__((noinline)) float old_dot(int n, const block_q4_K * x, const block_q8_K * y) {
  const int nb = n / QK_K; uint32_t utmp[4]; const uint8_t * scales = (const uint8_t*)&utmp[0]; float sumf = 0;
  for (int i = 0; i < nb; ++i) {
    const float d = y[i].d * h2f(x[i].d), dmin = y[i].d * h2f(x[i].dmin);
    const uint8_t * q4 = x[i].qs; const int8_t * q8 = y[i].qs;
    unpack(utmp, x[i].scales);
    int32_t sumi = 0; const int16_t * q8sums = y[i].bsums; const uint8_t * m = (const uint8_t *)&utmp[2];
    for (int j = 0; j < 16; j += 2) sumi += (q8sums[j] + q8sums[j+1]) * m[j/2];
    sumf -= dmin * sumi;
    int32_t sumi1 = 0, sumi2 = 0;
    for (int j = 0; j < QK_K/64; ++j) {
      const v128_t q4x0 = wasm_v128_load(q4), q4x1 = wasm_v128_load(q4 + 16); q4 += 32;
      const v128_t q4l0 = wasm_v128_and(q4x0, wasm_i8x16_splat(0x0F)), q4h0 = wasm_u8x16_shr(q4x0, 4);
      const v128_t q4l1 = wasm_v128_and(q4x1, wasm_i8x16_splat(0x0F)), q4h1 = wasm_u8x16_shr(q4x1, 4);
      const v128_t q8x0 = wasm_v128_load(q8), q8x1 = wasm_v128_load(q8 + 16), q8x2 = wasm_v128_load(q8 + 32), q8x3 = wasm_v128_load(q8 + 48); q8 += 64;
      v128_t vacc1 = wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q4l0), wasm_i16x8_extend_low_i8x16(q8x0));
      vacc1 = wasm_i32x4_add(vacc1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q4l0), wasm_i16x8_extend_high_i8x16(q8x0)));
      vacc1 = wasm_i32x4_add(vacc1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q4l1), wasm_i16x8_extend_low_i8x16(q8x1)));
      vacc1 = wasm_i32x4_add(vacc1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q4l1), wasm_i16x8_extend_high_i8x16(q8x1)));
      v128_t vacc2 = wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q4h0), wasm_i16x8_extend_low_i8x16(q8x2));
      vacc2 = wasm_i32x4_add(vacc2, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q4h0), wasm_i16x8_extend_high_i8x16(q8x2)));
      vacc2 = wasm_i32x4_add(vacc2, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q4h1), wasm_i16x8_extend_low_i8x16(q8x3)));
      vacc2 = wasm_i32x4_add(vacc2, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q4h1), wasm_i16x8_extend_high_i8x16(q8x3)));
      int32_t vacc1_sum = wasm_i32x4_extract_lane(vacc1, 0) + wasm_i32x4_extract_lane(vacc1, 1) + wasm_i32x4_extract_lane(vacc1, 2) + wasm_i32x4_extract_lane(vacc1, 3);
      sumi1 += vacc1_sum * scales[2*j];
      int32_t vacc2_sum = wasm_i32x4_extract_lane(vacc2, 0) + wasm_i32x4_extract_lane(vacc2, 1) + wasm_i32x4_extract_lane(vacc2, 2) + wasm_i32x4_extract_lane(vacc2, 3);
      sumi2 += vacc2_sum * scales[2*j+1];
    }
    sumf += d * (sumi1 + sumi2);
  }
  return sumf;
}
__attribute__((noinline)) float new_dot(int n, const block_q4_K * x, const block_q8_K * y) {
  const int nb = n / QK_K; uint32_t utmp[4]; const uint8_t * scales = (const uint8_t*)&utmp[0]; float sumf = 0;
  for (int i = 0; i < nb; ++i) {
    const float d = y[i].d * h2f(x[i].d), dmin = y[i].d * h2f(x[i].dmin);
    const uint8_t * q4 = x[i].qs; const int8_t * q8 = y[i].qs;
    unpack(utmp, x[i].scales);
    int32_t summ = 0; const int16_t * q8sums = y[i].bsums; const uint8_t * m = (const uint8_t *)&utmp[2];
    for (int j = 0; j < 16; j += 2) summ += (q8sums[j] + q8sums[j+1]) * m[j/2];
    sumf -= dmin * summ;
    // Each sub-block's int32 partial sums, times its scale, into one vector: one horizontal sum a block.
    v128_t acc = wasm_i32x4_splat(0);
    for (int j = 0; j < QK_K/64; ++j) {
      const v128_t q4x0 = wasm_v128_load(q4), q4x1 = wasm_v128_load(q4 + 16); q4 += 32;
      const v128_t q4l0 = wasm_v128_and(q4x0, wasm_i8x16_splat(0x0F)), q4h0 = wasm_u8x16_shr(q4x0, 4);
      const v128_t q4l1 = wasm_v128_and(q4x1, wasm_i8x16_splat(0x0F)), q4h1 = wasm_u8x16_shr(q4x1, 4);
      const v128_t q8x0 = wasm_v128_load(q8), q8x1 = wasm_v128_load(q8 + 16), q8x2 = wasm_v128_load(q8 + 32), q8x3 = wasm_v128_load(q8 + 48); q8 += 64;
      v128_t vacc1 = wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q4l0), wasm_i16x8_extend_low_i8x16(q8x0));
      vacc1 = wasm_i32x4_add(vacc1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q4l0), wasm_i16x8_extend_high_i8x16(q8x0)));
      vacc1 = wasm_i32x4_add(vacc1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q4l1), wasm_i16x8_extend_low_i8x16(q8x1)));
      vacc1 = wasm_i32x4_add(vacc1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q4l1), wasm_i16x8_extend_high_i8x16(q8x1)));
      v128_t vacc2 = wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q4h0), wasm_i16x8_extend_low_i8x16(q8x2));
      vacc2 = wasm_i32x4_add(vacc2, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q4h0), wasm_i16x8_extend_high_i8x16(q8x2)));
      vacc2 = wasm_i32x4_add(vacc2, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q4h1), wasm_i16x8_extend_low_i8x16(q8x3)));
      vacc2 = wasm_i32x4_add(vacc2, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q4h1), wasm_i16x8_extend_high_i8x16(q8x3)));
      acc = wasm_i32x4_add(acc, wasm_i32x4_mul(vacc1, wasm_i32x4_splat(scales[2*j])));
      acc = wasm_i32x4_add(acc, wasm_i32x4_mul(vacc2, wasm_i32x4_splat(scales[2*j+1])));
    }
    acc = wasm_i32x4_add(acc, wasm_i32x4_shuffle(acc, acc, 2, 3, 0, 1));
    acc = wasm_i32x4_add(acc, wasm_i32x4_shuffle(acc, acc, 1, 0, 3, 2));
    sumf += d * wasm_i32x4_extract_lane(acc, 0);
  }
  return sumf;
}

__attribute__((noinline)) float new2_dot(int n, const block_q4_K * x, const block_q8_K * y, const int16_t * yw) {
  const int nb = n / QK_K; uint32_t utmp[4]; const uint8_t * scales = (const uint8_t*)&utmp[0]; float sumf = 0;
  for (int i = 0; i < nb; ++i) {
    const float d = y[i].d * h2f(x[i].d), dmin = y[i].d * h2f(x[i].dmin);
    const uint8_t * q4 = x[i].qs; const int16_t * q8 = yw + i * QK_K;
    unpack(utmp, x[i].scales);
    int32_t summ = 0; const int16_t * q8sums = y[i].bsums; const uint8_t * m = (const uint8_t *)&utmp[2];
    for (int j = 0; j < 16; j += 2) summ += (q8sums[j] + q8sums[j+1]) * m[j/2];
    sumf -= dmin * summ;
    v128_t acc = wasm_i32x4_splat(0);
    for (int j = 0; j < QK_K/64; ++j) {
      const v128_t q4x0 = wasm_v128_load(q4), q4x1 = wasm_v128_load(q4 + 16); q4 += 32;
      const v128_t q4l0 = wasm_v128_and(q4x0, wasm_i8x16_splat(0x0F)), q4h0 = wasm_u8x16_shr(q4x0, 4);
      const v128_t q4l1 = wasm_v128_and(q4x1, wasm_i8x16_splat(0x0F)), q4h1 = wasm_u8x16_shr(q4x1, 4);
      v128_t vacc1 = wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(q4l0), wasm_v128_load(q8));
      vacc1 = wasm_i32x4_add(vacc1, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(q4l0), wasm_v128_load(q8 + 8)));
      vacc1 = wasm_i32x4_add(vacc1, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(q4l1), wasm_v128_load(q8 + 16)));
      vacc1 = wasm_i32x4_add(vacc1, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(q4l1), wasm_v128_load(q8 + 24)));
      v128_t vacc2 = wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(q4h0), wasm_v128_load(q8 + 32));
      vacc2 = wasm_i32x4_add(vacc2, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(q4h0), wasm_v128_load(q8 + 40)));
      vacc2 = wasm_i32x4_add(vacc2, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(q4h1), wasm_v128_load(q8 + 48)));
      vacc2 = wasm_i32x4_add(vacc2, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(q4h1), wasm_v128_load(q8 + 56)));
      q8 += 64;
      acc = wasm_i32x4_add(acc, wasm_i32x4_mul(vacc1, wasm_i32x4_splat(scales[2*j])));
      acc = wasm_i32x4_add(acc, wasm_i32x4_mul(vacc2, wasm_i32x4_splat(scales[2*j+1])));
    }
    acc = wasm_i32x4_add(acc, wasm_i32x4_shuffle(acc, acc, 2, 3, 0, 1));
    acc = wasm_i32x4_add(acc, wasm_i32x4_shuffle(acc, acc, 1, 0, 3, 2));
    sumf += d * wasm_i32x4_extract_lane(acc, 0);
  }
  return sumf;
}
static uint32_t rng = 1; static uint32_t rnd(void) { rng = rng * 1664525u + 1013904223u; return rng >> 8; }
int main(int argc, char ** argv) {
  const int n = 1536, rows = argc > 1 ? atoi(argv[1]) : 8960, reps = argc > 2 ? atoi(argv[2]) : 5; // 1.5B ffn_up
  const int nb = n / QK_K;
  block_q4_K * x = malloc(sizeof(block_q4_K) * nb * rows); block_q8_K * y = malloc(sizeof(block_q8_K) * nb);
  for (size_t i = 0; i < (size_t)nb * rows; i++) { uint8_t * p = (uint8_t *)&x[i]; for (size_t k = 0; k < sizeof *x; k++) p[k] = rnd(); x[i].d = 0x2000 + rnd() % 0x400; x[i].dmin = 0x1c00 + rnd() % 0x400; }
  for (int i = 0; i < nb; i++) { y[i].d = 0.01f; for (int k = 0; k < QK_K; k++) y[i].qs[k] = (int8_t)rnd(); for (int k = 0; k < 16; k++) { int s = 0; for (int t = 0; t < 16; t++) s += y[i].qs[16*k+t]; y[i].bsums[k] = s; } }
  float * a = malloc(4 * rows), * b = malloc(4 * rows), * c2 = malloc(4 * rows); int16_t * yw = malloc(2 * n); for (int i = 0; i < n; i++) yw[i] = y[i / QK_K].qs[i % QK_K];
  double best[3] = {1e9, 1e9, 1e9};
  for (int r = 0; r < reps; r++) for (int v = 0; v < 3; v++) {
    double t0 = emscripten_get_now();
    if (v == 2) { for (int i = 0; i < rows; i++) c2[i] = new2_dot(n, x + (size_t)i * nb, y, yw); } else for (int i = 0; i < rows; i++) (v ? b : a)[i] = (v ? new_dot : old_dot)(n, x + (size_t)i * nb, y);
    double t = emscripten_get_now() - t0; if (t < best[v]) best[v] = t;
  }
  int same = 0; for (int i = 0; i < rows; i++) same += a[i] == b[i] && a[i] == c2[i];
  printf("widened-once: %.2f ms, %.2fx\n", best[2], best[0] / best[2]);
  printf("rows %d: old %.2f ms, new %.2f ms, new/old speed %.2fx, identical %d/%d (%.1f MB of weights)\n", rows, best[0], best[1], best[0] / best[1], same, rows, sizeof(block_q4_K) * nb * rows / 1e6);
  return same == rows ? 0 : 1;
}
