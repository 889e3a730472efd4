#pragma once
// Ties CUPTI's activity records to the shim's records. Each operation the shim makes
// has an id of its own (its external id); CUPTI's callback of the real call tells the
// call's correlation id, which the operation carries (its external correlation), and
// once the work ran CUPTI writes activity records carrying that correlation id. The
// activities arrive in buffers CUPTI delivers at its own pace; the shim's record
// arrives once the call returned (with conckerneltrace) or once the shim waited for the
// operation (serialized). Whichever comes
// last completes the match; nothing is guessed. A graph launch's nodes each become a
// record of their own. Serialized records come out in the order they were expected.
// Not thread-safe: the caller serialises (activity_trace.cpp). Time is passed in, so
// this is testable.
#include <cstdint>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "records/record.hpp"
#include "shim/activity/activity_records.hpp"
#include "shim/activity/id_table.hpp"
#include "shim/activity/ring_queue.hpp"
#include "shim/activity/sequential_id_table.hpp"

namespace computeprof::shim {

struct ProfiledContext;

// An operation the shim made: its record, all but the GPU times CUPTI will give.
struct ExpectedOperation {
  std::uint64_t external_id = 0;
  const ProfiledContext* context = nullptr;
  records::Record record;
  // The shim waited for the operation (serialized): it completed, and its activity is
  // due at CUPTI's next delivery. Otherwise it may still be running.
  bool waited = false;
  // CUPTI's correlation id of the call that made it (from CUPTI's callback of the call):
  // the operation's external correlation. 0 when CUPTI did not tell it.
  std::uint32_t correlation_id = 0;
  // The driver's context it runs in (a CUcontext), to wait for when it may still run.
  void* device_context = nullptr;
};

// Where a ready record's GPU times come from.
enum class GpuTimesFrom : std::uint8_t { activity, unknown };

// A record to submit.
struct ReadyRecord {
  const ProfiledContext* context = nullptr;
  records::Record record;
  GpuTimesFrom times = GpuTimesFrom::activity;
};

// Where the matcher hands each record as it becomes ready (in order: once every earlier
// operation's records are out). Records go straight on from where the matcher keeps
// them: none is copied into a list first.
class ReadySink {
 public:
  virtual void take(const ProfiledContext* context, const records::Record& record, GpuTimesFrom times) = 0;

 protected:
  ~ReadySink() = default;
};

class ActivityMatcher {
 public:
  // An operation waited for with no activity by then is written without GPU times.
  static constexpr std::uint64_t kOverdueNs = 2'000'000'000;
  // A graph launch's node records still accepted after its first one arrived (they
  // may come in other buffers).
  static constexpr std::uint64_t kGraphLingerNs = 50'000'000;
  // Activities no operation takes are dropped after this many delivery rounds (an
  // operation is queued as its call returns, and taken before each delivery).
  static constexpr int kUntaggedRounds = 3;

  // `in_order`: records come out in the order their operations were expected (serialized
  // mode); otherwise as soon as they are complete.
  explicit ActivityMatcher(bool in_order = false) : in_order_(in_order) {}
  ActivityMatcher(const ActivityMatcher&) = delete;
  ActivityMatcher& operator=(const ActivityMatcher&) = delete;
  // Before the first operation is expected.
  void keep_order(bool in_order) { in_order_ = in_order; }
  // Before the first operation is expected: graph launches' nodes are written only where
  // graph_node_selected (shim/process/recorded_operation.hpp) says so.
  void select_graph_nodes(bool select) { select_nodes_ = select; }

  void add(const GpuActivity& activity, std::uint64_t now_ns, ReadySink& out);
  // An activity by its times, where they are all it needs: outside graphs, the first of
  // its id, or its operation's (which came first). False when it must be added whole.
  bool add_times(const ActivityTimes& times, ReadySink& out);
  // `operation` is the caller's: where its activity already came, its record gets its
  // GPU times there and goes out from there, never stored. Inline: the common case is
  // one call with a small frame.
  void expect(ExpectedOperation& operation, std::uint64_t now_ns, ReadySink& out) {
    const std::uint32_t id = operation.correlation_id;
    const std::uint32_t found = id == 0 ? kNone : correlation_index_.find(id);
    if (found == kNone || !complete_on_arrival(operation, found, out)) store(operation, found, now_ns, out);
  }
  void expect(ExpectedOperation&& operation, std::uint64_t now_ns, ReadySink& out) { expect(operation, now_ns, out); }
  // After each delivery of buffers: overdue operations come out without GPU times,
  // finished graph launches and unclaimed activities are let go.
  void end_round(std::uint64_t now_ns, ReadySink& out);
  // Everything CUPTI had has been delivered: every expected operation of `context` (of
  // every context when null) comes out now.
  void settle(const ProfiledContext* context, ReadySink& out);

  bool waiting() const { return live_expected_ != 0 || !correlation_index_.empty(); }
  // The places its arrays hold, live or free: what a long run's matcher has grown to.
  struct Places {
    std::size_t operations = 0;
    std::size_t arrivals = 0;
    std::size_t correlations = 0;
  };
  Places places() const { return {expected_.size(), arrived_.size(), correlations_.size()}; }
  // Whether an operation of `context` (of any context when null) still has no activity.
  bool expecting(const ProfiledContext* context) const;
  // The device contexts of `context`'s operations (of every context's when null) that
  // have no activity and may still be running: what a flush point waits for.
  std::vector<void*> running_device_contexts(const ProfiledContext* context) const;

 private:
  // Operations and correlations live in arrays, correlations indexed by CUPTI's id
  // (SequentialIdTable, IdTable); a place freed is reused, with the capacity of its
  // vectors: once the arrays have grown to what is outstanding, matching allocates
  // nothing.
  // A correlation and its operation, once both are known, name each other's places
  // (checked before use: a place may have been reused since).
  static constexpr std::uint32_t kUnlinked = UINT32_MAX;
  static constexpr std::uint32_t kNone = IdTable<std::uint32_t>::kNone;  // what an index holds for an absent id
  // The common order, the operation expected (with its correlation id), then its
  // activity, needs no Correlation: the correlation id is indexed straight to the
  // operation's place with this bit set (the operation is then `claimed` by that id), and
  // the activity completes it where it is found. Every other case (activities first, a
  // graph launch's nodes, an id already claimed) goes through a Correlation. (Places
  // stay far below 2^31: an Expected is over 200 bytes.)
  static constexpr std::uint32_t kClaimedBit = 0x8000'0000u;
  static bool is_claim(std::uint32_t indexed) { return indexed != kNone && (indexed & kClaimedBit); }
  // The order each collector round makes the common one, the activity, then its
  // operation, needs no Correlation either: an activity outside graphs whose id is new
  // keeps only its kind and times, in `arrived_`, indexed with this bit set (places stay
  // far below 2^30). Its operation takes the times and the place is free again. A second
  // activity of the id, or an operation that must be stored, turns it into a Correlation.
  static constexpr std::uint32_t kArrivedBit = 0x4000'0000u;
  static bool is_arrived(std::uint32_t indexed) { return (indexed & (kClaimedBit | kArrivedBit)) == kArrivedBit; }
  static bool is_correlation(std::uint32_t indexed) { return (indexed & (kClaimedBit | kArrivedBit)) == 0; }
  struct Arrived {
    std::uint64_t start_ns = 0;
    std::uint64_t end_ns = 0;
    std::uint64_t round = 0;  // delivered in; let go after kUntaggedRounds
    std::uint32_t id = 0;     // CUPTI's correlation id
    records::RecordKind kind = records::RecordKind::kernel;
    bool live = false;
    std::uint32_t next_free = kUnlinked;  // not live: the next free place (free_arrived_)
  };
  struct Correlation {
    std::uint32_t id = 0;           // CUPTI's correlation id
    std::uint64_t external_id = 0;  // its operation's, 0 until the operation came
    std::uint32_t expected = kUnlinked;
    // Nearly every call has one activity (graph launches and batched copies more): the
    // first is kept here, so that a new place allocates nothing; the others in `more`.
    std::uint32_t activities = 0;
    GpuActivity first;
    std::vector<GpuActivity> more;
    bool live = false;
  };
  struct Expected {
    // A new place is made from its operation, not blanked first.
    explicit Expected(const ExpectedOperation& o) : operation(o) {}
    ExpectedOperation operation;
    std::uint64_t sequence = 0;  // order of expect()
    std::uint32_t correlation = kUnlinked;
    std::uint32_t claimed_by = 0;  // with `claimed`: the correlation id indexed to it
    std::uint32_t next_free = kUnlinked;  // not live: the next free place (free_expected_)
    bool claimed = false;
    bool matched = false;  // graph launches: some node records came
    bool live = false;
  };
  // A deadline to look at in end_round; what it names may be gone by then (its place
  // freed, or reused by another operation).
  struct Deadline {
    std::uint64_t at = 0;  // ns, or a round number
    std::uint64_t id = 0;  // an operation's external id, or a correlation id
    std::uint32_t place = 0;  // the operation's place in expected_
  };
  // In order: an operation expected and not yet finished, with its records that are
  // ready but wait for an earlier operation.
  struct Unfinished {
    bool finished = false;
    std::vector<ReadyRecord> held;
  };

  // The correlation `id`, made if it is new (then `*made` is set). An operation claimed by
  // `id` gets a Correlation for it, linked.
  Correlation& correlation(std::uint32_t id, bool* made = nullptr);
  // The order each collector round makes the common one (the round's activities, then
  // the operations queued before them): `operation`'s one activity is here, untagged
  // (what its id is indexed to: `found`), and no earlier operation holds records back;
  // it completes at once. False otherwise.
  bool complete_on_arrival(ExpectedOperation& operation, std::uint32_t found, ReadySink& out);
  // Otherwise the operation is kept until its activities come (`found`: what its id is
  // indexed to). Out of line, as is add_otherwise: the common cases do not pay for
  // their frames.
  [[gnu::noinline]] void store(const ExpectedOperation& operation, std::uint32_t found, std::uint64_t now_ns,
                               ReadySink& out);
  // store()'s common case where no place is free: the array grows.
  [[gnu::noinline]] void store_in_new_place(const ExpectedOperation& operation);
  // store()'s other cases: in order, waited for, no id or one already known, a graph
  // launch.
  [[gnu::noinline]] void store_otherwise(const ExpectedOperation& operation, std::uint32_t found,
                                         std::uint64_t now_ns, ReadySink& out);
  // `e`'s place is free (first of the free list); what it holds stays until reused.
  void free_place(Expected& e) {
    e.live = false;
    --live_expected_;
    e.next_free = free_expected_;
    free_expected_ = place_of(e);
  }
  // `e`, its operation set, is live: the `sequence`-th expected, tied to nothing yet.
  void occupy(Expected& e, std::uint64_t sequence) {
    e.sequence = sequence;
    e.correlation = kUnlinked;
    e.claimed = false;
    e.matched = false;
    e.live = true;
    ++live_expected_;
  }
  // An activity of a graph launch's node, or a second one of a call.
  [[gnu::noinline]] void add_otherwise(const GpuActivity& activity, std::uint64_t now_ns, ReadySink& out);
  // `e` was made by the call CUPTI gave correlation id `id`, and is tied to it through a
  // Correlation: the call's activities came first, `e` is a graph launch, or another
  // operation claimed the id.
  void tag(Expected& e, std::uint32_t id, std::uint64_t now_ns, ReadySink& out);
  // Ties correlation `id` to `e` directly when nothing else is tied to either; false
  // when `e` needs a Correlation. Inline: once per operation.
  bool claim(Expected& e, std::uint32_t id) {
    // A graph launch's nodes come over time and are kept in a Correlation.
    if (e.claimed || e.correlation != kUnlinked || e.operation.record.kind == records::RecordKind::graph) return false;
    e.claimed = true;
    e.claimed_by = id;
    correlation_index_.assign(id, kClaimedBit | place_of(e));
    return true;
  }
  // `e`'s record, its GPU times `start_ns` to `end_ns`, out; `e` and the correlation that
  // completed it (if any) forgotten. Once per operation: its common case in a few
  // instructions, the others (in order, through a Correlation) out of line.
  void complete(Expected& e, std::uint64_t start_ns, std::uint64_t end_ns, Correlation* completing,
                ReadySink& out);
  [[gnu::noinline]] void complete_otherwise(Expected& e, Correlation* completing, ReadySink& out);
  std::uint32_t place_of(const Expected& e) const { return static_cast<std::uint32_t>(&e - expected_.data()); }
  // The arrived activity at `place` is gone (its index entry is the caller's). Inline:
  // once per operation.
  [[gnu::always_inline]] void free_arrival(std::uint32_t place) {
    Arrived& a = arrived_[place];
    a.live = false;
    --live_arrived_;
    a.next_free = free_arrived_;
    free_arrived_ = place;
  }
  // An activity that came alone kept at free `place`.
  void keep_arrival(std::uint32_t place, const ActivityTimes& times);
  // The same where no place is free: the array grows. Out of line: add_times's common
  // case then keeps nothing across a call.
  [[gnu::noinline]] bool keep_arrival_in_new_place(const ActivityTimes& times);
  // The arrived activity at `place` as a GpuActivity; its place freed.
  GpuActivity take_arrived(std::uint32_t place);
  // Arrived activities no operation took within kUntaggedRounds, let go.
  void let_go_untaken_arrivals();
  Correlation* find_correlation(std::uint32_t id);
  // The operation `external_id` if it still holds `place`.
  Expected* live_at(std::uint32_t place, std::uint64_t external_id) {
    Expected& e = expected_[place];
    return e.live && e.operation.external_id == external_id ? &e : nullptr;
  }
  void link(Expected& e, Correlation& c);
  Expected* expected_of(Correlation& c);
  void try_complete(Correlation& c, std::uint64_t now_ns, ReadySink& out);
  void forget(Expected& e);
  void drop_correlation(Correlation& c);
  // A record of the operation expected `sequence`-th is ready: out now, or held until
  // every operation expected before it is out (in order).
  void emit(std::uint64_t sequence, const ProfiledContext* context, const records::Record& record, GpuTimesFrom times,
            ReadySink& out);
  // That operation gives no more records that later ones must wait for.
  void finished(std::uint64_t sequence, ReadySink& out);
  // An operation no activity came for, out without GPU times.
  void emit_fallback(const Expected& e, ReadySink& out);
  records::Record node_record(const records::Record& launch, const GpuActivity& node);
  std::string_view intern(const char* name);

  std::vector<Correlation> correlations_;
  std::vector<std::uint32_t> free_correlations_;
  std::vector<Arrived> arrived_;
  std::uint32_t free_arrived_ = kUnlinked;  // the first free place, or kUnlinked
  std::size_t live_arrived_ = 0;
  // No live arrival is older (when any is live): end_round passes over the places only
  // when one may be due.
  std::uint64_t oldest_arrival_round_ = 0;
  // correlation id -> place in correlations_, kClaimedBit | place in expected_, or
  // kArrivedBit | place in arrived_
  SequentialIdTable<std::uint32_t> correlation_index_;
  std::vector<Expected> expected_;
  std::uint32_t free_expected_ = kUnlinked;  // the first free place, or kUnlinked
  // Operations are found through their correlation id, or by the place a deadline or a
  // Correlation noted (with their external id, to tell a place reused): none is looked
  // up by its own id.
  std::size_t live_expected_ = 0;
  std::unordered_set<std::string> names_;  // never shrinks: records point into it

  // What end_round looks at, oldest first, so that a round costs what expires in it
  // rather than everything outstanding: operations waited for (overdue after
  // kOverdueNs), matched graph launches (until they stop lingering), and correlations
  // no operation took (after kUntaggedRounds).
  RingQueue<Deadline> overdue_at_;
  RingQueue<Deadline> lingering_until_;
  RingQueue<Deadline> untagged_after_round_;
  std::uint64_t round_ = 0;

  bool in_order_;
  bool select_nodes_ = false;
  std::uint64_t next_sequence_ = 0;
  // In order: the operations from the oldest unfinished one on, by sequence.
  RingQueue<Unfinished> unfinished_;
  std::uint64_t first_unfinished_ = 0;  // the sequence of unfinished_.front()
};

}  // namespace computeprof::shim
