// Prints what RTLD_NEXT and RTLD_DEFAULT lookups find; the output must be the same with
// and without the shim preloaded. Libraries A, B, C all define probe_value.
#include <dlfcn.h>

#include <cstdio>

extern "C" char probe_next_value();  // B's, which comes first in this program's link order

int main() {
  auto from_main = reinterpret_cast<char (*)()>(dlsym(RTLD_NEXT, "probe_value"));
  auto by_default = reinterpret_cast<char (*)()>(dlsym(RTLD_DEFAULT, "probe_value"));
  std::printf("main next %c\n", from_main ? from_main() : '-');
  std::printf("default %c\n", by_default ? by_default() : '-');
  std::printf("B next %c\n", probe_next_value());
  return 0;
}
