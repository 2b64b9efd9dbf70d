# Warning, floating-point, sanitizer and compiler-cache settings shared by every opdev target.

# No contraction of a multiply and an add into one fused operation: GCC does it in C++ by
# default wherever FMA instructions are enabled, and whether it does depends on the
# optimisation level, so a result would depend on the build type. Fused steps are written as
# std::fma or FMA intrinsics where they are meant.
add_compile_options(-ffp-contract=off)
add_library(opdev_warnings INTERFACE)
target_compile_options(opdev_warnings INTERFACE -Wall -Wextra -Wno-unused-parameter)
if(OPDEV_WERROR)
  target_compile_options(opdev_warnings INTERFACE -Werror)
  # GCC 12 at -O3 reports -Wrestrict on std::string concatenation inside libstdc++ (GCC bug
  # 105329, a false positive): kept as a warning so a Release build with warnings as errors
  # still builds.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(opdev_warnings INTERFACE -Wno-error=restrict)
  endif()
endif()

if(OPDEV_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

find_program(OPDEV_CCACHE ccache)
if(OPDEV_CCACHE)
  # Paths below the source tree are hashed relative to it and the working directory is not
  # hashed, so clones and worktrees share hits (debug info may name the first clone's paths).
  set(OPDEV_CCACHE_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
      CCACHE_NOHASHDIR=1 ${OPDEV_CCACHE})
  set(CMAKE_C_COMPILER_LAUNCHER ${OPDEV_CCACHE_LAUNCHER})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${OPDEV_CCACHE_LAUNCHER})
endif()
