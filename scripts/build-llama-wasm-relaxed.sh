#!/usr/bin/env bash
# Builds the relaxed-SIMD variant of our llama.cpp wasm (issue 33) from a finished
# scripts/build-llama-wasm.sh build: the same objects, except ggml's wasm GEMM (arch/wasm/gemm.c),
# which clang-19 compiles with -mrelaxed-simd and which then also holds the Q4_K, Q5_0 and Q4_0 decode dots
# and flash attention's f32 tiles (fused multiply-adds, 0009),
# and ggml's wasm quants.c, whose own three are renamed out of their way (scripts/llama-wasm-relaxed-cc.sh), relinked with
# the build's own emcc 3.1.6 link line (wasm-ld 14, binaryen 108's Asyncify). The page serves this
# wasm where WebAssembly.validate accepts a relaxed dot product (Chromium 156, Firefox 153) and the
# SIMD128 one elsewhere (WebKitGTK 2.50); the JavaScript glue is the SIMD128 build's.
#
# Why not a whole build with a newer compiler: Debian's emscripten 3.1.6 (clang 14) has no relaxed
# dot product, and only this one file uses relaxed SIMD, so the rest stays exactly the SIMD128 build.
#
# Usage: [INSTALL=1] scripts/build-llama-wasm-relaxed.sh [scratch-dir]   (build-llama-wasm.sh's dir)
# Needs: apt-get install -y clang-19 lld-19 (only here: CI and the page use the committed wasm).
# Output: <scratch>/relaxed/out/wllama.wasm and SHA256SUMS; INSTALL=1 copies them to
# vendor/llama-wasm/relaxed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(cd "${1:-$ROOT/.llama-wasm-build}" && pwd)"
BUILD="$WORK/build"
R="$WORK/relaxed"
[[ -f "$BUILD/wllama.wasm" ]] || { echo "no $BUILD/wllama.wasm: run scripts/build-llama-wasm.sh $WORK first" >&2; exit 1; }
command -v clang-19 >/dev/null || { echo "clang-19 not found: apt-get install -y clang-19 lld-19" >&2; exit 1; }
command -v llvm-objdump-19 >/dev/null || { echo "llvm-objdump-19 not found: apt-get install -y llvm-19" >&2; exit 1; }
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}" # emcc's JS optimizer needs Debian's acorn
mkdir -p "$R/out"

# 1. gemm.c with relaxed SIMD, and ggml's wasm quants.c with its Q4_K, Q5_0 and Q4_0 dots renamed (gemm.c
#    defines relaxed ones): CMake's own compile lines, through the launcher, into $R.
GGML_DIR="$BUILD/llama.cpp/ggml/src"
compile() { # <source path suffix> <object>
  local cmd
  cmd="$(node -e '
    const cc = require(process.argv[1]);
    const e = cc.find((x) => x.file.endsWith(process.argv[2]));
    if (!e) { console.error(process.argv[2] + " is not in compile_commands.json (patch 0004 not applied?)"); process.exit(1); }
    console.log(e.command);
  ' "$BUILD/compile_commands.json" "$1")"
  local argv
  read -r -a argv <<< "$cmd"
  for i in "${!argv[@]}"; do [[ "${argv[$i]}" == "-o" ]] && argv[$((i + 1))]="$2"; done
  ( cd "$GGML_DIR" && "$ROOT/scripts/llama-wasm-relaxed-cc.sh" "${argv[@]}" )
}
compile /arch/wasm/gemm.c "$R/gemm.c.o"
compile /arch/wasm/quants.c "$R/wasm-quants.c.o"

# 2. libggml-cpu.a with those two in place of the SIMD128 ones. The archive names both ggml-cpu/quants.c's
#    and arch/wasm/quants.c's object "quants.c.o": both go, and come back under their own names.
cp "$GGML_DIR/libggml-cpu.a" "$R/libggml-cpu.a"
emar r "$R/libggml-cpu.a" "$R/gemm.c.o"
[[ "$(emar t "$R/libggml-cpu.a" | grep -cx quants.c.o)" == "2" ]] || { echo "expected two quants.c.o in libggml-cpu.a" >&2; exit 1; }
emar d "$R/libggml-cpu.a" quants.c.o
emar d "$R/libggml-cpu.a" quants.c.o
[[ "$(emar t "$R/libggml-cpu.a" | grep -cx quants.c.o)" == "0" ]] || { echo "quants.c.o still in the archive" >&2; exit 1; }
cp "$GGML_DIR/CMakeFiles/ggml-cpu.dir/ggml-cpu/quants.c.o" "$R/cpu-quants.c.o"
emar r "$R/libggml-cpu.a" "$R/cpu-quants.c.o" "$R/wasm-quants.c.o"

# 3. the wllama link line of the SIMD128 build, with that archive and the output in $R.
sed "s|\"llama.cpp/ggml/src/libggml-cpu.a\"|\"$R/libggml-cpu.a\"|; s|llama.cpp/ggml/src/libggml-cpu.a|$R/libggml-cpu.a|" \
  "$BUILD/CMakeFiles/wllama.dir/linkLibs.rsp" > "$R/linkLibs.rsp"
grep -q "$R/libggml-cpu.a" "$R/linkLibs.rsp" || { echo "libggml-cpu.a not found in linkLibs.rsp" >&2; exit 1; }
LINK="$(cat "$BUILD/CMakeFiles/wllama.dir/link.txt")"
LINK="${LINK/ -o wllama.js / -o $R/wllama.js }"
LINK="${LINK/@CMakeFiles\/wllama.dir\/linkLibs.rsp/@$R/linkLibs.rsp}"
[[ "$LINK" == *"$R/wllama.js"* && "$LINK" == *"@$R/linkLibs.rsp"* ]] || { echo "unexpected link.txt" >&2; exit 1; }
( cd "$BUILD" && eval "$LINK" )

# 4. LLVM's opcode numbering again after binaryen (the fused multiply-adds of 0009, and the i32x4 dot
#    form if gemm.c ever uses it), then the checks: the relaxed dot is in the GEMM, the decode dots and
#    the f32 tiles, and the glue is the SIMD128 build's.
node "$ROOT/scripts/llama-wasm-relaxed-opcode.mjs" --to=final "$R/wllama.wasm" "$R/out/wllama.wasm"
# one disassembly (~240 MB of text) for every check below
DIS="$R/wllama.dis"
llvm-objdump-19 -d "$R/out/wllama.wasm" > "$DIS"
count_in() { # <function> <instruction bytes>: how often the instruction occurs in that function
  awk -v f="<$1>:" -v op=" $2 " '/^[0-9a-f]+ <.*>:$/ { in_f = ($2 == f) } in_f && index($0, op) { c++ } END { print c + 0 }' "$DIS"
}
n="$(grep -cE '^ *[0-9a-f]+: fd 92 02 ' "$DIS" || true)"
[[ "$n" -gt 0 ]] || { echo "no i16x8.relaxed_dot_i8x16_i7x16_s in the linked wasm" >&2; exit 1; }
# the Q4_K, Q5_0 and Q4_0 decode dots that ggml's type table links to are gemm.c's relaxed ones
nd=0
for f in ggml_vec_dot_q4_K_q8_K ggml_vec_dot_q5_0_q8_0 ggml_vec_dot_q4_0_q8_0; do
  c="$(count_in "$f" "fd 92 02")"
  [[ "$c" -gt 0 ]] || { echo "$f has no relaxed dot product: that decode path is ggml's SIMD128 one" >&2; exit 1; }
  nd=$((nd + c))
done
# flash attention's f32 tiles (0009) on the fused multiply-add, renumbered back to 0x105 (fd 85 02)
nm="$(count_in ggml_wasm_gemm_f32 "fd 85 02")"
[[ "$nm" -gt 0 ]] || { echo "ggml_wasm_gemm_f32 has no f32x4.relaxed_madd: flash attention's tiles multiply, then add" >&2; exit 1; }
if ! cmp -s "$R/wllama.js" "$BUILD/wllama.js"; then
  echo "warning: the relaxed link's wllama.js differs from the SIMD128 build's; the page loads only the latter" >&2
fi
rm -f "$DIS"
( cd "$R/out" && sha256sum wllama.wasm > SHA256SUMS )
echo "built $R/out/wllama.wasm ($n relaxed dot products, $nd of them in the Q4_K, Q5_0 and Q4_0 decode dots; $nm fused multiply-adds in flash attention's tiles)"
if [[ "${INSTALL:-0}" == "1" ]]; then
  mkdir -p "$ROOT/vendor/llama-wasm/relaxed"
  cp "$R/out/"{wllama.wasm,SHA256SUMS} "$ROOT/vendor/llama-wasm/relaxed/"
  echo "installed in vendor/llama-wasm/relaxed"
fi
