#include "shim/activity/activity_matcher.hpp"

#include <algorithm>
#include <span>
#include <utility>

#include "shim/process/recorded_operation.hpp"

namespace computeprof::shim {

using records::CopyKind;
namespace {

void set_times(records::Record& r, std::uint64_t start, std::uint64_t end) {
  r.gpu_start_ns = start;
  r.gpu_end_ns = std::max(start, end);
  r.gputime_ns = r.gpu_end_ns - start;
}

// An operation's GPU span from its activities (one per call outside graphs; CUPTI folds
// a batch of copies into one record): `first` and `more`.
struct Span {
  std::uint64_t start;
  std::uint64_t end;
};
Span span_of(const GpuActivity& first, std::span<const GpuActivity> more) {
  Span s{first.start_ns, first.end_ns};
  for (const GpuActivity& a : more) {
    s.start = std::min(s.start, a.start_ns);
    s.end = std::max(s.end, a.end_ns);
  }
  return s;
}

ActivityTimes times_of(const GpuActivity& a) {
  return {a.correlation_id, a.graph_node_id != 0, a.kind, a.start_ns, a.end_ns};
}

// A place in `items`: one freed earlier, or a new one at the end.
template <typename T>
std::uint32_t take_place(std::vector<T>& items, std::vector<std::uint32_t>& free) {
  if (free.empty()) {
    items.emplace_back();
    return static_cast<std::uint32_t>(items.size() - 1);
  }
  const std::uint32_t place = free.back();
  free.pop_back();
  return place;
}

}  // namespace

ActivityMatcher::Correlation* ActivityMatcher::find_correlation(std::uint32_t id) {
  const std::uint32_t place = correlation_index_.find(id);
  return is_correlation(place) ? &correlations_[place] : nullptr;
}

// Made by a second activity of a call, by an activity of a graph launch's node, or by an
// operation whose id is already claimed or that is a graph launch or that must be
// stored. One made by activities is let go if no operation tags it within a few rounds.
ActivityMatcher::Correlation& ActivityMatcher::correlation(std::uint32_t id, bool* made) {
  const std::uint32_t found = correlation_index_.find(id);
  if (is_correlation(found)) return correlations_[found];
  const std::uint32_t place = take_place(correlations_, free_correlations_);
  correlation_index_.assign(id, place);
  Correlation& c = correlations_[place];
  c.id = id;
  c.external_id = 0;
  c.expected = kUnlinked;
  c.activities = 0;
  c.more.clear();  // keeps its capacity
  c.live = true;
  if (found == kNone) {
    if (made) *made = true;
  } else if (is_arrived(found)) {
    // The activity that came alone: the Correlation holds it from now on.
    c.first = take_arrived(found & ~kArrivedBit);
    c.activities = 1;
    if (made) *made = true;
  } else {
    // Claimed: the operation keeps the id through the Correlation from now on.
    Expected& e = expected_[found & ~kClaimedBit];
    e.claimed = false;
    c.external_id = e.operation.external_id;
    link(e, c);
  }
  return c;
}

void ActivityMatcher::complete(Expected& e, std::uint64_t start_ns, std::uint64_t end_ns, Correlation* completing,
                               ReadySink& out) {
  set_times(e.operation.record, start_ns, end_ns);
  // The common case, unordered, `e` claimed by its id: forgotten, then the record goes
  // out from its place (which nothing reuses before that) as the last step, a tail call,
  // so that nothing is kept across a call.
  if (!completing && !in_order_ && e.claimed && e.correlation == kUnlinked) {
    correlation_index_.erase(e.claimed_by);
    e.claimed = false;
    free_place(e);
    out.take(e.operation.context, e.operation.record, GpuTimesFrom::activity);
    return;
  }
  complete_otherwise(e, completing, out);
}

void ActivityMatcher::complete_otherwise(Expected& e, Correlation* completing, ReadySink& out) {
  const std::uint64_t sequence = e.sequence;
  emit(sequence, e.operation.context, e.operation.record, GpuTimesFrom::activity, out);
  // The operation may be linked to another correlation of its id, which forget() drops.
  if (completing) drop_correlation(*completing);
  forget(e);
  finished(sequence, out);
}

void ActivityMatcher::link(Expected& e, Correlation& c) {
  e.correlation = static_cast<std::uint32_t>(&c - correlations_.data());
  c.expected = place_of(e);
}

// A Correlation with an external id was linked to its operation when it got the id.
ActivityMatcher::Expected* ActivityMatcher::expected_of(Correlation& c) {
  return c.expected == kUnlinked ? nullptr : live_at(c.expected, c.external_id);
}

GpuActivity ActivityMatcher::take_arrived(std::uint32_t place) {
  const Arrived& a = arrived_[place];
  GpuActivity activity;
  activity.correlation_id = a.id;
  activity.kind = a.kind;
  activity.start_ns = a.start_ns;
  activity.end_ns = a.end_ns;
  free_arrival(place);
  return activity;
}

bool ActivityMatcher::add_times(const ActivityTimes& times, ReadySink& out) {
  // A graph's node needs all it tells (node_record): it keeps a Correlation.
  if (times.graph_node) return false;
  const std::uint32_t found = correlation_index_.find(times.correlation_id);
  if (is_claim(found)) {
    complete(expected_[found & ~kClaimedBit], times.start_ns, times.end_ns, nullptr, out);
    return true;
  }
  if (found != kNone) return false;
  const std::uint32_t place = free_arrived_;
  if (place == kUnlinked) return keep_arrival_in_new_place(times);
  free_arrived_ = arrived_[place].next_free;
  keep_arrival(place, times);
  return true;
}

inline void ActivityMatcher::keep_arrival(std::uint32_t place, const ActivityTimes& times) {
  arrived_[place] = {times.start_ns, times.end_ns, round_, times.correlation_id, times.kind, true, kUnlinked};
  if (live_arrived_++ == 0) oldest_arrival_round_ = round_;
  correlation_index_.assign(times.correlation_id, kArrivedBit | place);
}

bool ActivityMatcher::keep_arrival_in_new_place(const ActivityTimes& times) {
  arrived_.emplace_back();
  keep_arrival(static_cast<std::uint32_t>(arrived_.size() - 1), times);
  return true;
}

void ActivityMatcher::add(const GpuActivity& activity, std::uint64_t now_ns, ReadySink& out) {
  if (!add_times(times_of(activity), out)) add_otherwise(activity, now_ns, out);
}

void ActivityMatcher::add_otherwise(const GpuActivity& activity, std::uint64_t now_ns, ReadySink& out) {
  bool made = false;
  Correlation& c = correlation(activity.correlation_id, &made);
  if (made) untagged_after_round_.push_back({round_ + kUntaggedRounds, activity.correlation_id});
  if (c.activities++ == 0) {
    c.first = activity;
  } else {
    c.more.push_back(activity);
  }
  try_complete(c, now_ns, out);
}

void ActivityMatcher::tag(Expected& e, std::uint32_t id, std::uint64_t now_ns, ReadySink& out) {
  Correlation& c = correlation(id);
  c.external_id = e.operation.external_id;
  link(e, c);
  try_complete(c, now_ns, out);
}

bool ActivityMatcher::complete_on_arrival(ExpectedOperation& operation, std::uint32_t found, ReadySink& out) {
  const std::uint32_t id = operation.correlation_id;
  // A graph launch's nodes may come over several deliveries.
  if (operation.record.kind == records::RecordKind::graph || (in_order_ && !unfinished_.empty())) return false;
  if (is_arrived(found)) {
    const std::uint32_t place = found & ~kArrivedBit;
    ++next_sequence_;
    set_times(operation.record, arrived_[place].start_ns, arrived_[place].end_ns);
    free_arrival(place);
    correlation_index_.erase(id);
    out.take(operation.context, operation.record, GpuTimesFrom::activity);
    return true;
  }
  if (!is_correlation(found)) return false;
  Correlation& c = correlations_[found];
  if (c.external_id != 0 || c.activities == 0) return false;
  ++next_sequence_;
  const Span span = span_of(c.first, c.more);
  set_times(operation.record, span.start, span.end);
  drop_correlation(c);  // after the times were taken: `more` lies in it
  out.take(operation.context, operation.record, GpuTimesFrom::activity);
  return true;
}

void ActivityMatcher::store(const ExpectedOperation& operation, std::uint32_t found, std::uint64_t now_ns,
                            ReadySink& out) {
  // The common case, unordered and not waited for: the operation claimed by its new id.
  // The others out of line, as tail calls: this keeps nothing across a call.
  if (in_order_ || operation.waited || found != kNone || operation.correlation_id == 0 ||
      operation.record.kind == records::RecordKind::graph) {
    store_otherwise(operation, found, now_ns, out);
    return;
  }
  const std::uint32_t place = free_expected_;
  if (place == kUnlinked) {
    store_in_new_place(operation);
    return;
  }
  free_expected_ = expected_[place].next_free;
  Expected& e = expected_[place];
  e.operation = operation;
  occupy(e, next_sequence_++);
  claim(e, operation.correlation_id);
}

void ActivityMatcher::store_in_new_place(const ExpectedOperation& operation) {
  Expected& e = expected_.emplace_back(operation);
  occupy(e, next_sequence_++);
  claim(e, operation.correlation_id);
}

void ActivityMatcher::store_otherwise(const ExpectedOperation& operation, std::uint32_t found, std::uint64_t now_ns,
                                      ReadySink& out) {
  const std::uint64_t id = operation.external_id;
  const std::uint64_t sequence = next_sequence_++;
  if (in_order_) {
    if (unfinished_.empty()) first_unfinished_ = sequence;
    Unfinished& u = unfinished_.push_back();
    u.finished = false;
    u.held.clear();  // keeps its capacity
  }
  std::uint32_t place = free_expected_;
  if (place == kUnlinked) {
    place = static_cast<std::uint32_t>(expected_.size());
    expected_.emplace_back(operation);
  } else {
    free_expected_ = expected_[place].next_free;
    expected_[place].operation = operation;
  }
  if (operation.waited) overdue_at_.push_back({now_ns + kOverdueNs, id, place});
  Expected& e = expected_[place];
  occupy(e, sequence);
  const std::uint32_t c = operation.correlation_id;
  // The common order: nothing is known of the call yet, and its activity completes the
  // operation where it is found.
  if (c == 0 || (found == kNone && claim(e, c))) return;
  tag(e, c, now_ns, out);
}

void ActivityMatcher::try_complete(Correlation& c, std::uint64_t now_ns, ReadySink& out) {
  if (c.external_id == 0 || c.activities == 0) return;
  Expected* e = expected_of(c);
  if (!e) return;
  ExpectedOperation& operation = e->operation;
  if (operation.record.kind == records::RecordKind::graph) {
    auto& nodes = c.more;
    nodes.insert(nodes.begin(), c.first);
    std::sort(nodes.begin(), nodes.end(), [](const GpuActivity& a, const GpuActivity& b) { return a.start_ns < b.start_ns; });
    for (const GpuActivity& node : nodes) {
      const records::Record record = node_record(operation.record, node);
      if (select_nodes_ && !graph_node_selected(*operation.context, record)) continue;
      emit(e->sequence, operation.context, record, GpuTimesFrom::activity, out);
    }
    nodes.clear();
    c.activities = 0;
    if (!e->matched) {
      e->matched = true;
      lingering_until_.push_back({now_ns + kGraphLingerNs, c.external_id, place_of(*e)});
      finished(e->sequence, out);
    }
    return;
  }
  const Span span = span_of(c.first, c.more);
  complete(*e, span.start, span.end, &c, out);
}

void ActivityMatcher::emit(std::uint64_t sequence, const ProfiledContext* context, const records::Record& record,
                           GpuTimesFrom times, ReadySink& out) {
  // Every operation expected before the oldest unfinished one is out: so may this be.
  if (!in_order_ || unfinished_.empty() || sequence <= first_unfinished_) {
    out.take(context, record, times);
  } else {
    unfinished_[sequence - first_unfinished_].held.push_back({context, record, times});
  }
}

void ActivityMatcher::finished(std::uint64_t sequence, ReadySink& out) {
  if (!in_order_ || sequence < first_unfinished_ || sequence - first_unfinished_ >= unfinished_.size()) return;
  unfinished_[sequence - first_unfinished_].finished = true;
  // What waited for the operations now finished goes out, up to the next unfinished one,
  // whose own records may then go out as they come.
  while (!unfinished_.empty() && unfinished_.front().finished) {
    unfinished_.pop_front();
    ++first_unfinished_;
    if (!unfinished_.empty()) {
      for (const ReadyRecord& r : unfinished_.front().held) out.take(r.context, r.record, r.times);
      unfinished_.front().held.clear();
    }
  }
}

void ActivityMatcher::emit_fallback(const Expected& e, ReadySink& out) {
  const ExpectedOperation& op = e.operation;
  emit(e.sequence, op.context, op.record, GpuTimesFrom::unknown, out);
}

// The operation and its correlation (both of its records came, or it is given up).
void ActivityMatcher::forget(Expected& e) {
  if (e.claimed) {
    correlation_index_.erase(e.claimed_by);
    e.claimed = false;
  }
  if (e.correlation != kUnlinked) {
    Correlation& c = correlations_[e.correlation];
    if (c.live && c.external_id == e.operation.external_id) drop_correlation(c);
  }
  free_place(e);
}

void ActivityMatcher::drop_correlation(Correlation& c) {
  correlation_index_.erase(c.id);
  c.live = false;
  c.activities = 0;
  c.more.clear();
  free_correlations_.push_back(static_cast<std::uint32_t>(&c - correlations_.data()));
}

void ActivityMatcher::end_round(std::uint64_t now_ns, ReadySink& out) {
  ++round_;
  // Operations known to have completed (waited for) with no activity by now: out
  // without GPU times, in the order they were expected.
  // The deadlines of operations that completed since leave too, so that the queue holds
  // about what is outstanding, not kOverdueNs' worth of operations.
  while (!overdue_at_.empty()) {
    const Deadline d = overdue_at_.front();
    Expected* e = live_at(d.place, d.id);
    if (e && !e->matched && d.at > now_ns) break;
    overdue_at_.pop_front();
    if (!e || e->matched) continue;
    const std::uint64_t sequence = e->sequence;
    emit_fallback(*e, out);
    forget(*e);
    finished(sequence, out);
  }
  while (!lingering_until_.empty() && lingering_until_.front().at <= now_ns) {
    const Deadline d = lingering_until_.front();
    lingering_until_.pop_front();
    if (Expected* e = live_at(d.place, d.id); e && e->matched) forget(*e);
  }
  // Activities no operation took after a few deliveries: work of calls the shim did not
  // record (a launch a filter left out), or of an operation already given up.
  if (live_arrived_ != 0 && oldest_arrival_round_ + kUntaggedRounds < round_) let_go_untaken_arrivals();
  while (!untagged_after_round_.empty() && untagged_after_round_.front().at < round_) {
    const auto id = static_cast<std::uint32_t>(untagged_after_round_.front().id);
    untagged_after_round_.pop_front();
    if (Correlation* c = find_correlation(id); c && c->external_id == 0) drop_correlation(*c);
  }
}

// A pass over the places, in a round where the oldest arrival left may be due: cheaper
// than a deadline per activity. It finds the oldest of those that stay.
void ActivityMatcher::let_go_untaken_arrivals() {
  std::uint64_t oldest = round_;
  for (std::uint32_t place = 0; place < arrived_.size(); ++place) {
    const Arrived& a = arrived_[place];
    if (!a.live) continue;
    if (a.round + kUntaggedRounds >= round_) {
      oldest = std::min(oldest, a.round);
      continue;
    }
    correlation_index_.erase(a.id);
    free_arrival(place);
  }
  oldest_arrival_round_ = oldest;
}

void ActivityMatcher::settle(const ProfiledContext* context, ReadySink& out) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> done;  // sequence, place
  for (const Expected& e : expected_) {
    if (!e.live || (context && e.operation.context != context)) continue;
    done.emplace_back(e.sequence, place_of(e));
  }
  std::sort(done.begin(), done.end());
  for (auto [sequence, place] : done) {
    Expected& e = expected_[place];
    if (!e.matched) emit_fallback(e, out);
    forget(e);
  }
  // The settled context's records come out now, whatever other contexts still wait
  // for: its sinks end next.
  for (std::size_t i = 0; i < unfinished_.size(); ++i) {
    Unfinished& u = unfinished_[i];
    auto mine = std::stable_partition(u.held.begin(), u.held.end(),
                                      [&](const ReadyRecord& r) { return context && r.context != context; });
    for (auto r = mine; r != u.held.end(); ++r) out.take(r->context, r->record, r->times);
    u.held.erase(mine, u.held.end());
  }
  for (const auto& d : done) finished(d.first, out);
}

bool ActivityMatcher::expecting(const ProfiledContext* context) const {
  return std::any_of(expected_.begin(), expected_.end(), [&](const Expected& e) {
    return e.live && !e.matched && (!context || e.operation.context == context);
  });
}

std::vector<void*> ActivityMatcher::running_device_contexts(const ProfiledContext* context) const {
  std::vector<void*> contexts;
  for (const Expected& e : expected_) {
    const ExpectedOperation& op = e.operation;
    if (!e.live || e.matched || op.waited || (context && op.context != context)) continue;
    if (std::find(contexts.begin(), contexts.end(), op.device_context) == contexts.end()) {
      contexts.push_back(op.device_context);
    }
  }
  return contexts;
}

records::Record ActivityMatcher::node_record(const records::Record& launch, const GpuActivity& node) {
  // What the launch call knew (CPU times, stream) and what the node was on the GPU.
  records::Record r;
  r.timestamp_ns = launch.timestamp_ns;
  r.cputime_ns = launch.cputime_ns;
  r.stream_id = launch.stream_id;
  r.api = launch.api;
  r.correlation_id = launch.correlation_id;
  r.thread_id = launch.thread_id;
  r.kind = node.kind;
  r.gpu_start_ns = node.start_ns;
  r.gpu_end_ns = std::max(node.start_ns, node.end_ns);
  r.gputime_ns = r.gpu_end_ns - r.gpu_start_ns;
  switch (node.kind) {
    case records::RecordKind::kernel:
      r.method = intern(node.name);
      r.grid = node.grid;
      r.block = node.block;
      r.static_smem = node.static_smem;
      r.dynamic_smem = node.dynamic_smem;
      r.registers = node.registers;
      break;
    case records::RecordKind::memcpy: {
      const CopyKind kind = copy_kind_of(node);
      r.method = kind.method;
      r.transfer_dir = kind.dir;
      r.host_mem_type = kind.host_mem_type;
      r.transfer_bytes = node.bytes;
      break;
    }
    case records::RecordKind::memset:
      r.method = "memset";
      r.transfer_bytes = node.bytes;
      break;
    case records::RecordKind::graph: break;
  }
  return r;
}

std::string_view ActivityMatcher::intern(const char* name) {
  if (!name) return "unknown_kernel";
  return *names_.emplace(name).first;
}

}  // namespace computeprof::shim
