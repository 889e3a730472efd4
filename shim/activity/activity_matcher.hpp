#pragma once
// Ties CUPTI's activity records to the shim's records. The shim pushes an external id
// of its own around each real call; CUPTI then writes an external correlation record
// (that id and CUPTI's correlation id of the call) and, once the work ran, activity
// records carrying the correlation id. Those arrive in any order, in buffers CUPTI
// delivers at its own pace; the shim's record arrives once the call returned (with
// conckerneltrace) or once the shim waited for the operation (serialized: its event
// pair's times kept as the fallback). Whichever comes last completes the match;
// nothing is guessed. A graph launch's nodes each become a record of their own.
// Serialized records come out in the order they were expected. Not thread-safe: the
// caller serialises (activity_trace.cpp). Time is passed in, so this is testable.
#include <cstdint>
#include <deque>
#include <map>
#include <memory_resource>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "logfmt/record.hpp"
#include "shim/activity/activity_records.hpp"
#include "shim/activity/node_pool.hpp"

namespace computeprof::shim {

struct ProfiledContext;

// An operation the shim made: its record, all but the GPU times CUPTI will give.
struct ExpectedOperation {
  std::uint64_t external_id = 0;
  const ProfiledContext* context = nullptr;
  logfmt::Record record;
  // The operation completed and its record holds its event pair's GPU times (the
  // fallback); otherwise it may still be running and its GPU times are unknown.
  bool timed_by_events = false;
  // The driver's context it runs in (a CUcontext), to wait for when it may still run.
  void* device_context = nullptr;
};

// Where a ready record's GPU times come from.
enum class GpuTimesFrom : std::uint8_t { activity, events, unknown };

// A record to submit.
struct ReadyRecord {
  const ProfiledContext* context = nullptr;
  logfmt::Record record;
  GpuTimesFrom times = GpuTimesFrom::activity;
};

class ActivityMatcher {
 public:
  // An operation timed by events with no activity by then is written with its event times.
  static constexpr std::uint64_t kOverdueNs = 2'000'000'000;
  // A graph launch's node records still accepted after its first one arrived (they
  // may come in other buffers).
  static constexpr std::uint64_t kGraphLingerNs = 50'000'000;
  // Activities and correlations no expected operation claims are dropped after
  // this long (work the shim did not tag, or calls that failed)...
  static constexpr std::uint64_t kUnclaimedNs = 10'000'000'000;
  // ...or, without an external id, after this many delivery rounds (an external
  // correlation record is complete at its call, so it comes with the next delivery).
  static constexpr int kUntaggedRounds = 3;

  // `in_order`: records come out in the order their operations were expected (serialized
  // mode); otherwise as soon as they are complete.
  explicit ActivityMatcher(bool in_order = false) : in_order_(in_order) {}
  ActivityMatcher(const ActivityMatcher&) = delete;
  ActivityMatcher& operator=(const ActivityMatcher&) = delete;
  // Before the first operation is expected.
  void keep_order(bool in_order) { in_order_ = in_order; }

  void add(const GpuActivity& activity, std::uint64_t now_ns, std::vector<ReadyRecord>& out);
  void add(const ExternalCorrelation& correlation, std::uint64_t now_ns, std::vector<ReadyRecord>& out);
  void expect(ExpectedOperation operation, std::uint64_t now_ns, std::vector<ReadyRecord>& out);
  // After each delivery of buffers: overdue operations come out with their event
  // times, finished graph launches and unclaimed activities are let go.
  void end_round(std::uint64_t now_ns, std::vector<ReadyRecord>& out);
  // Everything CUPTI had has been delivered: every expected operation of `context` (of
  // every context when null) comes out now.
  void settle(const ProfiledContext* context, std::vector<ReadyRecord>& out);

  bool waiting() const { return !expected_.empty() || !correlations_.empty(); }
  // Whether an operation of `context` (of any context when null) still has no activity.
  bool expecting(const ProfiledContext* context) const;
  // The device contexts of `context`'s operations (of every context's when null) that
  // have no activity and may still be running: what a flush point waits for.
  std::vector<void*> running_device_contexts(const ProfiledContext* context) const;
  std::size_t expected_count() const { return expected_.size(); }

 private:
  struct Correlation {
    explicit Correlation(std::pmr::memory_resource* memory) : activities(memory) {}
    std::uint64_t external_id = 0;  // 0 until its external correlation record came
    std::pmr::vector<GpuActivity> activities;
  };
  struct Expected {
    ExpectedOperation operation;
    std::uint64_t since_ns = 0;
    std::uint64_t sequence = 0;  // order of expect()
    bool matched = false;        // graph launches: some node records came
    std::uint64_t linger_until_ns = 0;
  };
  // A deadline to look at in end_round; what it names may be gone by then.
  struct Deadline {
    std::uint64_t at = 0;  // ns, or a round number
    std::uint64_t id = 0;  // an external id, or a correlation id
  };

  Correlation& correlation(std::uint32_t id, std::uint64_t now_ns);
  void try_complete(std::uint32_t correlation_id, std::uint64_t now_ns, std::vector<ReadyRecord>& out);
  void forget(std::uint64_t external_id);
  void drop_correlation(std::uint32_t id);
  // A record of the operation expected `sequence`-th is ready: out now, or held until
  // every operation expected before it is out (in order).
  void emit(std::uint64_t sequence, ReadyRecord ready, std::vector<ReadyRecord>& out);
  // That operation gives no more records that later ones must wait for.
  void finished(std::uint64_t sequence, std::vector<ReadyRecord>& out);
  static ReadyRecord fallback(Expected& e);
  logfmt::Record node_record(const logfmt::Record& launch, const GpuActivity& node);
  std::string_view intern(const char* name);

  // Every operation and correlation is a node of these maps: made and freed per
  // operation, from a pool rather than malloc. Declared first, destroyed last.
  NodePool memory_;
  template <typename Key, typename Value>
  using Map = std::pmr::unordered_map<Key, Value>;
  Map<std::uint32_t, Correlation> correlations_{&memory_};
  Map<std::uint64_t, std::uint32_t> correlation_of_{&memory_};  // external id -> correlation id
  Map<std::uint64_t, Expected> expected_{&memory_};             // by external id
  std::unordered_set<std::string> names_;                      // never shrinks: records point into it

  // What end_round looks at, oldest first, so that a round costs what expires in it
  // rather than everything outstanding: operations timed by events (overdue after
  // kOverdueNs), matched graph launches (until they stop lingering), and correlations
  // (untagged after kUntaggedRounds, unclaimed after kUnclaimedNs).
  std::deque<Deadline> overdue_at_;
  std::deque<Deadline> lingering_until_;
  std::deque<Deadline> untagged_after_round_;
  std::deque<Deadline> unclaimed_at_;
  std::uint64_t round_ = 0;

  bool in_order_;
  std::uint64_t next_sequence_ = 0;
  std::set<std::uint64_t> unfinished_;                          // in order: expected, not out yet
  std::map<std::uint64_t, std::vector<ReadyRecord>> held_;      // in order: ready, waiting for earlier ones
};

}  // namespace computeprof::shim
