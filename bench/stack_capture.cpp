// What capturing a call stack of 32 frames costs (`callstack`), the shim's way
// against the alternatives, measured as ratios within one run (this machine is shared
// and noisy). Each capture runs at the bottom of a recursion of 48 noinline frames, so
// that 32 frames exist above it:
//   shim            the shim's own capture_call_stack (shim/process/call_stacks.cpp),
//                   from libstack_capture_shim.so, linked as libcomputeprof.so is
//                   (libgcc's unwinder linked in statically): libgcc's _Unwind_Backtrace
//                   over the unwind tables, its own frames left out, then the stack
//                   interned (a hit in the per-thread cache: the same stack every time,
//                   as in a loop of launches);
//   libgcc          the same _Unwind_Backtrace loop, here (libgcc_s), without interning;
//   backtrace()     glibc's backtrace(), libgcc_s's unwinder behind it;
//   frame pointers  a walk of the saved frame pointers, bounded by the thread's stack:
//                   this file is built with -fno-omit-frame-pointer;
//   libunwind       unw_backtrace, where libunwind's headers were found at configure
//                   time (bench/stack_capture_libunwind.cpp, a module opened with
//                   RTLD_LOCAL); otherwise the line says it was not built.
// Each method makes --captures captures per round, the methods interleaved, --rounds
// rounds; the median of the thread's CPU time per capture is reported. Then every method captures once from the same
// recursion built without frame pointers (bench/stack_capture_nofp.cpp, as programs
// usually are): how many of its 32 frames are the ones the unwind tables give.
//
//   stack_capture [--captures N] [--rounds R]
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <time.h>
#include <unwind.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" std::uint32_t stack_capture_shim_capture(unsigned depth);
extern "C" std::size_t stack_capture_shim_frames(std::uint32_t id, std::uintptr_t* out, std::size_t most);

namespace computeprof::bench {
int run_without_frame_pointers(int depth, void (*bottom)(void*), void* arg);
}

namespace {

constexpr int kDepth = 32;      // frames captured: `callstack`'s default
constexpr int kRecursion = 48;  // frames of the recursion the captures run under
constexpr int kMost = 64;       // entries a capture may write (its own frames included)

// The thread's CPU time: the captures are computation alone, and other processes'
// share of this machine's two cores is not theirs.
std::uint64_t cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

// A method writes the return addresses of its caller's stack into `out`, innermost
// first, and returns how many: its own frames as its API has them, then 32 from the
// bottom's call site (aligned() finds where those start).
using Capture = int (*)(std::uintptr_t* out);

// Whether the shim's capture should also look its frames up (the checks), not only
// take the stack's number (what a launch does).
bool g_shim_frames_wanted = false;

// Its first program frame is this function: one more, so that it too reaches 32 frames
// from the bottom's call site.
__attribute__((noinline)) int capture_shim(std::uintptr_t* out) {
  const std::uint32_t id = stack_capture_shim_capture(kDepth + 1);
  if (!g_shim_frames_wanted) return id == 0 ? 0 : 1;
  return static_cast<int>(stack_capture_shim_frames(id, out, kMost));
}

// The loop of shim/process/call_stacks.cpp, its own frame (this function's) left out.
struct Unwinding {
  std::uintptr_t* out;
  int count;
  int skip;
};

_Unwind_Reason_Code note_frame(_Unwind_Context* context, void* data) {
  auto* u = static_cast<Unwinding*>(data);
  const std::uintptr_t ip = _Unwind_GetIP(context);
  if (ip == 0) return _URC_END_OF_STACK;
  if (u->skip > 0) {
    --u->skip;
    return _URC_NO_REASON;
  }
  u->out[u->count++] = ip;
  return u->count == kDepth ? _URC_END_OF_STACK : _URC_NO_REASON;
}

__attribute__((noinline)) int capture_libgcc(std::uintptr_t* out) {
  Unwinding u{out, 0, 1};
  _Unwind_Backtrace(note_frame, &u);
  return u.count;
}

// backtrace()'s first entry is this function.
__attribute__((noinline)) int capture_backtrace(std::uintptr_t* out) {
  return backtrace(reinterpret_cast<void**>(out), kDepth + 1);
}

// This thread's stack: a frame pointer outside it, or one that does not lead up the
// stack, ends the walk (without frame pointers %rbp holds anything).
std::uintptr_t g_stack_low = 0;
std::uintptr_t g_stack_high = 0;

void find_stack_bounds() {
  pthread_attr_t attr;
  void* low = nullptr;
  std::size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) != 0 || pthread_attr_getstack(&attr, &low, &size) != 0) {
    std::fprintf(stderr, "stack_capture: cannot find this thread's stack\n");
    std::exit(1);
  }
  pthread_attr_destroy(&attr);
  g_stack_low = reinterpret_cast<std::uintptr_t>(low);
  g_stack_high = g_stack_low + size;
}

__attribute__((noinline)) int capture_frame_pointers(std::uintptr_t* out) {
  const auto* fp = static_cast<const std::uintptr_t*>(__builtin_frame_address(0));
  int n = 0;
  while (n < kDepth) {
    const auto at = reinterpret_cast<std::uintptr_t>(fp);
    if (at < g_stack_low || at + 2 * sizeof(std::uintptr_t) > g_stack_high || (at & 7) != 0) break;
    const std::uintptr_t ret = fp[1];  // fp[0]: the caller's frame pointer; fp[1]: the return address
    if (ret == 0) break;
    out[n++] = ret;
    const auto* next = reinterpret_cast<const std::uintptr_t*>(fp[0]);
    if (next <= fp) break;
    fp = next;
  }
  return n;
}

using UnwBacktrace = int (*)(void**, int);
UnwBacktrace g_unw_backtrace = nullptr;  // from the libunwind module, if built

#ifdef STACK_CAPTURE_LIBUNWIND
// Its first entries are the module's function and this one (or not: aligned() tells).
__attribute__((noinline)) int capture_libunwind(std::uintptr_t* out) {
  return g_unw_backtrace(reinterpret_cast<void**>(out), kDepth + 2);
}
#endif

// The bottom's call site: where every method returns to.
__attribute__((noinline)) int capture_return_address(std::uintptr_t* out) {
  out[0] = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  return 1;
}

struct Method {
  const char* name;
  Capture capture;
};

// The batch the bottom of a recursion runs: `captures` calls of one method, all from
// one call site.
struct Batch {
  Capture capture;
  long captures;
  std::array<std::uintptr_t, kMost> out{};
  int count = 0;
  std::uint64_t ns = 0;
};

__attribute__((noinline)) void bottom(void* arg) {
  auto* b = static_cast<Batch*>(arg);
  const std::uint64_t start = cpu_ns();
  for (long i = 0; i < b->captures; ++i) b->count = b->capture(b->out.data());
  b->ns = cpu_ns() - start;
}

__attribute__((noinline, noclone)) int descend(int n, void (*at_bottom)(void*), void* arg) {
  int r = 0;
  if (n > 0) {
    r = descend(n - 1, at_bottom, arg);
  } else {
    at_bottom(arg);
  }
  // Something after the call, so that neither call is a tail call nor the recursion a loop.
  asm volatile("" : "+r"(r) : : "memory");
  return r + 1;
}

Batch run_batch(Capture capture, long captures, bool frame_pointers) {
  Batch b;
  b.capture = capture;
  b.captures = captures;
  if (frame_pointers) {
    descend(kRecursion - 1, bottom, &b);
  } else {
    computeprof::bench::run_without_frame_pointers(kRecursion, bottom, &b);
  }
  return b;
}

// The entries of a capture from the bottom's call site on, at most kDepth; empty if the
// call site is not among its first entries.
std::vector<std::uintptr_t> aligned(const Batch& b, std::uintptr_t call_site) {
  const int count = std::min(b.count, kMost);
  for (int i = 0; i < count && i < 4; ++i) {
    if (b.out[i] == call_site) return {b.out.begin() + i, b.out.begin() + std::min(count, i + kDepth)};
  }
  return {};
}

// How many of `frames` are the reference's, place by place.
int same_frames(const std::vector<std::uintptr_t>& frames, const std::vector<std::uintptr_t>& reference) {
  int same = 0;
  for (std::size_t i = 0; i < frames.size() && i < reference.size(); ++i) same += frames[i] == reference[i] ? 1 : 0;
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  long captures = 20000;
  int rounds = 11;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--captures" && i + 1 < argc) captures = std::atol(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--captures N] [--rounds R]\n", argv[0]);
      return 2;
    }
  }
  if (captures <= 0 || rounds <= 0) return 2;
  find_stack_bounds();

  std::vector<Method> methods = {
      {"shim capture_call_stack", capture_shim},
      {"libgcc _Unwind_Backtrace", capture_libgcc},
      {"glibc backtrace()", capture_backtrace},
      {"frame pointers", capture_frame_pointers},
  };
  const char* libunwind_missing = "libunwind: not built (install libunwind-dev)";
#ifdef STACK_CAPTURE_LIBUNWIND
  if (void* module = dlopen(STACK_CAPTURE_LIBUNWIND, RTLD_NOW | RTLD_LOCAL)) {
    g_unw_backtrace = reinterpret_cast<UnwBacktrace>(dlsym(module, "stack_capture_unw_backtrace"));
    if (g_unw_backtrace) methods.push_back({"libunwind unw_backtrace", capture_libunwind});
  } else {
    std::fprintf(stderr, "stack_capture: %s\n", dlerror());
  }
  if (!g_unw_backtrace) libunwind_missing = "libunwind: built, but its module did not load";
#endif

  // The frames each method gets, against libgcc's unwinder reading the unwind tables.
  const std::uintptr_t call_site = run_batch(capture_return_address, 1, true).out[0];
  g_shim_frames_wanted = true;
  std::vector<std::vector<std::uintptr_t>> with_fp, without_fp;
  for (const Method& m : methods) {
    with_fp.push_back(aligned(run_batch(m.capture, 1, true), call_site));
    without_fp.push_back(aligned(run_batch(m.capture, 1, false), call_site));
  }
  g_shim_frames_wanted = false;
  const std::vector<std::uintptr_t>& reference = with_fp[1];
  const std::vector<std::uintptr_t>& reference_without_fp = without_fp[1];

  // Warm-up (backtrace() opens libgcc_s on its first call; the shim interns the stack
  // on its first), then the rounds.
  for (const Method& m : methods) run_batch(m.capture, 100, true);
  std::vector<std::vector<double>> samples(methods.size());
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < methods.size(); ++i) {
      const Batch b = run_batch(methods[i].capture, captures, true);
      samples[i].push_back(static_cast<double>(b.ns) / static_cast<double>(captures));
    }
  }
  std::vector<double> median;
  for (auto& v : samples) {
    std::sort(v.begin(), v.end());
    median.push_back(v[v.size() / 2]);
  }

  std::printf("a call stack of %d frames under a recursion of %d noinline frames; %ld captures x %d rounds,\n"
              "interleaved, median CPU ns per capture; frames: from the capturing call, and the same as libgcc's\n",
              kDepth, kRecursion, captures, rounds);
  std::printf("  %-26s %10s %9s %8s %7s %8s\n", "method", "ns/capture", "ns/frame", "/shim", "frames", "same");
  std::size_t fastest = 0;
  for (std::size_t i = 0; i < methods.size(); ++i) {
    if (median[i] < median[fastest]) fastest = i;
    const auto frames = static_cast<int>(with_fp[i].size());
    std::printf("  %-26s %10.1f %9.1f %7.3fx %7d %8d\n", methods[i].name, median[i],
                frames > 0 ? median[i] / frames : 0.0, median[i] / median[0], frames, same_frames(with_fp[i], reference));
  }
  if (!g_unw_backtrace) std::printf("  %s\n", libunwind_missing);
  std::printf("fastest: %s, %.1fx faster than the shim's capture\n", methods[fastest].name, median[0] / median[fastest]);

  std::printf("the same recursion built without frame pointers (bench/stack_capture_nofp.cpp): of the %d frames\n"
              "libgcc's unwinder reads from the unwind tables, how many each method gets, place by place\n",
              kDepth);
  for (std::size_t i = 0; i < methods.size(); ++i) {
    std::printf("  %-26s %3d of %zu (%zu frames)\n", methods[i].name, same_frames(without_fp[i], reference_without_fp),
                reference_without_fp.size(), without_fp[i].size());
  }
  if (!g_unw_backtrace) std::printf("  %s\n", libunwind_missing);
  return 0;
}
