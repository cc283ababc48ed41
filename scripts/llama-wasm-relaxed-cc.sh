#!/usr/bin/env bash
# Compiler launcher for the relaxed-SIMD llama.cpp wasm (issue 33): compiles ggml's wasm GEMM
# (ggml/src/ggml-cpu/arch/wasm/gemm.c) with clang-19 and relaxed SIMD, ggml's wasm dot products
# (arch/wasm/quants.c) with the command it was given but the Q4_K, Q5_0 and Q4_0 dots renamed (gemm.c
# has relaxed ones), and every other file with the command it was given (Debian's emcc 3.1.6,
# whose clang 14 has no relaxed dot product).
#
#   scripts/llama-wasm-relaxed-cc.sh /usr/bin/emcc <emcc's compile arguments...>
#
# It is CMake's C compiler launcher in scripts/build-llama-wasm.sh's relaxed build, and can be run
# by hand with a compile line from compile_commands.json. The object it makes links with emcc
# 3.1.6's wasm-ld 14, and binaryen 108 (emscripten's wasm-opt, Asyncify) reads it: the relaxed dot
# gemm.c uses, i16x8.relaxed_dot_i8x16_i7x16_s, is 0xfd 0x112 both in the final spec and in binaryen
# 108's older numbering. (Not so the i32x4 form with accumulate, which binaryen 108
# misreads, nor f32x4.relaxed_madd, which it refuses: llama-wasm-relaxed-opcode.mjs renumbers both,
# run here on the object, and back to the final numbers after the link.)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

is_gemm=0
is_quants=0
for a in "$@"; do
  [[ "$a" == */arch/wasm/gemm.c ]] && is_gemm=1
  [[ "$a" == */arch/wasm/quants.c ]] && is_quants=1
done
# ggml's wasm dot products stay emcc 3.1.6's, but for three names: in the relaxed wasm gemm.c defines
# the Q4_K, Q5_0 and Q4_0 decode dots (ggml_vec_dot_q4_K_q8_K, ggml_vec_dot_q5_0_q8_0,
# ggml_vec_dot_q4_0_q8_0, with the relaxed dot product), so ggml's own are renamed out of their way; ggml's type table (ggml-cpu.c) then links to gemm.c's.
if [[ "$is_quants" == "1" ]]; then
  exec "$@" -Dggml_vec_dot_q4_K_q8_K=ggml_vec_dot_q4_K_q8_K_simd128 -Dggml_vec_dot_q5_0_q8_0=ggml_vec_dot_q5_0_q8_0_simd128 \
    -Dggml_vec_dot_q4_0_q8_0=ggml_vec_dot_q4_0_q8_0_simd128
fi
if [[ "$is_gemm" == "0" ]]; then exec "$@"; fi

CLANG="${CLANG:-clang-19}"
command -v "$CLANG" >/dev/null || { echo "$CLANG not found: apt-get install -y clang-19 lld-19" >&2; exit 1; }
EM_ROOT="$(dirname "$(readlink -f "$(command -v emcc)")")"
SYSROOT="${EM_SYSROOT:-$EM_ROOT/cache/sysroot}"
[[ -d "$SYSROOT/include" ]] || SYSROOT=/usr/share/emscripten/cache/sysroot
EMCC_VERSION="$(emcc -dumpversion)" # e.g. 3.1.6
IFS=. read -r em_major em_minor em_tiny <<< "$EMCC_VERSION"

# emcc's arguments minus the compiler; -pthread and -O*/-D/-I/-W/-std/-f/-o/-c kept as they are.
shift
args=()
out=""
while (($#)); do
  case "$1" in
    -o) out="$2"; args+=("$1" "$2"); shift 2; continue ;;
    @*) # CMake's response file of include directories
      while read -r -a words; do args+=("${words[@]//\"/}"); done < "${1#@}"; shift; continue ;;
    -msimd128) ;; # added below with the relaxed features
    *) args+=("$1") ;;
  esac
  shift
done

# LLVM 19's "generic" CPU also enables reference-types, multivalue, nontrapping-fptoint and
# bulk-memory; emscripten 3.1.6's runtime and binaryen flags assume the MVP set plus what emcc itself
# enables (mutable-globals, sign-ext; atomics and bulk-memory with -pthread), so start from mvp.
"$CLANG" --target=wasm32-unknown-emscripten -mcpu=mvp -mmutable-globals -msign-ext \
  -msimd128 -mrelaxed-simd --sysroot="$SYSROOT" -isystem "$SYSROOT/include/compat" \
  -DEMSCRIPTEN -D__EMSCRIPTEN_major__="$em_major" -D__EMSCRIPTEN_minor__="$em_minor" \
  -D__EMSCRIPTEN_tiny__="$em_tiny" -D_LIBCPP_ABI_VERSION=2 -Dunix -D__unix -D__unix__ \
  "${args[@]}"
[[ -n "$out" ]] && node "$HERE/llama-wasm-relaxed-opcode.mjs" --to=binaryen108 "$out" "$out" >&2
