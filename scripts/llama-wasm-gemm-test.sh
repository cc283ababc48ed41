#!/usr/bin/env bash
# Builds scripts/llama-wasm-patches/gemm-test.c twice for the browser, against the patched gemm.c
# of a llama-wasm source tree: "simd" (emcc 3.1.6, SIMD128 tiles, ggml's decode dot) and "relaxed"
# (gemm.c through llama-wasm-relaxed-cc.sh: clang-19 with relaxed SIMD, and its Q4_K, Q5_0 and Q4_0 decode dots in
# place of ggml's, as in the relaxed wasm), then runs both in Chromium and Firefox, one thread,
# one page per engine, interleaved (scripts/llama-wasm-gemm-test.ts). The relaxed dot product has to be
# tested in a browser: Node 20's V8 computes it wrongly.
#
# Usage: scripts/llama-wasm-gemm-test.sh <llama.cpp source dir> [out dir]
#   e.g. scripts/llama-wasm-gemm-test.sh .llama-wasm-build/src/llama.cpp /tmp/gemm-test
# BUILD_ONLY=1 stops after the build; ROUNDS=n (default 2) runs each module n times, alternating;
# ENGINES=chromium,firefox,webkit picks the browsers (default chromium,firefox).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="${1:?usage: llama-wasm-gemm-test.sh <llama.cpp source dir> [out dir]}"
OUT="${2:-$(mktemp -d)}"
G="$(cd "$SRC/ggml" && pwd)"
mkdir -p "$OUT"
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}" # emcc's JS optimizer needs Debian's acorn

INC=(-I"$G/src/ggml-cpu/arch/wasm" -I"$G/include" -I"$G/src" -I"$G/src/ggml-cpu")
CFLAGS=(-O3 -msimd128 -DNDEBUG -std=gnu11 "${INC[@]}")
# One module per variant, loaded by the runner page as a factory (MODULARIZE), printing to the console.
LINK=(-sENVIRONMENT=web -sMODULARIZE=1 -sALLOW_MEMORY_GROWTH=1 -sERROR_ON_UNDEFINED_SYMBOLS=0
      -sINVOKE_RUN=1 -sEXIT_RUNTIME=1)

for variant in simd relaxed; do
  cc=(emcc)
  defs=()
  if [[ "$variant" == "relaxed" ]]; then
    # as in the relaxed wasm: gemm.c by clang-19, quants.c with ggml's Q4_K, Q5_0 and Q4_0 dots renamed (the launcher)
    cc=("$HERE/llama-wasm-relaxed-cc.sh" emcc)
    defs=(-DRELAXED_DECODE=1)
  fi
  "${cc[@]}" "${CFLAGS[@]}" -c "$G/src/ggml-cpu/arch/wasm/gemm.c" -o "$OUT/gemm-$variant.o"
  "${cc[@]}" "${CFLAGS[@]}" -c "$G/src/ggml-cpu/arch/wasm/quants.c" -o "$OUT/quants.o"
  emcc "${CFLAGS[@]}" "${defs[@]}" -c "$HERE/llama-wasm-patches/gemm-test.c" -o "$OUT/gemm-test.o"
  emcc -O3 -msimd128 "$OUT/gemm-$variant.o" "$OUT/quants.o" "$OUT/gemm-test.o" "${LINK[@]}" \
    -sEXPORT_NAME="gemmTest_$variant" -o "$OUT/gemm-test-$variant.js"
  if [[ "$variant" == "relaxed" ]]; then
    # after binaryen: LLVM's numbering again (a no-op unless gemm.c uses the i32x4 form)
    node "$HERE/llama-wasm-relaxed-opcode.mjs" --to=final "$OUT/gemm-test-$variant.wasm" "$OUT/gemm-test-$variant.wasm"
  fi
done
echo "built $OUT/gemm-test-{simd,relaxed}.{js,wasm}"
[[ "${BUILD_ONLY:-0}" == "1" ]] && exit 0
node --import tsx "$HERE/llama-wasm-gemm-test.ts" "$OUT" "${ROUNDS:-2}" "${ENGINES:-chromium,firefox}"
