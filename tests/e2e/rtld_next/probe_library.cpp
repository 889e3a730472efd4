// Built three times (PROBE_VALUE 'A', 'B', 'C' as numbers) into libraries linked in
// that order, to check that dlsym(RTLD_NEXT, ...) under the shim still resolves from
// its real caller.
#include <dlfcn.h>

extern "C" char probe_value() { return static_cast<char>(PROBE_VALUE); }

#if PROBE_VALUE == 'B'
// The definition after this library's: 'C'. (A caller mistaken for the shim would
// find 'A'.)
extern "C" char probe_next_value() {
  auto next = reinterpret_cast<char (*)()>(dlsym(RTLD_NEXT, "probe_value"));
  return next ? next() : '-';
}
#endif
