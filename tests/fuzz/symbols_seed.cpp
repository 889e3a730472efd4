// The seed of symbols_fuzzer: a small program built with -g (static, inlined and
// exported functions, so that the seed has a symbol table, lines and inlined
// subroutines for the fuzzer to corrupt).
#include <cstdio>

__attribute__((always_inline)) static inline int twice(int x) { return 2 * x; }

__attribute__((noinline)) static int step(int x) { return twice(x) + 1; }

int main(int argc, char**) {
  std::printf("%d\n", step(argc));
  return 0;
}
