# tests/consumer/run_consumer.cmake — one consumer test, run by ctest:
#   cmake -DMODE=find_package|add_subdirectory -DSOURCE_DIR=<passinfra> -DBINARY_DIR=<passinfra build>
#         -DWORK_DIR=<scratch> -DCXX=<compiler> [-DWITH_TOOL=ON] -P run_consumer.cmake
# WITH_TOOL (passinfra::tool exists), find_package only: also builds
# tests/consumer/tool_main.cpp against the installed component
# (find_package(passinfra COMPONENTS tool)) and runs it.
# find_package: installs the build tree into WORK_DIR/prefix, then configures,
# builds and runs tests/consumer/find_package against it. add_subdirectory:
# configures, builds and runs tests/consumer/add_subdirectory. Each builds
# main.cpp twice: on passinfra::passinfra and on passinfra::passinfra_compiled.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer test (${MODE}): ${what} failed (${rc}):\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(extra)
if(MODE STREQUAL "find_package")
  run("cmake --install" "${CMAKE_COMMAND}" --install "${BINARY_DIR}" --prefix "${WORK_DIR}/prefix")
  foreach(f include/passinfra/passinfra.hpp share/cmake/passinfra/passinfraConfig.cmake
            share/cmake/passinfra/passinfraConfigVersion.cmake share/pkgconfig/passinfra.pc)
    if(NOT EXISTS "${WORK_DIR}/prefix/${f}")
      message(FATAL_ERROR "consumer test: the install has no ${f}")
    endif()
  endforeach()
  set(extra "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix")
  # pkg-config: the .pc file finds its prefix from its own place, so an install
  # with --prefix other than the configured CMAKE_INSTALL_PREFIX still points
  # at the headers it installed (the consumer is built by hand with its flags).
  find_program(PKG_CONFIG pkg-config)
  if(PKG_CONFIG)
    set(ENV{PKG_CONFIG_PATH} "${WORK_DIR}/prefix/share/pkgconfig")
    execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs passinfra RESULT_VARIABLE rc
                    OUTPUT_VARIABLE pc_flags OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "consumer test: pkg-config --cflags --libs passinfra failed (${rc})")
    endif()
    string(FIND "${pc_flags}" "-I${WORK_DIR}/prefix/" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "consumer test: pkg-config gives '${pc_flags}', not the install prefix ${WORK_DIR}/prefix")
    endif()
    separate_arguments(pc_list UNIX_COMMAND "${pc_flags}")
    file(MAKE_DIRECTORY "${WORK_DIR}/pkgconfig")
    run("pkg-config build" "${CXX}" ${pc_list} "${SOURCE_DIR}/tests/consumer/main.cpp" -o "${WORK_DIR}/pkgconfig/consumer")
    run("pkg-config run" "${WORK_DIR}/pkgconfig/consumer")
  endif()
elseif(MODE STREQUAL "add_subdirectory")
  set(extra "-DPASSINFRA_SOURCE_DIR=${SOURCE_DIR}")
else()
  message(FATAL_ERROR "run_consumer.cmake: MODE is '${MODE}'; expected find_package or add_subdirectory")
endif()
if(NOT DEFINED WITH_TOOL OR NOT MODE STREQUAL "find_package")
  set(WITH_TOOL OFF)
endif()
run("configure" "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/tests/consumer/${MODE}" -B "${WORK_DIR}/build"
    "-DCMAKE_CXX_COMPILER=${CXX}" "-DWITH_TOOL=${WITH_TOOL}" ${extra})
run("build" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run("run" "${WORK_DIR}/build/consumer")
run("run the compiled-mode build" "${WORK_DIR}/build/consumer_compiled")
if(WITH_TOOL)
  run("run the tool" "${WORK_DIR}/build/consumer_tool")
endif()
message(STATUS "consumer test (${MODE}): built and ran")
