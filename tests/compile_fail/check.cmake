# check.cmake: one compile-fail or compile-pass check (see README.md here).
#
#   cmake -DCONFIG=<build>/tests/compile_check_config.cmake
#         -DSOURCE=tests/compile_fail/<stem>.cpp -DMODE=fail|pass -P check.cmake
#
# CONFIG sets CXX (the compiler), CXX_ID (GNU or Clang) and CXX_FLAGS (a
# list: -std=c++20 -fsyntax-only, warnings, -I/-isystem directories).
#
# MODE=fail: compile with -DPASSINFRA_COMPILE_FAIL; the compiler must FAIL,
#   and the combined stdout+stderr must match every regex given in SOURCE by
#   `// expect-error: <regex>` lines (plus `// expect-error-gcc: <regex>` on
#   g++ and `// expect-error-clang: <regex>` on clang). An optional
#   `// expect-max-errors: <N>` bounds the number of "error:" lines.
# MODE=pass: compile without the define; the compiler must SUCCEED.
cmake_minimum_required(VERSION 3.25)

foreach(var CONFIG SOURCE MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check.cmake: -D${var}=... is required")
  endif()
endforeach()
include("${CONFIG}")

# fail(<summary>): print the command, the compiler output and ${details}
# verbatim (FATAL_ERROR would re-wrap them), then stop with <summary>.
function(fail summary)
  message(NOTICE "---- command ----\n${command_line}\n"
                 "---- compiler output ----\n${output}"
                 "---- end of compiler output ----\n${details}")
  message(FATAL_ERROR "${summary}")
endfunction()
set(details "")

# Plain ASCII quotes and no colours in diagnostics, whatever the locale.
set(ENV{LC_ALL} C)
set(ENV{LANG} C)
unset(ENV{GCC_COLORS})

file(READ "${SOURCE}" text)

# Collect the directives. Walk the text instead of using a list, so a ';' in
# a regex stays a ';'.
set(regexes_count 0)
set(max_errors "")
set(rest "${text}")
while(TRUE)
  string(REGEX MATCH "(^|\n)[ \t]*//[ \t]*expect-(error|error-gcc|error-clang|max-errors):[ \t]*([^\r\n]*)" m "${rest}")
  if(m STREQUAL "")
    break()
  endif()
  set(kind "${CMAKE_MATCH_2}")
  string(STRIP "${CMAKE_MATCH_3}" value)
  string(FIND "${rest}" "${m}" pos)
  string(LENGTH "${m}" len)
  math(EXPR pos "${pos} + ${len}")
  string(SUBSTRING "${rest}" ${pos} -1 rest)

  if(kind STREQUAL "max-errors")
    set(max_errors "${value}")
    continue()
  endif()
  if(kind STREQUAL "error-gcc" AND NOT CXX_ID STREQUAL "GNU")
    continue()
  endif()
  if(kind STREQUAL "error-clang" AND NOT CXX_ID MATCHES "Clang")
    continue()
  endif()
  if(value STREQUAL "")
    message(FATAL_ERROR "${SOURCE}: empty 'expect-${kind}:' regex")
  endif()
  set(regex_${regexes_count} "${value}")
  math(EXPR regexes_count "${regexes_count} + 1")
endwhile()

if(MODE STREQUAL "fail")
  if(regexes_count EQUAL 0)
    message(FATAL_ERROR "${SOURCE}: no '// expect-error: <regex>' line for ${CXX_ID}")
  endif()
  set(defines -DPASSINFRA_COMPILE_FAIL)
elseif(MODE STREQUAL "pass")
  set(defines "")
else()
  message(FATAL_ERROR "check.cmake: MODE must be fail or pass, not '${MODE}'")
endif()

set(command "${CXX}" ${CXX_FLAGS} ${defines} "${SOURCE}")
execute_process(
  COMMAND ${command}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)
list(JOIN command " " command_line)

if(MODE STREQUAL "pass")
  if(NOT rc EQUAL 0)
    fail("compile_pass: the passing twin of ${SOURCE} does not compile (exit ${rc}).")
  endif()
  message(STATUS "compile_pass: ${SOURCE} compiles")
  return()
endif()

if(rc EQUAL 0)
  fail("compile_fail: ${SOURCE} compiles with -DPASSINFRA_COMPILE_FAIL, but it must not.")
endif()

set(failed "")
math(EXPR last "${regexes_count} - 1")
foreach(i RANGE ${last})
  if(NOT output MATCHES "${regex_${i}}")
    string(APPEND failed "  ${regex_${i}}\n")
  endif()
endforeach()
if(NOT failed STREQUAL "")
  set(details "---- regexes (${CXX_ID}) not found in the compiler output ----\n${failed}")
  fail("compile_fail: ${SOURCE} fails to compile, but not with the expected message (regexes above).")
endif()

if(NOT max_errors STREQUAL "")
  string(REPLACE ";" "," counted "\n${output}")
  string(REGEX MATCHALL "\n[^\n]*: (fatal )?error: " errors "${counted}")
  list(LENGTH errors error_count)
  if(error_count GREATER max_errors)
    fail("compile_fail: ${SOURCE}: ${error_count} error lines, expected at most ${max_errors} (expect-max-errors).")
  endif()
endif()
message(STATUS "compile_fail: ${SOURCE} fails as expected (${CXX_ID})")
