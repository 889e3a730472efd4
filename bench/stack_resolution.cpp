// What naming call stacks costs, and whom (`callstack`, docs/format.md "Call stacks"):
// 100,000 captures from 1,000 distinct call sites (a template instantiated 1,000 times,
// each site a function of its own, 100 captures each, interleaved), through the shim's
// own capture_call_stack in libstack_capture_shim.so (bench/stack_capture_shim.cpp);
// two such families of sites, A and B.
//   1. The calling thread's CPU time per capture from A, nothing named yet (the median
//      of 100 rounds of 1,000 captures).
//   2. 100,000 captures from B, then their records named alone, as the writer thread
//      names them (symbolized_stack per record; each stack's text once, as the stacks
//      file writes it): wall and CPU time, elfutils' libdw loaded on the first frame
//      (its one-time cost included).
//   3. The records of 1 named on another thread (A's sites not named yet) while the
//      calling thread captures from A again: its CPU time per capture, to compare with 1
//      (naming runs on the writer, never on the caller).
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

template <int Family, int N>
__attribute__((noinline)) std::uint32_t call_site() {
  const std::uint32_t id = stack_capture_shim_capture(kDepth);
  asm volatile("");  // not a tail call: the site's own frame stays on the stack
  return id;
}

using Site = std::uint32_t (*)();

template <int Family, int... N>
constexpr std::array<Site, sizeof...(N)> sites_of(std::integer_sequence<int, N...>) {
  return {&call_site<Family, N>...};
}
constexpr auto kSitesA = sites_of<0>(std::make_integer_sequence<int, kSites>());
constexpr auto kSitesB = sites_of<1>(std::make_integer_sequence<int, kSites>());

// kRounds captures from each site, interleaved; the calling thread's CPU ns per capture,
// the median of the rounds (a round preempted on this shared machine counts once).
double capture_all(const std::array<Site, kSites>& sites, std::vector<std::uint32_t>& ids) {
  ids.clear();
  ids.reserve(kSites * kRounds);
  std::vector<double> rounds;
  for (int round = 0; round < kRounds; ++round) {
    const std::uint64_t start = cpu_ns();
    for (Site site : sites) ids.push_back(site());
    rounds.push_back(static_cast<double>(cpu_ns() - start) / kSites);
  }
  std::nth_element(rounds.begin(), rounds.begin() + kRounds / 2, rounds.end());
  return rounds[kRounds / 2];
}

struct Naming {
  double wall_ms = 0;
  double cpu_ms = 0;
  std::size_t frames = 0;
  std::size_t bytes = 0;
};

// The records' stacks named as the writer names them: each record's frames, each
// stack's text once.
Naming name_all(const std::vector<std::uint32_t>& ids) {
  Naming n;
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t cpu_start = cpu_ns();
  std::set<std::uint32_t> described;
  for (std::uint32_t id : ids) n.frames += stack_capture_shim_name(id, described.insert(id).second, &n.bytes);
  n.cpu_ms = static_cast<double>(cpu_ns() - cpu_start) / 1e6;
  n.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return n;
}

}  // namespace

int main() {
  std::vector<std::uint32_t> a;
  const double alone = capture_all(kSitesA, a);
  std::vector<std::uint32_t> b;
  capture_all(kSitesB, b);
  Naming cold = name_all(b);

  Naming beside;
  std::thread writer([&] { beside = name_all(a); });
  std::vector<std::uint32_t> again;
  const double while_naming = capture_all(kSitesA, again);
  writer.join();

  std::printf("captures: %zu from %d call sites, %u frames deep\n", a.size(), kSites, kDepth);
  std::printf("calling thread, nothing named:            %8.0f ns CPU per capture (median of %d rounds)\n", alone,
              kRounds);
  std::printf("calling thread, while the writer names:   %8.0f ns CPU per capture (median of %d rounds)\n",
              while_naming, kRounds);
  for (const auto& [what, n] : {std::pair{"alone, libdw loaded for them", &cold},
                                std::pair{"beside the calling thread", &beside}}) {
    std::printf("naming %zu records %s (%zu frames, %zu bytes of text): %.1f ms wall, %.1f ms CPU\n", a.size(), what,
                n->frames, n->bytes, n->wall_ms, n->cpu_ms);
  }
  const auto distinct = [](const std::vector<std::uint32_t>& ids) { return std::set(ids.begin(), ids.end()).size(); };
  return distinct(a) == kSites && distinct(b) == kSites && distinct(again) == kSites ? 0 : 1;
}
