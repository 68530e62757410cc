# cmake/package.cmake — install rules, the CMake package, pkg-config, CPack.
#
#   cmake --install <build> --prefix <dir>   headers, passinfraConfig.cmake
#                                            (+ version file, SameMajorVersion),
#                                            passinfraTargets.cmake, passinfra.pc
#   cpack -G DEB (make package)              passinfra-dev: the headers (component
#                                            dev, architecture all, depending on
#                                            libboost1.81-dev); python3-passinfra:
#                                            the Python package (component python,
#                                            python/CMakeLists.txt) when it is built
# The headers are architecture-independent: their CMake files go under share/.
# The CPack settings are cmake/cpack.cmake, included at the end of the top-level
# CMakeLists.txt (after python/ has added its install rules).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PASSINFRA_CMAKE_DIR "${CMAKE_INSTALL_DATADIR}/cmake/passinfra")

install(TARGETS passinfra EXPORT passinfraTargets COMPONENT dev)
if(TARGET passinfra_tool)
  # Component `tool`: find_package(passinfra COMPONENTS tool) finds CLI11 too.
  install(TARGETS passinfra_tool EXPORT passinfraToolTargets COMPONENT dev)
  install(EXPORT passinfraToolTargets
          NAMESPACE passinfra::
          DESTINATION "${PASSINFRA_CMAKE_DIR}"
          COMPONENT dev)
endif()
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/passinfra"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        COMPONENT dev
        FILES_MATCHING PATTERN "*.hpp")
# The compiled mode's one source file: an installed passinfra's
# passinfraConfig.cmake builds passinfra::passinfra_compiled from it, in the
# consumer's build, with the consumer's compiler and flags.
install(FILES "${PROJECT_SOURCE_DIR}/src/passinfra.cpp"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/passinfra"
        COMPONENT dev)
install(EXPORT passinfraTargets
        NAMESPACE passinfra::
        DESTINATION "${PASSINFRA_CMAKE_DIR}"
        COMPONENT dev)

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/passinfraConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/passinfraConfig.cmake"
  INSTALL_DESTINATION "${PASSINFRA_CMAKE_DIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/passinfraConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion
  ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/passinfraConfig.cmake"
              "${PROJECT_BINARY_DIR}/passinfraConfigVersion.cmake"
        DESTINATION "${PASSINFRA_CMAKE_DIR}"
        COMPONENT dev)

configure_file("${PROJECT_SOURCE_DIR}/cmake/passinfra.pc.in" "${PROJECT_BINARY_DIR}/passinfra.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/passinfra.pc" DESTINATION "${CMAKE_INSTALL_DATADIR}/pkgconfig" COMPONENT dev)
