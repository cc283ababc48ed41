// Kernel test for 0004-wasm-gemm-4x4.patch: the 4 x 4 tiles against a scalar reference (double
// sums) and against ggml's own SIMD128 vec_dot (arch/wasm/quants.c), Q8_0, Q4_0, Q5_0 and Q4_K,
// edge tiles included; and (decode, 0007, 0008) the relaxed Q4_K, Q5_0 and Q4_0 decode dots against ggml's SIMD128
// ones and the reference, timed in cache and streamed. scripts/llama-wasm-gemm-test.sh builds and runs it in
// browsers (the relaxed module must run there); the line below is the plain SIMD128 build in Node. Build beside the patched tree (G = llama.cpp/ggml):
//   emcc -O3 -msimd128 -DNDEBUG -I$G/src/ggml-cpu/arch/wasm -I$G/include -I$G/src -I$G/src/ggml-cpu \
//     $G/src/ggml-cpu/arch/wasm/gemm.c $G/src/ggml-cpu/arch/wasm/quants.c gemm-test.c -o t.js \
//     -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 -sERROR_ON_UNDEFINED_SYMBOLS=0 && node t.js
// (quants.c's other functions refer to symbols of the whole library that this test never calls.)
// BREAK=1 at build time (-DBREAK=1) flips one Q4_K weight bit after the GEMM to show the test fails.
// And (0009) the f32 GEMM of flash attention's tiles, ggml_wasm_gemm_f32, against a double-precision
// reference: the tile's 64 x 64 x 64 and shapes with every edge (fewer than 4 rows, 8 or 4 columns);
// and (0010) ggml_wasm_fp16_to_fp32 on every half.
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
void ggml_vec_dot_q8_0_q8_0(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc);
void ggml_vec_dot_q4_0_q8_0(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc);
void ggml_vec_dot_q5_0_q8_0(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc);
void ggml_vec_dot_q4_K_q8_K(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc);
#if RELAXED_DECODE
// The relaxed module (scripts/llama-wasm-gemm-test.sh, as the relaxed wasm's build): gemm.c defines
// the Q4_K, Q5_0 and Q4_0 dots with the relaxed dot product, and ggml's SIMD128 ones are quants.c's, renamed.
void ggml_vec_dot_q4_K_q8_K_simd128(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc);
void ggml_vec_dot_q5_0_q8_0_simd128(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc);
void ggml_vec_dot_q4_0_q8_0_simd128(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc);
#define GGML_Q4_K_DOT ggml_vec_dot_q4_K_q8_K_simd128
#define GGML_Q5_0_DOT ggml_vec_dot_q5_0_q8_0_simd128
#define GGML_Q4_0_DOT ggml_vec_dot_q4_0_q8_0_simd128
#else
#define GGML_Q4_K_DOT ggml_vec_dot_q4_K_q8_K
#define GGML_Q5_0_DOT ggml_vec_dot_q5_0_q8_0
#define GGML_Q4_0_DOT ggml_vec_dot_q4_0_q8_0
#endif

static uint32_t rng = 12345;
static int extreme; // every quant at its largest magnitude: the int16 pair sums of the relaxed tiles at their bound
static uint32_t rnd(void) { rng = rng * 1664525u + 1013904223u; return extreme ? 0xFFFFFFu : rng >> 8; }
static ggml_fp16_t h(float f) { return GGML_FP32_TO_FP16(f); }
static float f(ggml_fp16_t x) { return GGML_FP16_TO_FP32(x); }
static float small_scale(void) { return 0.001f + (rnd() % 1000) / 1e5f; }

// One weight element as ggml dequantizes it (Q4_K: d*sc*q and dmin*m returned apart, so the
// reference sums each term in double as the formula has it).
static double weight(const void * row, enum ggml_type t, int k, double * minus) {
    *minus = 0;
    switch (t) {
        case GGML_TYPE_Q8_0: { const block_q8_0 * x = (const block_q8_0 *)row + k/32; return f(x->d) * x->qs[k%32]; }
        case GGML_TYPE_Q4_0: { const block_q4_0 * x = (const block_q4_0 *)row + k/32; const int j = k%32;
                               return f(x->d) * ((j < 16 ? x->qs[j] & 15 : x->qs[j-16] >> 4) - 8); }
        case GGML_TYPE_Q5_0: { const block_q5_0 * x = (const block_q5_0 *)row + k/32; const int j = k%32;
                               uint32_t qh; memcpy(&qh, x->qh, 4);
                               const int q = (j < 16 ? x->qs[j] & 15 : x->qs[j-16] >> 4) | (((qh >> j) & 1) << 4);
                               return f(x->d) * (q - 16); }
        case GGML_TYPE_Q4_K: { const block_q4_K * x = (const block_q4_K *)row + k/256; const int e = k%256;
                               const int sub = e/32, chunk = e/64, i = e%32; // sub-block 2*chunk: low nibbles
                               const uint8_t * s = x->scales; int sc, m;
                               if (sub < 4) { sc = s[sub] & 63; m = s[sub+4] & 63; }
                               else { sc = (s[sub+4] & 15) | ((s[sub-4] >> 6) << 4); m = (s[sub+4] >> 4) | ((s[sub] >> 6) << 4); }
                               const uint8_t b = x->qs[32*chunk + i];
                               const int q = (sub % 2 == 0) ? (b & 15) : (b >> 4);
                               *minus = (double)f(x->dmin) * m;
                               return (double)f(x->d) * sc * q; }
        default: abort();
    }
}

static double activation(const void * row, enum ggml_type bt, int k) {
    if (bt == GGML_TYPE_Q8_K) { const block_q8_K * y = (const block_q8_K *)row + k/256; return (double)y->d * y->qs[k%256]; }
    const block_q8_0 * y = (const block_q8_0 *)row + k/32; return (double)f(y->d) * y->qs[k%32];
}

static double ref_dot(const void * a, enum ggml_type t, const void * b, enum ggml_type bt, int n, double * mag) {
    double s = 0; *mag = 0;
    for (int k = 0; k < n; k++) {
        double minus, w = weight(a, t, k, &minus), y = activation(b, bt, k);
        s += (w - minus) * y; *mag += (fabs(w) + fabs(minus)) * fabs(y);
    }
    return s;
}

static size_t block_bytes(enum ggml_type t) {
    switch (t) {
        case GGML_TYPE_Q8_0: return sizeof(block_q8_0);
        case GGML_TYPE_Q4_0: return sizeof(block_q4_0);
        case GGML_TYPE_Q5_0: return sizeof(block_q5_0);
        case GGML_TYPE_Q4_K: return sizeof(block_q4_K);
        case GGML_TYPE_Q8_K: return sizeof(block_q8_K);
        default: abort();
    }
}

static void fill_weights(char * row, enum ggml_type t, int nb) {
    for (int i = 0; i < nb; i++) {
        char * blk = row + i * block_bytes(t);
        if (t == GGML_TYPE_Q8_0) { block_q8_0 * x = (block_q8_0 *)blk; x->d = h(small_scale()); for (int j = 0; j < 32; j++) x->qs[j] = (int8_t)(rnd() % 255 - 127); }
        else if (t == GGML_TYPE_Q4_0) { block_q4_0 * x = (block_q4_0 *)blk; x->d = h(small_scale()); for (int j = 0; j < 16; j++) x->qs[j] = (uint8_t)rnd(); }
        else if (t == GGML_TYPE_Q5_0) { block_q5_0 * x = (block_q5_0 *)blk; x->d = h(small_scale()); for (int j = 0; j < 4; j++) x->qh[j] = (uint8_t)rnd(); for (int j = 0; j < 16; j++) x->qs[j] = (uint8_t)rnd(); }
        else { block_q4_K * x = (block_q4_K *)blk; x->d = h(small_scale() / 8); x->dmin = h(small_scale() / 8);
               for (int j = 0; j < 12; j++) x->scales[j] = (uint8_t)rnd(); // every bit pattern: 6-bit scales up to 63
               for (int j = 0; j < 128; j++) x->qs[j] = (uint8_t)rnd(); }
    }
}

static void fill_activations(char * row, enum ggml_type bt, int nb) {
    for (int i = 0; i < nb; i++) {
        if (bt == GGML_TYPE_Q8_0) { block_q8_0 * y = (block_q8_0 *)row + i; y->d = h(0.01f + (rnd() % 1000) / 1e4f); for (int j = 0; j < 32; j++) y->qs[j] = extreme ? -127 : (int8_t)(rnd() % 255 - 127); }
        else { block_q8_K * y = (block_q8_K *)row + i; y->d = 0.01f + (rnd() % 1000) / 1e4f;
               // quantize_row_q8_K's range is [-127, 127]; -128 only in theory, test it too
               for (int j = 0; j < 256; j++) y->qs[j] = extreme ? -128 : (int8_t)(rnd() % 256 - 128);
               for (int g = 0; g < 16; g++) { int s = 0; for (int j = 0; j < 16; j++) s += y->qs[16*g + j]; y->bsums[g] = (int16_t)s; } }
    }
}

static const char * name(enum ggml_type t) {
    return t == GGML_TYPE_Q8_0 ? "q8_0" : t == GGML_TYPE_Q4_0 ? "q4_0" : t == GGML_TYPE_Q5_0 ? "q5_0" : "q4_K";
}

static int run(enum ggml_type t, int nrows, int ntok, int n, int reps) {
    const enum ggml_type bt = t == GGML_TYPE_Q4_K ? GGML_TYPE_Q8_K : GGML_TYPE_Q8_0;
    const int per = t == GGML_TYPE_Q4_K ? 256 : 32, nb = n / per;
    const size_t lda = block_bytes(t) * nb, ldb = block_bytes(bt) * nb;
    char * A = malloc(lda * nrows); char * B = malloc(ldb * ntok); float * C = malloc(sizeof(float) * nrows * ntok);
    for (int r = 0; r < nrows; r++) fill_weights(A + r*lda, t, nb);
    for (int k = 0; k < ntok; k++) fill_activations(B + k*ldb, bt, nb);
    if (!ggml_wasm_gemm_supports(t, bt)) { printf("%s not supported\n", name(t)); return 1; }
    // V8 compiles with its baseline tier first and switches a function to the optimizing tier on a
    // later call, so a timed run follows an untimed one.
    ggml_wasm_gemm(nrows, ntok, n, A, lda, t, B, ldb, C, nrows, 0, 1);
    double t0 = emscripten_get_now();
    for (int rep = 0; rep < reps; rep++) ggml_wasm_gemm(nrows, ntok, n, A, lda, t, B, ldb, C, nrows, 0, 1);
    double ms = (emscripten_get_now() - t0) / reps;
#if BREAK
    if (t == GGML_TYPE_Q4_K) ((block_q4_K *)(A + (nrows-1)*lda))->qs[5] ^= 0x10; // the last row: an edge tile when nrows % 4
#endif
    // ggml's own dot product, one output at a time, for the speed and as a second reference
    float * V = malloc(sizeof(float) * nrows * ntok);
    void (*vec_dot)(int, float *, size_t, const void *, size_t, const void *, size_t, int) =
        t == GGML_TYPE_Q8_0 ? ggml_vec_dot_q8_0_q8_0 : t == GGML_TYPE_Q4_0 ? GGML_Q4_0_DOT :
        t == GGML_TYPE_Q5_0 ? GGML_Q5_0_DOT : GGML_Q4_K_DOT;
    for (int k = 0; k < ntok; k++) for (int r = 0; r < nrows; r++) vec_dot(n, V + k*nrows + r, 0, A + r*lda, 0, B + k*ldb, 0, 1);
    double t1 = emscripten_get_now();
    for (int rep = 0; rep < reps; rep++)
        for (int k = 0; k < ntok; k++) for (int r = 0; r < nrows; r++) vec_dot(n, V + k*nrows + r, 0, A + r*lda, 0, B + k*ldb, 0, 1);
    double vms = (emscripten_get_now() - t1) / reps;
    double maxrel = 0, maxrel_vec = 0;
    for (int k = 0; k < ntok; k++) for (int r = 0; r < nrows; r++) {
        double mag, want = ref_dot(A + r*lda, t, B + k*ldb, bt, n, &mag), got = C[k*nrows + r];
        // float32 sums: the error scales with the size of the terms, not of their (cancelling) sum
        double rel = fabs(got - want) / (mag + 1e-30), relv = fabs(got - V[k*nrows + r]) / (mag + 1e-30);
        if (rel > maxrel) maxrel = rel;
        if (relv > maxrel_vec) maxrel_vec = relv;
    }
    const double ops = 2.0 * nrows * ntok * n;
    printf("%s %dx%dx%d: max rel err %.2e (vs ggml vec_dot %.2e), gemm %.1f GOP/s, vec_dot %.1f GOP/s\n",
           name(t), nrows, ntok, n, maxrel, maxrel_vec, ops / (ms * 1e6), ops / (vms * 1e6));
    free(A); free(B); free(C); free(V);
    return maxrel < 1e-5 && maxrel_vec < 1e-5 ? 0 : 1;
}

// Decode: one token, ggml's vec_dot called once per weight row as ggml_compute_forward_mul_mat
// does. The relaxed module's ggml_vec_dot_q4_K_q8_K / _q5_0_q8_0 / _q4_0_q8_0 (gemm.c's relaxed
// dots) must equal ggml's SIMD128 dots bit for bit (integer sums exact, ggml's float steps in
// ggml's order) and the double reference to float tolerance; both are timed in the same module
// over `copies` matrices of nrows x n (1: stays in cache across repetitions; enough copies to
// exceed the caches: streamed from memory, as decode reads every layer's weights once per token).
static int decode(enum ggml_type t, int nrows, int n, int copies, int reps) {
    typedef void (*vec_dot_t)(int, float *, size_t, const void *, size_t, const void *, size_t, int);
    const int k_quant = t == GGML_TYPE_Q4_K;
    const enum ggml_type bt = k_quant ? GGML_TYPE_Q8_K : GGML_TYPE_Q8_0;
    const vec_dot_t our_dot = k_quant ? ggml_vec_dot_q4_K_q8_K : t == GGML_TYPE_Q5_0 ? ggml_vec_dot_q5_0_q8_0 : ggml_vec_dot_q4_0_q8_0;
    const vec_dot_t ggml_dot = k_quant ? GGML_Q4_K_DOT : t == GGML_TYPE_Q5_0 ? GGML_Q5_0_DOT : GGML_Q4_0_DOT;
    const int nb = n / (k_quant ? QK_K : QK5_0); // QK5_0 == QK4_0 == 32
    const size_t lda = block_bytes(t) * nb;
    const int64_t rows = (int64_t) nrows * copies;
    char * A = malloc(lda * rows); char * B = malloc(block_bytes(bt) * nb);
    float * ours = malloc(sizeof(float) * rows); float * ggml = malloc(sizeof(float) * rows);
    if (!A || !B || !ours || !ggml) { printf("decode: out of memory\n"); return 1; }
    for (int64_t r = 0; r < rows; r++) fill_weights(A + r*lda, t, nb);
    fill_activations(B, bt, nb);
    double t_ours = 0, t_ggml = 0;
    for (int rep = -1; rep < reps; rep++) { // rep -1: untimed, for V8's optimizing tier
        for (int pass = 0; pass < 2; pass++) { // alternate which goes first
            const int first_ours = (rep + pass) % 2 == 0;
            for (int k = 0; k < 2; k++) {
                const int is_ours = first_ours ^ k;
                float * out = is_ours ? ours : ggml;
                double t0 = emscripten_get_now();
                for (int64_t r = 0; r < rows; r++)
                    (is_ours ? our_dot : ggml_dot)(n, out + r, 0, A + r*lda, 0, B, 0, 1);
                double dt = emscripten_get_now() - t0;
                if (rep >= 0) { if (is_ours) t_ours += dt; else t_ggml += dt; }
            }
        }
    }
    int bit_equal = memcmp(ours, ggml, sizeof(float) * rows) == 0;
    double maxrel = 0;
    const int64_t checked = rows < 256 ? rows : 256; // the double reference is slow
    for (int64_t r = 0; r < checked; r++) {
        double mag, want = ref_dot(A + r*lda, t, B, bt, n, &mag);
        double rel = fabs(ours[r] - want) / (mag + 1e-30);
        if (rel > maxrel) maxrel = rel;
    }
    const double ops = 2.0 * rows * n * 2 * reps; // two passes a repetition
    printf("decode %s %d x %d x %d copies (%.1f MB%s): max rel err %.2e, %s ggml's SIMD128 dot",
           name(t), nrows, n, copies, lda * rows / 1e6, extreme ? ", extreme" : "", maxrel, bit_equal ? "bit-equal to" : "DIFFERS from");
    if (reps > 1) printf("; this module's dot %.1f GOP/s, ggml's SIMD128 %.1f GOP/s (%.2fx)",
                         ops / (t_ours * 1e6), ops / (t_ggml * 1e6), t_ggml / t_ours);
    printf("\n");
    free(A); free(B); free(ours); free(ggml);
    return maxrel < 1e-5 && bit_equal ? 0 : 1;
}

// (0010) Every half through ggml_wasm_fp16_to_fp32 against ggml's own conversion: the same bits
// (a NaN: a NaN). All 65,536 in one call take the vector path; 13 more take it and the scalar tail.
static int fp16_all(void) {
    static ggml_fp16_t x[1 << 16];
    static float y[1 << 16];
    for (int i = 0; i < (1 << 16); i++) { const uint16_t u = (uint16_t)i; memcpy(&x[i], &u, 2); }
    ggml_wasm_fp16_to_fp32(x, y, 1 << 16);
    ggml_wasm_fp16_to_fp32(x + 0x7bf8, y + 0x7bf8, 13); // the largest finite halves, then infinity and NaNs
    int bad = 0;
    for (int i = 0; i < (1 << 16); i++) {
        const float r = GGML_FP16_TO_FP32(x[i]);
        uint32_t a, b;
        memcpy(&a, &r, 4); memcpy(&b, &y[i], 4);
        if (a != b && !(isnan(r) && isnan(y[i]))) { if (bad < 3) printf("half %04x: %08x, ggml %08x\n", i, b, a); bad++; }
    }
    printf("fp16 -> fp32: %d of 65536 halves differ from ggml's conversion\n", bad);
    return bad != 0;
}

// C += A x B by ggml_wasm_gemm_f32 against double sums, C starting non-zero (it accumulates).
// Error relative to the sum of the terms' magnitudes: float rounding is ~1e-7 of it; an operand in
// the wrong place of the multiply-add is of the order of the terms themselves.
static int f32_gemm(int M, int K, int N, int reps) {
    float * A = malloc(sizeof(float) * M * K), * B = malloc(sizeof(float) * K * N);
    float * C = malloc(sizeof(float) * M * N), * C0 = malloc(sizeof(float) * M * N);
    if (!A || !B || !C || !C0) { printf("f32 gemm: out of memory\n"); return 1; }
    for (int i = 0; i < M * K; i++) A[i] = (int)(rnd() % 2001) / 1000.0f - 1.0f;
    for (int i = 0; i < K * N; i++) B[i] = (int)(rnd() % 2001) / 1000.0f - 1.0f;
    for (int i = 0; i < M * N; i++) C0[i] = (int)(rnd() % 2001) / 1000.0f - 1.0f;
    memcpy(C, C0, sizeof(float) * M * N);
    ggml_wasm_gemm_f32(C, A, B, M, K, N);
    double maxrel = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double ref = C0[i*N + j], mag = fabs(ref);
            for (int k = 0; k < K; k++) { ref += (double)A[i*K + k] * B[k*N + j]; mag += fabs((double)A[i*K + k] * B[k*N + j]); }
            const double rel = fabs(C[i*N + j] - ref) / (mag > 0 ? mag : 1);
            if (rel > maxrel) maxrel = rel;
        }
    double gflops = 0;
    if (reps > 1) {
        const double t0 = emscripten_get_now();
        for (int r = 0; r < reps; r++) ggml_wasm_gemm_f32(C, A, B, M, K, N);
        gflops = 2.0 * M * K * N * reps / ((emscripten_get_now() - t0) * 1e6);
    }
    printf("f32 gemm %dx%dx%d: max rel err %.2e", M, K, N, maxrel);
    if (reps > 1) printf(", %.1f GFLOP/s", gflops);
    printf("\n");
    free(A); free(B); free(C); free(C0);
    return maxrel < 1e-5 ? 0 : 1;
}

int main(void) {
    for (int i = 0; i < (1 << 16); i++) { ggml_fp16_t x; memcpy(&x, &(uint16_t){(uint16_t)i}, 2); ggml_table_f32_f16[i] = GGML_FP16_TO_FP32(x); }
    int bad = 0;
    bad |= run(GGML_TYPE_Q8_0, 7, 5, 96, 1);      // edges: rows and tokens not multiples of 4
    bad |= run(GGML_TYPE_Q4_0, 9, 3, 64, 1);
    bad |= run(GGML_TYPE_Q5_0, 6, 7, 96, 1);
    bad |= run(GGML_TYPE_Q4_K, 7, 5, 512, 1);
    bad |= run(GGML_TYPE_Q4_K, 9, 3, 256, 1);
    bad |= run(GGML_TYPE_Q4_K, 64, 64, 1024, 1);
    bad |= run(GGML_TYPE_Q4_0, 10, 9, 128, 1);    // full 4 x 4 tiles and both edges (the relaxed tiles take the full ones)
    bad |= run(GGML_TYPE_Q5_0, 11, 6, 160, 1);
    extreme = 1;                                  // largest quants: weights 15 (31), activations -127 (Q8_K: -128)
    bad |= run(GGML_TYPE_Q4_0, 8, 8, 64, 1);
    bad |= run(GGML_TYPE_Q5_0, 8, 8, 64, 1);
    bad |= run(GGML_TYPE_Q4_K, 8, 8, 512, 1);
    bad |= run(GGML_TYPE_Q8_0, 8, 8, 64, 1);
    bad |= decode(GGML_TYPE_Q4_K, 8, 512, 1, 1);
    bad |= decode(GGML_TYPE_Q5_0, 8, 64, 1, 1);
    bad |= decode(GGML_TYPE_Q4_0, 8, 64, 1, 1);
    bad |= decode(GGML_TYPE_Q4_0, 8, 96, 1, 1);        // an odd block count: ggml's scalar last block
    extreme = 0;
    bad |= decode(GGML_TYPE_Q4_K, 7, 256, 1, 1);
    bad |= decode(GGML_TYPE_Q5_0, 7, 96, 1, 1);
    bad |= decode(GGML_TYPE_Q4_0, 7, 96, 1, 1);
    bad |= decode(GGML_TYPE_Q4_0, 7, 1024, 1, 1);
    bad |= decode(GGML_TYPE_Q4_K, 64, 4864, 1, 200);   // 0.5B ffn_down rows, in cache (175 KB)
    bad |= decode(GGML_TYPE_Q4_K, 64, 1536, 1, 500);   // 1.5B attention / ffn_up rows, in cache
    bad |= decode(GGML_TYPE_Q5_0, 256, 896, 1, 200);   // 0.5B ffn_up rows (its Q5_0), in cache (158 KB)
    bad |= decode(GGML_TYPE_Q4_K, 896, 4864, 24, 3);   // 0.5B ffn_down, 24 layers' worth (59 MB): streamed
    bad |= decode(GGML_TYPE_Q5_0, 4864, 896, 20, 3);   // 0.5B ffn_up, 20 layers' worth (60 MB)
    bad |= decode(GGML_TYPE_Q4_0, 256, 896, 1, 200);   // 0.5B Q4_0 ffn_up rows, in cache (129 KB)
    bad |= decode(GGML_TYPE_Q4_0, 4864, 896, 24, 3);   // 0.5B Q4_0 ffn_up, 24 layers' worth (59 MB)
    bad |= decode(GGML_TYPE_Q4_0, 896, 4864, 24, 3);   // 0.5B Q4_0 ffn_down, 24 layers' worth (59 MB)
    bad |= decode(GGML_TYPE_Q4_K, 8960, 1536, 8, 3);   // 1.5B ffn_up, 8 layers' worth (62 MB)
    bad |= decode(GGML_TYPE_Q4_K, 1536, 8960, 8, 3);   // 1.5B ffn_down, 8 layers' worth
    bad |= fp16_all();
    bad |= f32_gemm(3, 5, 3, 1);                      // edges only: under 4 rows, under 4 columns
    bad |= f32_gemm(7, 9, 21, 1);                     // a 4-row block and 3 single rows; 8-, 4- and 1-wide columns
    bad |= f32_gemm(64, 64, 64, 2000);                // flash attention's Q x K and P x V tiles
    bad |= run(GGML_TYPE_Q8_0, 4864, 64, 896, 3); // a Qwen2.5-0.5B FFN matrix x 64 tokens
    bad |= run(GGML_TYPE_Q4_0, 4864, 64, 896, 3);
    bad |= run(GGML_TYPE_Q5_0, 4864, 64, 896, 3);
    bad |= run(GGML_TYPE_Q4_K, 896, 64, 4864, 3); // its ffn_down, the one Q4_K matrix of a 0.5B Q4_K_M
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad;
}
