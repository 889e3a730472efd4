#pragma once
// The wrappers the trampolines jump to: named from the entry list, a link-time contract.
#include "shim/intercept/table.hpp"
#include "shim/process/state.hpp"

#define WRAPPER(NAME, PARAMS) extern "C" int computeprof_wrapped_##NAME PARAMS
