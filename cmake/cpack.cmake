# cmake/cpack.cmake — the Debian packages `cpack -G DEB` (make package) builds,
# one per install component (cmake/package.cmake, python/CMakeLists.txt):
#
#   passinfra-dev_<v>_all.deb          component dev: headers, CMake package,
#                                      pkg-config file; Depends libboost1.81-dev
#   python3-passinfra_<v>_<arch>.deb   component python, when python/ is built:
#                                      /usr/lib/python3/dist-packages/passinfra
#                                      (the extension _core and the .py files);
#                                      Depends on the python3 it was built for and,
#                                      through dpkg-shlibdeps, on libc6/libstdc++6
#
# Included last by the top-level CMakeLists.txt, so that every install rule is known.
set(CPACK_PACKAGE_NAME "passinfra")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "passinfra")
set(CPACK_PACKAGE_CONTACT "passinfra developers <passinfra@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_GENERATOR "DEB")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)

set(CPACK_COMPONENTS_ALL dev)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME "passinfra-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libboost1.81-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "libcli11-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_ARCHITECTURE "all")
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION "libdevel")
# Descriptions: the first line is the synopsis, the rest the extended description
# (no CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack would put it before each as a second synopsis).
set(CPACK_DEBIAN_DEV_DESCRIPTION "C++20 header-only pass infrastructure with TVM's pass-infra behaviour
Passes, Sequential pipelines, PassContext, pass instruments, analyses and nests
composed at compile time, with a type-erased run-time layer; opt_main
(passinfra::tool, with libcli11-dev) for opt-style drivers.")

if(TARGET passinfra_python_core)
  list(APPEND CPACK_COMPONENTS_ALL python)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME "python3-passinfra")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION "python")
  # The extension is built for one CPython (its file name says which).
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
      "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}), python3 (<< ${Python3_VERSION_MAJOR}.${PASSINFRA_PYTHON_NEXT_MINOR})")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS "python3-numpy")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PYTHON_DESCRIPTION "passinfra for Python: TVM's pass infrastructure over the C++ core
passinfra.transform (PassContext, Sequential, module_pass, function_pass),
passinfra.instrument (pass_instrument, PassTimingInstrument, PrintIR*, bisect,
crash reproducer) and passinfra.tinyir, a Relay-like IR with Relay's spellings,
so that TVM's pass tutorials run as written.")
endif()
include(CPack)
