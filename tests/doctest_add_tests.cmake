# doctest_add_tests.cmake: passinfra's test discovery script for
# doctest_discover_tests (tests/CMakeLists.txt points doctest.cmake at it).
#
# It does what doctest's own doctestAddTests.cmake (2.4.9) does -- run the
# test executable with --list-test-cases and write one add_test per TEST_CASE
# name, run as --test-case=<name> -- with two differences:
#
# * Names are read line by line, never as a CMake list, so a TEST_CASE name
#   may contain ';' (doctest's script splits such a name in two, and both
#   halves then match no test case and PASS without running anything).
# * Names that cannot work as a --test-case filter fail the build, listed:
#   names with doctest's wildcards '*' or '?', names used twice (doctest
#   compares names ignoring case, so such tests would run each other), and
#   names over 200 characters (ctest pads every output line to the longest
#   name; doctest spells a template case's type out in full). The
#   executable is then removed, so the next build links and checks again.
#
# Input (from doctest_discover_tests): TEST_EXECUTABLE, TEST_EXECUTOR,
# TEST_WORKING_DIR, TEST_SPEC, TEST_EXTRA_ARGS, TEST_PROPERTIES, TEST_PREFIX,
# TEST_SUFFIX, TEST_LIST, CTEST_FILE. (ADD_LABELS and JUNIT_OUTPUT_DIR are
# not supported.)
cmake_minimum_required(VERSION 3.25)

if(TEST_ADD_LABELS OR NOT "${TEST_JUNIT_OUTPUT_DIR}" STREQUAL "")
  message(FATAL_ERROR "doctest_add_tests.cmake: ADD_LABELS and JUNIT_OUTPUT_DIR are not supported")
endif()
if(NOT EXISTS "${TEST_EXECUTABLE}")
  message(FATAL_ERROR "Specified test executable '${TEST_EXECUTABLE}' does not exist")
endif()

set(spec "")
if(NOT "${TEST_SPEC}" STREQUAL "")
  set(spec "--test-case=${TEST_SPEC}")
endif()
execute_process(
  COMMAND ${TEST_EXECUTOR} "${TEST_EXECUTABLE}" ${spec} --list-test-cases
  OUTPUT_VARIABLE output
  ERROR_VARIABLE errors
  RESULT_VARIABLE result
  WORKING_DIRECTORY "${TEST_WORKING_DIR}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR
    "Error running test executable '${TEST_EXECUTABLE}':\n"
    "  Result: ${result}\n  Output: ${output}${errors}\n")
endif()

# bracket(<var> <text>): <text> as a CMake bracket argument.
function(bracket var text)
  if(text MATCHES "]==]")
    message(FATAL_ERROR "doctest_add_tests.cmake: a test name contains ']==]': ${text}")
  endif()
  set(${var} "[==[${text}]==]" PARENT_SCOPE)
endfunction()

bracket(exe "${TEST_EXECUTABLE}")
bracket(workdir "${TEST_WORKING_DIR}")
set(extra "")
foreach(arg IN LISTS TEST_EXTRA_ARGS)
  bracket(b "${arg}")
  string(APPEND extra " ${b}")
endforeach()
set(executor "")
foreach(arg IN LISTS TEST_EXECUTOR)
  bracket(b "${arg}")
  string(APPEND executor " ${b}")
endforeach()
set(properties "")
foreach(arg IN LISTS TEST_PROPERTIES)
  bracket(b "${arg}")
  string(APPEND properties " ${b}")
endforeach()

set(script "")
set(all_names "")
set(bad "")
set(seen "\n")
set(rest "${output}")
while(NOT rest STREQUAL "")
  string(FIND "${rest}" "\n" eol)
  if(eol EQUAL -1)
    set(line "${rest}")
    set(rest "")
  else()
    string(SUBSTRING "${rest}" 0 ${eol} line)
    math(EXPR eol "${eol} + 1")
    string(SUBSTRING "${rest}" ${eol} -1 rest)
  endif()
  string(REGEX REPLACE "\r$" "" line "${line}")
  if(line STREQUAL "" OR line MATCHES "^=+$" OR line MATCHES "^\\[doctest\\] ")
    continue()
  endif()

  string(TOLOWER "${line}" lower)
  string(FIND "${seen}" "\n${lower}\n" dup)
  string(APPEND seen "${lower}\n")
  if(line MATCHES "[*?]")
    string(APPEND bad "  \"${line}\" contains a doctest wildcard ('*' or '?')\n")
    continue()
  endif()
  if(NOT dup EQUAL -1)
    string(APPEND bad "  \"${line}\" is used twice (doctest compares names ignoring case)\n")
    continue()
  endif()
  string(LENGTH "${line}" length)
  if(length GREATER 200)
    string(SUBSTRING "${line}" 0 120 head)
    string(APPEND bad "  \"${head}...\" is ${length} characters long (at most 200: ctest pads every line "
                      "of its output to the longest name; a TEST_CASE_TEMPLATE spells its type out in full, "
                      "give the type a short name with TYPE_TO_STRING_AS)\n")
    continue()
  endif()

  # doctest splits a filter at unescaped commas.
  string(REPLACE "," "\\," filter "${line}")
  bracket(name "${TEST_PREFIX}${line}${TEST_SUFFIX}")
  bracket(filter "--test-case=${filter}")
  string(APPEND script
    "add_test(${name}${executor} ${exe} ${filter}${extra})\n"
    "set_tests_properties(${name} PROPERTIES WORKING_DIRECTORY ${workdir}${properties})\n")
  string(APPEND all_names " ${name}")
endwhile()

if(NOT bad STREQUAL "")
  file(REMOVE "${TEST_EXECUTABLE}")
  message(NOTICE
    "${TEST_EXECUTABLE}: these TEST_CASE names cannot become ctest tests "
    "(each test runs as --test-case=<name>):\n${bad}Rename them.")
  message(FATAL_ERROR "bad TEST_CASE names (listed above)")
endif()

if(NOT "${TEST_LIST}" STREQUAL "")
  string(APPEND script "set(${TEST_LIST}${all_names})\n")
endif()
file(WRITE "${CTEST_FILE}" "${script}")
