// Calls every entry point that makes operations, allocates memory or apitrace traces
// through what the shim hands out for a dlsym on the driver's handle, twice (the second
// call takes the trampoline's direct jump), and checks that the driver's function of
// the same name was reached each time.
// Run with the fake driver (fake_driver.cpp) as libcuda.so.1 and the shim preloaded.
#include <dlfcn.h>

#include <cstdio>
#include <iterator>
#include <cstring>

int main() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    std::printf("cannot load the fake driver: %s\n", dlerror());
    return 2;
  }
  auto last_called = reinterpret_cast<const char* (*)()>(dlsym(driver, "fake_driver_last_called"));
  struct Looked {
    const char* symbol;
    int (*fn)();
  };
  // Every lookup first: each tells the shim where the driver's function is, so that
  // afterwards every trampoline can take its direct jump.
  const Looked looked[] = {
#define ENTRY(sym, base, version, per_thread, pfn)
#define RECORDED_ENTRY(sym, base, version, per_thread, pfn) {#sym, reinterpret_cast<int (*)()>(dlsym(driver, #sym))},
#define MEMORY_ENTRY(sym, base, version, per_thread, pfn) {#sym, reinterpret_cast<int (*)()>(dlsym(driver, #sym))},
#define API_ENTRY(sym, base, version, per_thread, pfn) {#sym, reinterpret_cast<int (*)()>(dlsym(driver, #sym))},
#include "shim/intercept/cuda_entries.def"
  };
  int wrong = 0;
  for (const Looked& l : looked) {
    for (int call = 0; call < 2; ++call) {
      l.fn();
      if (std::strcmp(last_called(), l.symbol) != 0) {
        std::printf("%s (call %d) reached %s\n", l.symbol, call + 1, last_called());
        ++wrong;
      }
    }
  }
  std::printf("%zu entry points checked, %d reached another\n", std::size(looked), wrong);
  return wrong == 0 ? 0 : 1;
}
