// The recursion of bench/stack_capture, built without frame pointers (-fomit-frame-pointer,
// GCC's default at -O1 and above, so most programs and libraries look like this): no
// frame saves or sets %rbp, so a frame-pointer walk from its bottom skips all of it.
namespace computeprof::bench {

namespace {

__attribute__((noinline, noclone)) int descend_without_frame_pointers(int n, void (*bottom)(void*), void* arg) {
  int r = 0;
  if (n > 0) {
    r = descend_without_frame_pointers(n - 1, bottom, arg);
  } else {
    bottom(arg);
  }
  // Something after the call, so that neither call is a tail call nor the recursion a loop.
  asm volatile("" : "+r"(r) : : "memory");
  return r + 1;
}

}  // namespace

// Calls bottom(arg) from the bottom of `depth` frames compiled without frame pointers.
__attribute__((noinline)) int run_without_frame_pointers(int depth, void (*bottom)(void*), void* arg) {
  return descend_without_frame_pointers(depth - 1, bottom, arg);
}

}  // namespace computeprof::bench
