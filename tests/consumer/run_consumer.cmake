# tests/consumer/run_consumer.cmake — one consumer test, run by ctest:
#   cmake -DMODE=find_package|add_subdirectory -DSOURCE_DIR=<passinfra> -DBINARY_DIR=<passinfra build>
#         -DWORK_DIR=<scratch> -DCXX=<compiler> -P run_consumer.cmake
# find_package: installs the build tree into WORK_DIR/prefix, then configures,
# builds and runs tests/consumer/find_package against it. add_subdirectory:
# configures, builds and runs tests/consumer/add_subdirectory.
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
elseif(MODE STREQUAL "add_subdirectory")
  set(extra "-DPASSINFRA_SOURCE_DIR=${SOURCE_DIR}")
else()
  message(FATAL_ERROR "run_consumer.cmake: MODE is '${MODE}'; expected find_package or add_subdirectory")
endif()
run("configure" "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/tests/consumer/${MODE}" -B "${WORK_DIR}/build"
    "-DCMAKE_CXX_COMPILER=${CXX}" ${extra})
run("build" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run("run" "${WORK_DIR}/build/consumer")
message(STATUS "consumer test (${MODE}): built and ran")
