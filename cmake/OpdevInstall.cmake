# Install rules and the CMake package (opdevConfig.cmake, version file, targets) plus opdev.pc.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${CMAKE_SOURCE_DIR}/libopdev/include/opdev DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(OPDEV_INSTALL_TARGETS opdev_shared opdev_static)
if(TARGET opdev_c)
  list(APPEND OPDEV_INSTALL_TARGETS opdev_c)
  install(FILES ${CMAKE_SOURCE_DIR}/bindings/c/opdev.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
install(TARGETS ${OPDEV_INSTALL_TARGETS} EXPORT opdevTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS opdev_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The Python binding and the CPU device's packages (opdev exec finds them here).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/bindings/python/opdev ${CMAKE_SOURCE_DIR}/bindings/python/device
        DESTINATION ${CMAKE_INSTALL_DATADIR}/opdev/python PATTERN __pycache__ EXCLUDE)
install(EXPORT opdevTargets NAMESPACE opdev:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/opdev)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/opdevConfig.cmake.in
  ${CMAKE_BINARY_DIR}/opdevConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/opdev)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/opdevConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/opdevConfig.cmake ${CMAKE_BINARY_DIR}/opdevConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/opdev)
# opdev.pc is relocatable: its prefix is ${pcfiledir} (the directory pkg-config found it in)
# followed by one ".." per component of LIBDIR/pkgconfig, so the installed tree can be moved
# or installed with any --prefix. An absolute LIBDIR keeps the configured prefix.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  message(FATAL_ERROR "opdev.pc needs CMAKE_INSTALL_LIBDIR and CMAKE_INSTALL_INCLUDEDIR relative to the prefix")
endif()
string(REGEX REPLACE "[^/]+" ".." OPDEV_PC_PREFIX_FROM_PCDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
configure_file(${CMAKE_SOURCE_DIR}/cmake/opdev.pc.in ${CMAKE_BINARY_DIR}/opdev.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/opdev.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
