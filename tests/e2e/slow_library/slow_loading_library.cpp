// Built as libslow_loading.so: takes 200 ms to load and is not CUPTI. Given to the shim
// as its CUPTI library, it makes setting counters up slow in a way a test can rely on.
#include <time.h>

namespace {
__attribute__((constructor)) void load_slowly() {
  timespec delay{0, 200'000'000};
  while (nanosleep(&delay, &delay) != 0) {
  }
}
}  // namespace
