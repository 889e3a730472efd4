// libunwind's unw_backtrace for bench/stack_capture, built only where libunwind's
// headers are installed (libunwind-dev). A module the bench opens with RTLD_LOCAL, never
// a library it links: libunwind.so exports `backtrace` and `_Unwind_Backtrace` too, and
// linked into the bench they would replace glibc's and libgcc's, the very functions it
// compares libunwind with.
#define UNW_LOCAL_ONLY
#include <libunwind.h>

extern "C" __attribute__((visibility("default"))) int stack_capture_unw_backtrace(void** out, int most) {
  return unw_backtrace(out, most);
}
