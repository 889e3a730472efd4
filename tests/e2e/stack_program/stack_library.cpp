// stack_program's library, built with -fvisibility=hidden: launch_hidden is in its
// .symtab, not its .dynsym, so that only the symbol table names it.
#include "stack_library.hpp"

#include <cstdio>
#include <cstdlib>

__attribute__((noinline)) void launch_hidden(CUfunction f) {
  unsigned long long ns = 1000;
  void* args[] = {&ns};
  if (cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr) != CUDA_SUCCESS) {  // at: library launch
    std::printf("FAIL: spin\n");
    std::exit(1);
  }
}

void stack_library_launch(CUfunction f) {
  launch_hidden(f);  // at: library calls hidden
  asm volatile("");
}
