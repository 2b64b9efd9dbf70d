#!/usr/bin/env bash
# Installs the built opdev into a temporary prefix, moves the whole tree elsewhere, and checks
# that the package still works from there: opdev.pc (pkg-config) resolves to the new place and
# a C program compiled and linked only through it runs; find_package(opdev) from the moved
# prefix configures; and the three version sources agree with the project version
# (`opdev --version`, opdev_version() of the C ABI, opdev.__version__ of the Python binding).
# Usage: install_relocated.sh BUILD_DIR SOURCE_DIR PROJECT_VERSION CC PYTHON
set -euo pipefail
BUILD_DIR="$1"; SOURCE_DIR="$2"; VERSION="$3"; CC_BIN="$4"; PY="$5"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
fail() { echo "install_relocated: $*" >&2; exit 1; }
cmake --install "$BUILD_DIR" --prefix "$WORK/first" >/dev/null
mkdir -p "$WORK/elsewhere"
mv "$WORK/first" "$WORK/elsewhere/moved"
P="$WORK/elsewhere/moved"
PC_DIR="$(dirname "$(find "$P" -name opdev.pc | head -n1)")"
[ -f "$PC_DIR/opdev.pc" ] || fail "no opdev.pc installed"
grep -q '^prefix=\${pcfiledir}' "$PC_DIR/opdev.pc" || fail "opdev.pc prefix is not \${pcfiledir}-relative"
export PKG_CONFIG_PATH="$PC_DIR"
LIBDIR="$(pkg-config --variable=libdir opdev)"
[ "$(realpath "$LIBDIR")" = "$(realpath "$(dirname "$PC_DIR")")" ] || fail "libdir $LIBDIR is not the moved tree's"
[ "$(realpath "$(pkg-config --variable=includedir opdev)")" = "$(realpath "$P/include")" ] || fail "includedir is not the moved tree's"
[ "$(pkg-config --modversion opdev)" = "$VERSION" ] || fail "opdev.pc version is not $VERSION"
# shellcheck disable=SC2046
"$CC_BIN" -o "$WORK/consumer" "$SOURCE_DIR/tests/e2e/pkgconfig_consumer.c" $(pkg-config --cflags --libs opdev)
C_OUT="$(LD_LIBRARY_PATH="$LIBDIR" "$WORK/consumer")" || fail "the pkg-config consumer failed"
[ "$C_OUT" = "$VERSION 1" ] || fail "opdev_version() says '$C_OUT', expected '$VERSION 1'"
CLI_OUT="$(LD_LIBRARY_PATH="$LIBDIR" "$P/bin/opdev" --version)"
[ "$CLI_OUT" = "opdev $VERSION" ] || fail "opdev --version says '$CLI_OUT'"
CLI_JSON="$(LD_LIBRARY_PATH="$LIBDIR" "$P/bin/opdev" --version --json)"
[ "$CLI_JSON" = "{\"abi_version\":1,\"version\":\"$VERSION\"}" ] || fail "opdev --version --json says '$CLI_JSON'"
PY_OUT="$(OPDEV_C_LIBRARY="$LIBDIR/libopdev_c.so.1" PYTHONPATH="$SOURCE_DIR/bindings/python" \
  "$PY" -c 'import opdev; print(opdev.__version__, opdev.version())')"
[ "$PY_OUT" = "$VERSION $VERSION" ] || fail "Python says '$PY_OUT'"
# The CMake package from the moved prefix.
mkdir -p "$WORK/cm"
cat > "$WORK/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(find_opdev LANGUAGES C CXX)
find_package(opdev REQUIRED)
get_target_property(loc opdev::c IMPORTED_LOCATION_RELEASE)
if(NOT loc)
  get_target_property(loc opdev::c IMPORTED_LOCATION_RELWITHDEBINFO)
endif()
if(NOT loc)
  get_target_property(loc opdev::c IMPORTED_LOCATION_NOCONFIG)
endif()
message(STATUS "OPDEV_VERSION=${opdev_VERSION}")
message(STATUS "OPDEV_C=${loc}")
CM
CM_OUT="$(cmake -S "$WORK/cm" -B "$WORK/cm/build" -DCMAKE_PREFIX_PATH="$P")"
echo "$CM_OUT" | grep -q "OPDEV_VERSION=$VERSION" || fail "find_package(opdev) version: $CM_OUT"
echo "$CM_OUT" | grep -q "OPDEV_C=$P/" || fail "opdev::c is not in the moved tree: $CM_OUT"
echo "install relocated: pkg-config, C ABI, CLI, Python and CMake package agree on $VERSION"
