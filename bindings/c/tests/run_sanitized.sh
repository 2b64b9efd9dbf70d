#!/usr/bin/env bash
# Builds libopdev_c, the C ABI test program and the opdev command with AddressSanitizer and
# UndefinedBehaviorSanitizer (OPDEV_SANITIZE=ON, in BUILD_DIR/sanitize: only these targets),
# then runs the C ABI test (the whole round and several contexts on several threads) and the
# Python binding tests with the sanitizer runtime preloaded into /usr/bin/python3.
# Any sanitizer report fails the run.
# Usage: run_sanitized.sh BUILD_DIR SOURCE_DIR KB_ROOT [--quick]
#   --quick: the C program without the round, and only the binding's fast Python tests.
set -euo pipefail
BUILD="$1/sanitize"
SRC="$2"
KB="$3"
QUICK="${4:-}"
cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPDEV_SANITIZE=ON \
  -DOPDEV_WERROR=OFF -DOPDEV_BUILD_BENCH=OFF -DOPDEV_BUILD_TESTS=ON >/dev/null
cmake --build "$BUILD" -j "${JOBS:-$(nproc)}" --target opdev_c_abi_test opdev_cli opdev_c >/dev/null

export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
echo "== C ABI test (ASan/UBSan)"
"$BUILD/bindings/c/opdev_c_abi_test" "$BUILD/bin/opdev" "$SRC" "$KB" $QUICK

# CPython is not built with ASan: preload the runtime, and do not count the interpreter's
# own allocations still reachable at exit as leaks (detect_leaks=0); every access error
# and undefined behaviour in libopdev_c still stops the run. Child processes (the command,
# the golden's interpreter) inherit the preload and the options.
echo "== Python binding tests (ASan/UBSan runtime preloaded)"
ASAN_LIB="$(gcc -print-file-name=libasan.so)"
UBSAN_LIB="$(gcc -print-file-name=libubsan.so)"
PATTERN="test_*.py"
[ "$QUICK" = "--quick" ] && PATTERN="test_binding.py"
env LD_PRELOAD="$ASAN_LIB $UBSAN_LIB" ASAN_OPTIONS="halt_on_error=1:detect_leaks=0" \
  OPDEV_C_LIBRARY="$BUILD/lib/libopdev_c.so" OPDEV_BIN="$BUILD/bin/opdev" OPDEV_SOURCE_DIR="$SRC" \
  OPDEV_KB_ROOT="$KB" PYTHONPATH="$SRC/bindings/python" \
  /usr/bin/python3 -m unittest discover -s "$SRC/bindings/python/tests" -p "$PATTERN"
