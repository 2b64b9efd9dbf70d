#!/usr/bin/env bash
# Installs the built opdev into a temporary prefix, builds examples/embed-cpp against the
# installed package (find_package(opdev)), runs it on examples/softmax, and checks opdev.pc.
set -euo pipefail
BUILD_DIR="$1"; SOURCE_DIR="$2"; KB_ROOT="$3"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cmake --install "$BUILD_DIR" --prefix "$WORK/prefix" >/dev/null
test -f "$WORK/prefix/include/opdev.h"
test -f "$WORK/prefix/lib/libopdev.a"
test -x "$WORK/prefix/bin/opdev"
ls "$WORK/prefix/lib/"libopdev_c.so.1 >/dev/null
ls "$WORK/prefix/lib/"libopdev.so* >/dev/null
test -f "$WORK/prefix/lib/cmake/opdev/opdevConfigVersion.cmake"
PKG_CONFIG_PATH="$WORK/prefix/lib/pkgconfig" pkg-config --libs opdev | grep -q -- "-lopdev_c"
cmake -S "$SOURCE_DIR/examples/embed-cpp" -B "$WORK/build" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
      -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$WORK/build" -j 2 >/dev/null
LD_LIBRARY_PATH="$WORK/prefix/lib" "$WORK/build/embed_opdev" "$SOURCE_DIR/examples/softmax" "$KB_ROOT"
echo "install + embed: 1 passed, 0 failed"
