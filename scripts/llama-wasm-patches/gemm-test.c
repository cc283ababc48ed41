// Kernel test for 0004-wasm-gemm-4x4.patch: the 4 x 4 tile against a scalar reference
// (double sums), Q8_0 and Q4_0, edge tiles included. Build beside the patched tree:
//   emcc -O3 -msimd128 -I<ggml-cpu/arch/wasm> -I<ggml>/include -I<ggml>/src -I<ggml>/src/ggml-cpu \
//     gemm.c gemm-test.c -o t.js -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 && node --no-experimental-fetch t.js
#define GGML_COMMON_DECL_C
#include "ggml-common.h"
#include "ggml-impl.h"
#include "gemm.h"
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <emscripten.h>

float ggml_table_f32_f16[1 << 16]; // ggml-cpu.c owns it in the real build
static uint32_t rng = 12345;
static uint32_t rnd(void) { rng = rng * 1664525u + 1013904223u; return rng >> 8; }
static ggml_fp16_t h(float f) { return GGML_FP32_TO_FP16(f); }
static float f(ggml_fp16_t x) { return GGML_FP16_TO_FP32(x); }

static double ref_dot(const void * a, enum ggml_type t, const block_q8_0 * b, int nb, double * mag) {
    double s = 0; *mag = 0;
    for (int i = 0; i < nb; i++) {
        int isum = 0; float da;
        if (t == GGML_TYPE_Q8_0) { const block_q8_0 * x = (const block_q8_0 *)a + i; da = f(x->d); for (int j = 0; j < 32; j++) isum += x->qs[j] * b[i].qs[j]; }
        else { const block_q4_0 * x = (const block_q4_0 *)a + i; da = f(x->d);
               for (int j = 0; j < 16; j++) { isum += ((x->qs[j] & 15) - 8) * b[i].qs[j]; isum += ((x->qs[j] >> 4) - 8) * b[i].qs[j + 16]; } }
        s += (double)da * f(b[i].d) * isum; *mag += fabs((double)da * f(b[i].d) * isum);
    }
    return s;
}

static int run(enum ggml_type t, int nrows, int ntok, int nb, int reps) {
    size_t lda = (t == GGML_TYPE_Q8_0 ? sizeof(block_q8_0) : sizeof(block_q4_0)) * nb, ldb = sizeof(block_q8_0) * nb;
    char * A = malloc(lda * nrows); block_q8_0 * B = malloc(ldb * ntok); float * C = malloc(sizeof(float) * nrows * ntok);
    for (int r = 0; r < nrows; r++) for (int i = 0; i < nb; i++) {
        if (t == GGML_TYPE_Q8_0) { block_q8_0 * x = (block_q8_0 *)(A + r*lda) + i; x->d = h(0.001f + (rnd() % 1000) / 1e5f); for (int j = 0; j < 32; j++) x->qs[j] = (int8_t)(rnd() % 255 - 127); }
        else { block_q4_0 * x = (block_q4_0 *)(A + r*lda) + i; x->d = h(0.001f + (rnd() % 1000) / 1e5f); for (int j = 0; j < 16; j++) x->qs[j] = (uint8_t)rnd(); }
    }
    for (int k = 0; k < ntok; k++) for (int i = 0; i < nb; i++) { block_q8_0 * y = (block_q8_0 *)((char *)B + k*ldb) + i; y->d = h(0.01f + (rnd() % 1000) / 1e4f); for (int j = 0; j < 32; j++) y->qs[j] = (int8_t)(rnd() % 255 - 127); }
    double t0 = emscripten_get_now();
    for (int rep = 0; rep < reps; rep++) ggml_wasm_gemm(nrows, ntok, nb, A, lda, t, B, ldb, C, nrows, 0, 1);
    double ms = (emscripten_get_now() - t0) / reps;
    double maxrel = 0;
    for (int k = 0; k < ntok; k++) for (int r = 0; r < nrows; r++) {
        double mag, want = ref_dot(A + r*lda, t, (const block_q8_0 *)((char *)B + k*ldb), nb, &mag), got = C[k*nrows + r];
        // float32 sums: the error scales with the size of the terms, not of their (cancelling) sum
        double rel = fabs(got - want) / (mag + 1e-30);
        if (rel > maxrel) maxrel = rel;
    }
    printf("%s %dx%dx%d: max rel err %.2e, %.1f GOP/s\n", t == GGML_TYPE_Q8_0 ? "q8_0" : "q4_0", nrows, ntok, nb*32, maxrel, 2.0 * nrows * ntok * nb * 32 / (ms * 1e6));
    free(A); free(B); free(C);
    return maxrel < 1e-5 ? 0 : 1;
}

int main(void) {
    for (int i = 0; i < (1 << 16); i++) { ggml_fp16_t x; memcpy(&x, &(uint16_t){(uint16_t)i}, 2); ggml_table_f32_f16[i] = GGML_FP16_TO_FP32(x); }
    int bad = 0;
    bad |= run(GGML_TYPE_Q8_0, 7, 5, 3, 1);      // edges: rows and tokens not multiples of 4
    bad |= run(GGML_TYPE_Q4_0, 9, 3, 2, 1);
    bad |= run(GGML_TYPE_Q8_0, 64, 64, 28, 1);
    bad |= run(GGML_TYPE_Q4_0, 64, 64, 28, 1);
    bad |= run(GGML_TYPE_Q8_0, 4864, 64, 28, 3); // a Qwen2.5-0.5B FFN matrix x 64 tokens
    bad |= run(GGML_TYPE_Q4_0, 4864, 64, 28, 3);
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad;
}
