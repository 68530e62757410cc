// The doctest runner for passinfra_tests; the test cases live in
// tests/**/*_test.cpp (one file per header, mirroring include/passinfra/).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
