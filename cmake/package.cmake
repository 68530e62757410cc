# cmake/package.cmake — install rules, the CMake package, pkg-config, CPack.
#
#   cmake --install <build> --prefix <dir>   headers, passinfraConfig.cmake
#                                            (+ version file, SameMajorVersion),
#                                            passinfraTargets.cmake, passinfra.pc
#   cpack -G DEB (make package)              a Debian package of the headers,
#                                            depending on libboost1.81-dev
# Header-only and architecture-independent: everything goes under share/.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PASSINFRA_CMAKE_DIR "${CMAKE_INSTALL_DATADIR}/cmake/passinfra")

install(TARGETS passinfra EXPORT passinfraTargets)
if(TARGET passinfra_tool)
  # Component `tool`: find_package(passinfra COMPONENTS tool) finds CLI11 too.
  install(TARGETS passinfra_tool EXPORT passinfraToolTargets)
  install(EXPORT passinfraToolTargets
          NAMESPACE passinfra::
          DESTINATION "${PASSINFRA_CMAKE_DIR}")
endif()
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/passinfra"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.hpp")
install(EXPORT passinfraTargets
        NAMESPACE passinfra::
        DESTINATION "${PASSINFRA_CMAKE_DIR}")

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
        DESTINATION "${PASSINFRA_CMAKE_DIR}")

configure_file("${PROJECT_SOURCE_DIR}/cmake/passinfra.pc.in" "${PROJECT_BINARY_DIR}/passinfra.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/passinfra.pc" DESTINATION "${CMAKE_INSTALL_DATADIR}/pkgconfig")

# CPack: `cpack -G DEB` in the build tree (the Makefile's `make package`).
set(CPACK_PACKAGE_NAME "passinfra-dev")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "passinfra")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "C++20 header-only pass infrastructure with TVM's pass-infra behaviour")
set(CPACK_PACKAGE_CONTACT "passinfra developers <passinfra@localhost>")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libboost1.81-dev")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcli11-dev")
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE "all")
set(CPACK_DEBIAN_PACKAGE_SECTION "libdevel")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_GENERATOR "DEB")
include(CPack)
