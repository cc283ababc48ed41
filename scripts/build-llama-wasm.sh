#!/usr/bin/env bash
# Builds llama.cpp + wllama's C++ glue to WebAssembly with ggml's SIMD128 kernels compiled in
# (issue 33). The shipped wllama wasm runs ggml's generic C dot products because Emscripten's CMake
# toolchain reports CMAKE_SYSTEM_PROCESSOR=x86 and ggml only adds arch/wasm/quants.c when it
# matches "wasm"; -DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm is the whole difference in kernels.
#
# Sources come from packages this repository already pins in package-lock.json, so no network is
# needed beyond `npm ci` and Debian's emscripten:
#   - llama.cpp: the source bundle node-llama-cpp ships (node_modules/node-llama-cpp/llama/gitRelease.bundle)
#   - wllama's glue and CMakeLists.txt: node_modules/@wllama/wllama/{cpp,CMakeLists.txt}
# Toolchain: Debian bookworm's `emscripten` 3.1.6 (apt-get install -y emscripten).
#
# Usage: [INSTALL=1] [RELAXED=1] [JOBS=n] scripts/build-llama-wasm.sh [scratch-dir]   (default: ./.llama-wasm-build)
# Output: <scratch>/out/wllama.{js,wasm}, SHA256SUMS and the licences; INSTALL=1 copies them to
# vendor/llama-wasm, which the page serves.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${1:-$ROOT/.llama-wasm-build}"
JOBS="${JOBS:-2}"
STAGE="${STAGE:-all}"   # all | libs (ggml + llama only, to find toolchain problems early)

# ---- pinned inputs ---------------------------------------------------------------------------
NODE_LLAMA_CPP_VERSION="3.21.1"                                   # carries the llama.cpp bundle
LLAMA_CPP_COMMIT="80fb11ac73e66d89eae2c6a91d8a77428fa733ed"        # the bundle's (squashed) HEAD, 2026-09-12
WLLAMA_VERSION="3.13.0"                                           # JS API the product uses
EMSCRIPTEN_VERSION="3.1.6"

need_version() { # package dir, expected version
  local got
  got="$(node -p "require('$1/package.json').version")"
  [[ "$got" == "$2" ]] || { echo "expected $1 at $2, found $got: run npm ci" >&2; exit 1; }
}
need_version "$ROOT/node_modules/node-llama-cpp" "$NODE_LLAMA_CPP_VERSION"
need_version "$ROOT/node_modules/@wllama/wllama" "$WLLAMA_VERSION"
command -v emcc >/dev/null || { echo "emcc not found: apt-get install -y emscripten" >&2; exit 1; }
emcc --version | head -1 | grep -q " $EMSCRIPTEN_VERSION " || echo "warning: built and tested with emscripten $EMSCRIPTEN_VERSION" >&2

# Debian's emscripten runs its JS optimizer (tools/acorn-optimizer.js) with the system node, which
# does not look in Debian's module folder for acorn (package node-acorn, a dependency of emscripten).
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

SRC="$WORK/src"
# ---- sources ---------------------------------------------------------------------------------
if [[ ! -f "$SRC/.ready" ]]; then
  rm -rf "$SRC"; mkdir -p "$SRC"
  git clone -q "$ROOT/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$SRC/llama.cpp"
  git -C "$SRC/llama.cpp" -c advice.detachedHead=false checkout -q "$LLAMA_CPP_COMMIT"
  cp -r "$ROOT/node_modules/@wllama/wllama/cpp" "$SRC/cpp"
  cp "$ROOT/node_modules/@wllama/wllama/CMakeLists.txt" "$SRC/CMakeLists.txt"
  for p in "$ROOT"/scripts/llama-wasm-patches/*.patch; do
    [[ -e "$p" ]] || continue
    echo "applying $(basename "$p")"
    patch -d "$SRC" -p1 --quiet < "$p"
  done
  touch "$SRC/.ready"
fi

# ---- configure + build -----------------------------------------------------------------------
BUILD="$WORK/build"
mkdir -p "$BUILD"
# Why each flag:
#   WLLAMA_COMPAT=ON, LLAMA_WASM_MEM64=OFF: wasm32 + Asyncify, the only wllama build emscripten 3.1.6
#     can make (no JSPI, no Memory64); it is the build wllama serves to Firefox and Safari anyway.
#   EMSCRIPTEN_SYSTEM_PROCESSOR=wasm: ggml then compiles arch/wasm/quants.c (SIMD128 dot products).
#   GGML_OPENMP=OFF: no OpenMP on emscripten; ggml's own pthread pool is used.
#   LLAMA_BUILD_HTML=OFF: the glue is a .js + .wasm pair, not a page.
emcmake cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
  -DWLLAMA_COMPAT=ON -DLLAMA_WASM_MEM64=OFF -DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm \
  -DGGML_OPENMP=OFF -DGGML_NATIVE=OFF -DLLAMA_BUILD_HTML=OFF -DLLAMA_OPENSSL=OFF \
  -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF \
  -DLIBLLAMA_VERSION_STRING="b0-${LLAMA_CPP_COMMIT:0:7}" > "$WORK/configure.log"
if [[ "$STAGE" == "libs" ]]; then
  cmake --build "$BUILD" --target llama -j"$JOBS"
  exit 0
fi
cmake --build "$BUILD" --target wllama -j"$JOBS"
mkdir -p "$WORK/out"
cp "$BUILD/wllama.wasm" "$WORK/out/"
node "$ROOT/scripts/llama-wasm-postlink.mjs" "$BUILD" "$WORK/out"
cp "$SRC/llama.cpp/LICENSE" "$WORK/out/LICENSE-llama.cpp"
cp "$ROOT/node_modules/@wllama/wllama/LICENCE" "$WORK/out/LICENSE-wllama"
( cd "$WORK/out" && sha256sum wllama.js wllama.wasm > SHA256SUMS )
echo "built $WORK/out/wllama.wasm"
# INSTALL=1: replace the committed build the page serves (vendor/llama-wasm, see scripts/copy-wllama.mjs)
if [[ "${INSTALL:-0}" == "1" ]]; then
  mkdir -p "$ROOT/vendor/llama-wasm"
  cp "$WORK/out/"{wllama.js,wllama.wasm,SHA256SUMS,LICENSE-llama.cpp,LICENSE-wllama} "$ROOT/vendor/llama-wasm/"
  echo "installed in vendor/llama-wasm"
fi
# RELAXED=1: then its relaxed-SIMD variant from the same objects (clang-19 for gemm.c; INSTALL=1
# puts it in vendor/llama-wasm/relaxed). See docs/llama-wasm-build.md, "Relaxed SIMD".
if [[ "${RELAXED:-0}" == "1" ]]; then
  "$ROOT/scripts/build-llama-wasm-relaxed.sh" "$WORK"
fi
