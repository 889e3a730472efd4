// What naming call stacks costs, and whom (`callstack`, docs/format.md "Call stacks"):
// 100,000 captures from 1,000 distinct call sites (a template instantiated 1,000 times,
// each site a function of its own, 100 captures each, interleaved), through the shim's
// own capture_call_stack in libstack_capture_shim.so (bench/stack_capture_shim.cpp).
//   1. The calling thread's CPU time per capture, nothing named yet.
//   2. The same 100,000 captures again while another thread names the first 100,000
//      records' stacks as the writer thread does (symbolized_stack per record; each
//      stack's text once, as the stacks file writes it): the calling thread's CPU time
//      per capture, to compare with 1 (naming runs on the writer, never on the caller).
//   3. That naming: wall and CPU time for the 100,000 records, frames named, with elfutils'
//      libdw loaded on the first frame (the one-time cost included).
//
//   stack_resolution
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <set>
#include <thread>
#include <utility>
#include <vector>

extern "C" std::uint32_t stack_capture_shim_capture(unsigned depth);
extern "C" std::size_t stack_capture_shim_name(std::uint32_t id, bool describe, std::size_t* bytes);

namespace {

constexpr int kSites = 1000;
constexpr int kRounds = 100;
constexpr unsigned kDepth = 32;

std::uint64_t cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

template <int N>
__attribute__((noinline)) std::uint32_t call_site() {
  const std::uint32_t id = stack_capture_shim_capture(kDepth);
  asm volatile("");  // not a tail call: the site's own frame stays on the stack
  return id;
}

using Site = std::uint32_t (*)();

template <int... N>
constexpr std::array<Site, sizeof...(N)> sites_of(std::integer_sequence<int, N...>) {
  return {&call_site<N>...};
}
constexpr auto kSiteTable = sites_of(std::make_integer_sequence<int, kSites>());

// kRounds captures from each site, interleaved; the calling thread's CPU ns per capture.
double capture_all(std::vector<std::uint32_t>& ids) {
  ids.clear();
  ids.reserve(kSites * kRounds);
  const std::uint64_t start = cpu_ns();
  for (int round = 0; round < kRounds; ++round) {
    for (Site site : kSiteTable) ids.push_back(site());
  }
  return static_cast<double>(cpu_ns() - start) / static_cast<double>(ids.size());
}

}  // namespace

int main() {
  std::vector<std::uint32_t> first;
  const double alone = capture_all(first);
  const std::set<std::uint32_t> distinct(first.begin(), first.end());

  // Naming on another thread, as the writer does, while the caller captures again.
  double wall_ms = 0, cpu_ms = 0;
  std::size_t frames = 0, bytes = 0;
  std::thread writer([&] {
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t cpu_start = cpu_ns();
    std::set<std::uint32_t> described;
    for (std::uint32_t id : first) frames += stack_capture_shim_name(id, described.insert(id).second, &bytes);
    cpu_ms = static_cast<double>(cpu_ns() - cpu_start) / 1e6;
    wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  });
  std::vector<std::uint32_t> second;
  const double while_naming = capture_all(second);
  writer.join();

  std::printf("captures: %zu from %d call sites (%zu distinct stacks), %u frames deep\n", first.size(), kSites,
              distinct.size(), kDepth);
  std::printf("calling thread, nothing named:            %8.0f ns CPU per capture\n", alone);
  std::printf("calling thread, while the writer names:   %8.0f ns CPU per capture\n", while_naming);
  std::printf("naming %zu records (%zu frames, %zu bytes of text): %.1f ms wall, %.1f ms CPU on the writer thread\n",
              first.size(), frames, bytes, wall_ms, cpu_ms);
  return second == first ? 0 : 1;
}
