#pragma once
// The library of stack_program: built with -fvisibility=hidden, it exports only this.
#include <cuda.h>

__attribute__((visibility("default"))) void stack_library_launch(CUfunction f);
