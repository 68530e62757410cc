# tests/compiled/check_objects.cmake — ctest compiled.objects: the compiled
# mode compiles each cold instance once, in the library, and in no user's
# translation unit (include/passinfra/detail/compiled.hpp).
#   cmake -DNM=<nm> -DINCLUDE_DIR=<include/> -DLIBRARY=<objects of passinfra_compiled>
#         -DHEADER_ONLY=<probe.o, header-only> -DCOMPILED=<probe.o, PASSINFRA_COMPILED> -P check_objects.cmake
# The instances are the PASSINFRA_COLD_INSTANCE(...) lines of the headers, so
# a new one is checked without a list to keep here:
#  * the library defines every one (else a user of the compiled mode cannot link);
#  * the PASSINFRA_COMPILED probe defines none (else the mode saves nothing);
#  * the header-only probe defines the context's ones (else the probe reached
#    no cold code and the second check could not fail).
function(defined_symbols out)
  set(all "")
  foreach(object IN LISTS ARGN)
    execute_process(COMMAND "${NM}" -C --defined-only "${object}" RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "compiled.objects: ${NM} ${object} failed (${rc}): ${err}")
    endif()
    string(APPEND all "${text}")
  endforeach()
  set(${out} "${all}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE headers "${INCLUDE_DIR}/passinfra/*.hpp")
set(names "")
foreach(header IN LISTS headers)
  file(STRINGS "${header}" lines REGEX "^PASSINFRA_COLD_INSTANCE\\(")
  foreach(line IN LISTS lines)
    # "...(class NameIndexOf<void>)" -> "NameIndexOf<void>::"; "...(void throw_error<void>(...))" -> "throw_error<void>("
    if(line MATCHES "^PASSINFRA_COLD_INSTANCE\\(class ([A-Za-z_0-9]+)<void>\\)$")
      list(APPEND names "${CMAKE_MATCH_1}<void>::")
    elseif(line MATCHES "([A-Za-z_0-9]+)<void>\\(")
      list(APPEND names "${CMAKE_MATCH_1}<void>(")
    else()
      message(FATAL_ERROR "compiled.objects: cannot read the instance in ${header}: ${line}")
    endif()
  endforeach()
endforeach()
list(LENGTH names count)
if(count LESS 10)
  message(FATAL_ERROR "compiled.objects: found ${count} PASSINFRA_COLD_INSTANCE lines under ${INCLUDE_DIR}; expected the cold functions of core/ and detail/")
endif()

defined_symbols(library ${LIBRARY})
defined_symbols(header_only ${HEADER_ONLY})
defined_symbols(compiled ${COMPILED})
set(failures "")
foreach(name IN LISTS names)
  string(FIND "${library}" "${name}" at)
  if(at EQUAL -1)
    string(APPEND failures "\n  the library (src/passinfra.cpp) does not define ${name}...")
  endif()
  string(FIND "${compiled}" "${name}" at)
  if(NOT at EQUAL -1)
    string(APPEND failures "\n  the PASSINFRA_COMPILED probe defines ${name}... (compiled where it should be extern)")
  endif()
endforeach()
# (The [[gnu::noinline]] ones: emitted whatever the optimization level.)
foreach(name "throw_error<void>(" "reject_options<void>(" "reject_unregistered_config<void>(")
  string(FIND "${header_only}" "${name}" at)
  if(at EQUAL -1)
    string(APPEND failures "\n  the header-only probe does not define ${name}... (the probe no longer reaches it)")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "compiled.objects: ${failures}")
endif()
message(STATUS "compiled.objects: ${count} cold instances: all in the library, none in a compiled-mode user's object")
