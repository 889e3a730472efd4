// Catch's main() and test runner, compiled once for every test binary
// (computeprof_catch_main, tests/CMakeLists.txt).
#define CATCH_CONFIG_MAIN
#include "catch.hpp"
