#pragma once
// Whether calls are recorded: read by the trampolines, which shim/intercept/ holds.
#include <atomic>

extern "C" std::atomic<int> computeprof_state;

// A second declaration of intercept's table: a use of shim/intercept/ no #include shows.
extern "C" void* computeprof_table[4];
