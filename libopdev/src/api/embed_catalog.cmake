# Build step for module `api`: embeds libopdev/data/pypto_pro_api.json into the library as a
# generated C++ source, so every binary (also when installed) carries the reviewed catalog.
# Included from libopdev/CMakeLists.txt after opdev_module(api ...); also runs in script
# mode (cmake -DIN=... -DOUT=... -P embed_catalog.cmake) to write the generated file.
if(CMAKE_SCRIPT_MODE_FILE)
  file(READ "${IN}" hex HEX)
  file(SIZE "${IN}" size)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" hex "${hex}")
  file(WRITE "${OUT}.tmp"
    "// Generated from libopdev/data/pypto_pro_api.json by embed_catalog.cmake. Do not edit.\n"
    "namespace opdev::api {\n"
    "extern const unsigned char kPyptoProApiJson[];\n"
    "extern const unsigned long kPyptoProApiJsonSize;\n"
    "const unsigned char kPyptoProApiJson[] = {\n${hex}0x00};\n"
    "const unsigned long kPyptoProApiJsonSize = ${size};\n"
    "}  // namespace opdev::api\n")
  file(RENAME "${OUT}.tmp" "${OUT}")
  return()
endif()

if(TARGET opdev_api)
  set(_opdev_api_json ${CMAKE_CURRENT_SOURCE_DIR}/data/pypto_pro_api.json)
  set(_opdev_api_cpp ${CMAKE_CURRENT_BINARY_DIR}/generated/pypto_pro_api_data.cpp)
  add_custom_command(
    OUTPUT ${_opdev_api_cpp}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/generated
    COMMAND ${CMAKE_COMMAND} -DIN=${_opdev_api_json} -DOUT=${_opdev_api_cpp}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/src/api/embed_catalog.cmake
    DEPENDS ${_opdev_api_json} ${CMAKE_CURRENT_SOURCE_DIR}/src/api/embed_catalog.cmake
    COMMENT "Embedding the PyPTO-Pro API catalog"
    VERBATIM)
  target_sources(opdev_api PRIVATE ${_opdev_api_cpp})
endif()
