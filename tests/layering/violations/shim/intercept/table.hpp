#pragma once
// The driver's functions, read by the trampolines.
extern "C" void* computeprof_table[4];
