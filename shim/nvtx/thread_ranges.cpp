#include "shim/nvtx/thread_ranges.hpp"

#include <array>
#include <atomic>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "config/report.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/capture_window.hpp"
#include "shim/process/clock.hpp"
#include "shim/process/operation_ids.hpp"
#include "shim/process/range_path.hpp"

namespace computeprof::shim {
namespace {

using records::RangeDomainId;
using records::RangeEvent;
using records::RangeEventKind;
using records::RangeNameId;
using records::RangePathId;

constexpr RangeNameId kNoName = ~RangeNameId{0};
std::atomic<RangeNameId> g_window_name{kNoName};
std::atomic<RangeNameId> g_window_domain_name{0};

// Inline: at every push and pop; the domain is looked at only for the window's name.
[[gnu::always_inline]] inline bool in_window(RangeDomainId domain, RangeNameId name) {
  return name == g_window_name.load(std::memory_order_relaxed) &&
         records::range_table().domain_name(domain) == g_window_domain_name.load(std::memory_order_relaxed);
}

struct OpenRange {
  std::uint64_t start_ns = 0;
  RangeDomainId domain = 0;
  RangeNameId name = 0;
  RangePathId path = 0;
  RangeAttributes attributes;
};

// Child paths met on the thread, by parent and step (direct-mapped).
struct CachedPath {
  records::RangePathStep step{~RangePathId{0}, 0, 0};
  RangePathId path = 0;
};
constexpr std::size_t kCachedPaths = 256;

struct ThreadRanges {
  std::array<OpenRange, kMaxRangeDepth> open;
  std::uint32_t depth = 0;
  std::uint32_t beyond = 0;  // pushes past kMaxRangeDepth not popped yet
  std::array<CachedPath, kCachedPaths> paths;

  RangePathId path() const { return depth == 0 ? 0 : open[depth - 1].path; }

  RangePathId child(RangePathId parent, RangeDomainId domain, RangeNameId name) {
    const records::RangePathStep step{parent, domain, name};
    CachedPath& entry = paths[(parent * 0x9e3779b1U ^ name * 0x85ebca6bU ^ domain) % kCachedPaths];
    if (entry.step == step) [[likely]] return entry.path;
    entry = {step, records::range_table().intern_path(parent, domain, name)};
    return entry.path;
  }
};

// Made at the thread's first NVTX range, freed when it exits.
constinit thread_local ThreadRanges* t_ranges = nullptr;

struct ThreadRangesOwner {
  ~ThreadRangesOwner() {
    delete t_ranges;
    t_ranges = nullptr;
  }
};

[[gnu::noinline]] ThreadRanges& make_thread_ranges() {
  // Its destructor is registered at this first use, on threads that use NVTX only.
  static thread_local ThreadRangesOwner owner;
  (void)owner;
  t_ranges = new ThreadRanges;
  return *t_ranges;
}

ThreadRanges& thread_ranges() {
  if (t_ranges == nullptr) [[unlikely]] return make_thread_ranges();
  return *t_ranges;
}

// One line for the first of each kind of misuse: the program goes on, unchanged.
std::atomic<bool> g_unmatched_pop_said{false};
std::atomic<bool> g_unknown_end_said{false};
void say_once(std::atomic<bool>& said, std::string_view line) {
  if (!said.exchange(true, std::memory_order_relaxed)) config::warn(line);
}

RangeEvent event_of(RangeEventKind kind, RangeDomainId domain, RangeNameId name, const RangeAttributes& a) {
  RangeEvent e;
  e.kind = kind;
  e.domain = domain;
  e.name = name;
  e.category = a.category;
  e.color = a.color;
  e.has_color = a.has_color;
  e.payload = a.payload;
  e.payload_bits = a.payload_bits;
  e.thread_id = e.end_thread_id = this_thread_id();
  return e;
}

// Start/end ranges open now, by id: shared by threads (a range may end on another), so
// behind a lock, one of several chosen by the id.
struct StartedRange {
  OpenRange range;
  std::uint32_t thread_id = 0;
};
struct StartedShard {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, StartedRange> open;
};
constexpr std::size_t kStartedShards = 16;
std::array<StartedShard, kStartedShards>& started_shards() {
  static auto* shards = new std::array<StartedShard, kStartedShards>;  // never freed: ends come until exit
  return *shards;
}

// A pop whose domain's innermost range is not the top (1 + its place), or 0 when the
// domain has none open on the thread.
[[gnu::noinline]] std::uint32_t interleaved_range(const ThreadRanges& t, RangeDomainId domain) {
  std::uint32_t i = t.depth;
  while (i != 0 && t.open[i - 1].domain != domain) --i;
  if (i == 0) {
    say_once(g_unmatched_pop_said, "an NVTX range was popped that was not pushed on its thread (and domain); "
                                   "that pop and any other are left out");
  }
  return i;
}

}  // namespace

void set_capture_range(RangeNameId name, RangeNameId domain_name) {
  g_window_domain_name.store(domain_name, std::memory_order_relaxed);
  g_window_name.store(name, std::memory_order_relaxed);
}

int push_range(RangeDomainId domain, RangeNameId name, const RangeAttributes& attributes) {
  ThreadRanges& t = thread_ranges();
  if (t.depth == kMaxRangeDepth) [[unlikely]] {
    ++t.beyond;
    return static_cast<int>(t.depth + t.beyond - 1);
  }
  const RangePathId path = t.child(t.path(), domain, name);
  t.open[t.depth++] = {wall_ns(), domain, name, path, attributes};
  set_thread_range_path(path);
  if (in_window(domain, name)) [[unlikely]] capture_range_opened();
  return static_cast<int>(t.depth - 1);
}

int pop_range(RangeDomainId domain) {
  ThreadRanges& t = thread_ranges();
  if (t.beyond != 0) [[unlikely]] {
    --t.beyond;
    return static_cast<int>(t.depth + t.beyond);
  }
  // The innermost range of the domain: the top, unless domains interleave.
  std::uint32_t i = t.depth;
  if (i == 0 || t.open[i - 1].domain != domain) [[unlikely]] {
    i = interleaved_range(t, domain);
    if (i == 0) return -1;
  }
  const OpenRange& ended = t.open[i - 1];
  const std::uint64_t end_ns = wall_ns();
  const std::uint32_t thread = this_thread_id();
  // Written in place, in the ring's slot.
  submit_range_event_with([&](RangeEvent& e) {
    e.start_wall_ns = ended.start_ns;
    e.end_wall_ns = end_ns;
    e.range_id = 0;
    e.payload_bits = ended.attributes.payload_bits;
    e.path = ended.path;
    e.name = ended.name;
    e.domain = ended.domain;
    e.thread_id = e.end_thread_id = thread;
    e.category = ended.attributes.category;
    e.color = ended.attributes.color;
    e.kind = RangeEventKind::push_pop;
    e.payload = ended.attributes.payload;
    e.has_color = ended.attributes.has_color;
  });
  const bool window = in_window(ended.domain, ended.name);
  // Those pushed after it, in other domains, stay open: their paths lose it.
  for (std::uint32_t j = i; j < t.depth; ++j) {
    OpenRange& moved = t.open[j - 1];
    moved = t.open[j];
    moved.path = t.child(j == 1 ? 0 : t.open[j - 2].path, moved.domain, moved.name);
  }
  --t.depth;
  set_thread_range_path(t.path());
  if (window) [[unlikely]] capture_range_closed();
  return static_cast<int>(i - 1);
}

std::uint64_t start_range(RangeDomainId domain, RangeNameId name, const RangeAttributes& attributes) {
  // Unique in the process, never 0 (NVTX's "no range"): the operation ids' scheme.
  const std::uint64_t id = next_operation_id();
  StartedShard& shard = started_shards()[id % kStartedShards];
  {
    std::lock_guard lock(shard.mutex);
    shard.open[id] = {{wall_ns(), domain, name, 0, attributes}, this_thread_id()};
  }
  if (in_window(domain, name)) capture_range_opened();
  return id;
}

void end_range(std::uint64_t id) {
  const std::uint64_t end_ns = wall_ns();
  StartedShard& shard = started_shards()[id % kStartedShards];
  StartedRange started;
  {
    std::lock_guard lock(shard.mutex);
    auto found = shard.open.find(id);
    if (found == shard.open.end()) {
      say_once(g_unknown_end_said, "an NVTX range was ended that was not started, or was ended already; that end "
                                   "and any other are left out");
      return;
    }
    started = found->second;
    shard.open.erase(found);
  }
  const OpenRange& r = started.range;
  RangeEvent e = event_of(RangeEventKind::start_end, r.domain, r.name, r.attributes);
  e.thread_id = started.thread_id;
  e.start_wall_ns = r.start_ns;
  e.end_wall_ns = end_ns;
  e.range_id = id;
  submit_range_event(e);
  if (in_window(r.domain, r.name)) capture_range_closed();
}

void mark(RangeDomainId domain, RangeNameId name, const RangeAttributes& attributes) {
  RangeEvent e = event_of(RangeEventKind::mark, domain, name, attributes);
  e.start_wall_ns = e.end_wall_ns = wall_ns();
  e.path = thread_range_path();
  submit_range_event(e);
}

void name_category(RangeDomainId domain, std::uint32_t category, RangeNameId name) {
  RangeAttributes a;
  a.category = category;
  RangeEvent e = event_of(RangeEventKind::category_name, domain, name, a);
  e.start_wall_ns = e.end_wall_ns = wall_ns();
  submit_range_event(e);
}

void name_thread(std::uint32_t thread_id, RangeNameId name) {
  RangeEvent e = event_of(RangeEventKind::thread_name, 0, name, {});
  e.thread_id = e.end_thread_id = thread_id;
  e.start_wall_ns = e.end_wall_ns = wall_ns();
  submit_range_event(e);
}

RangeDomainId create_domain(RangeNameId name) {
  const RangeDomainId domain = records::range_table().add_domain(name);
  RangeEvent e = event_of(RangeEventKind::domain_create, domain, name, {});
  e.start_wall_ns = e.end_wall_ns = wall_ns();
  submit_range_event(e);
  return domain;
}

void destroy_domain(RangeDomainId domain) {
  if (domain == 0) return;
  RangeEvent e = event_of(RangeEventKind::domain_destroy, domain, records::range_table().domain_name(domain), {});
  e.start_wall_ns = e.end_wall_ns = wall_ns();
  submit_range_event(e);
}

}  // namespace computeprof::shim
