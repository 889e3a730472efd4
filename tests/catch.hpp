#pragma once
// Catch2 v2 (Debian, CI) or v3 (newer distributions, e.g. the GPU machines): the
// tests use only what both spell the same. tests/CMakeLists.txt picks the version.
#if defined(COMPUTEPROF_CATCH3)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
