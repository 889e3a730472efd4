#include "shim/activity/activity_matcher.hpp"

#include <algorithm>
#include <span>
#include <utility>

namespace computeprof::shim {

using logfmt::CopyKind;
namespace {

// An operation's GPU times from its activities (one per call outside graphs; CUPTI
// folds a batch of copies into one record).
void take_times(logfmt::Record& r, std::span<const GpuActivity> activities) {
  std::uint64_t start = activities.front().start_ns;
  std::uint64_t end = activities.front().end_ns;
  for (const GpuActivity& a : activities) {
    start = std::min(start, a.start_ns);
    end = std::max(end, a.end_ns);
  }
  r.gpu_start_ns = start;
  r.gpu_end_ns = std::max(start, end);
  r.gputime_ns = r.gpu_end_ns - start;
}

}  // namespace

ActivityMatcher::Correlation& ActivityMatcher::correlation(std::uint32_t id, std::uint64_t now_ns) {
  auto [it, inserted] = correlations_.try_emplace(id, &memory_);
  if (inserted) {
    untagged_after_round_.push_back({round_ + kUntaggedRounds, id});
    unclaimed_at_.push_back({now_ns + kUnclaimedNs, id});
  }
  return it->second;
}

void ActivityMatcher::add(const GpuActivity& activity, std::uint64_t now_ns, std::vector<ReadyRecord>& out) {
  correlation(activity.correlation_id, now_ns).activities.push_back(activity);
  try_complete(activity.correlation_id, now_ns, out);
}

void ActivityMatcher::add(const ExternalCorrelation& c, std::uint64_t now_ns, std::vector<ReadyRecord>& out) {
  correlation(c.correlation_id, now_ns).external_id = c.external_id;
  correlation_of_[c.external_id] = c.correlation_id;
  try_complete(c.correlation_id, now_ns, out);
}

void ActivityMatcher::expect(ExpectedOperation operation, std::uint64_t now_ns, std::vector<ReadyRecord>& out) {
  const std::uint64_t id = operation.external_id;
  const std::uint64_t sequence = next_sequence_++;
  if (in_order_) unfinished_.insert(sequence);
  const bool timed_by_events = operation.timed_by_events;
  expected_.insert_or_assign(id, Expected{std::move(operation), now_ns, sequence, false, 0});
  if (timed_by_events) overdue_at_.push_back({now_ns + kOverdueNs, id});
  if (auto c = correlation_of_.find(id); c != correlation_of_.end()) try_complete(c->second, now_ns, out);
}

void ActivityMatcher::try_complete(std::uint32_t correlation_id, std::uint64_t now_ns,
                                   std::vector<ReadyRecord>& out) {
  auto c = correlations_.find(correlation_id);
  if (c == correlations_.end() || c->second.external_id == 0 || c->second.activities.empty()) return;
  auto e = expected_.find(c->second.external_id);
  if (e == expected_.end()) return;
  ExpectedOperation& operation = e->second.operation;
  if (operation.record.kind == logfmt::RecordKind::graph) {
    auto& nodes = c->second.activities;
    std::sort(nodes.begin(), nodes.end(), [](const GpuActivity& a, const GpuActivity& b) { return a.start_ns < b.start_ns; });
    for (const GpuActivity& node : nodes) {
      emit(e->second.sequence, {operation.context, node_record(operation.record, node)}, out);
    }
    nodes.clear();
    if (!e->second.matched) {
      e->second.linger_until_ns = now_ns + kGraphLingerNs;
      e->second.matched = true;
      lingering_until_.push_back({e->second.linger_until_ns, e->first});
      finished(e->second.sequence, out);
    }
    return;
  }
  const std::uint64_t sequence = e->second.sequence;
  ReadyRecord ready{operation.context, std::move(operation.record)};
  take_times(ready.record, c->second.activities);
  forget(c->second.external_id);
  emit(sequence, std::move(ready), out);
  finished(sequence, out);
}

void ActivityMatcher::emit(std::uint64_t sequence, ReadyRecord ready, std::vector<ReadyRecord>& out) {
  if (in_order_) {
    held_[sequence].push_back(std::move(ready));
  } else {
    out.push_back(std::move(ready));
  }
}

void ActivityMatcher::finished(std::uint64_t sequence, std::vector<ReadyRecord>& out) {
  if (!in_order_) return;
  unfinished_.erase(sequence);
  while (!held_.empty() && (unfinished_.empty() || held_.begin()->first < *unfinished_.begin())) {
    for (ReadyRecord& r : held_.begin()->second) out.push_back(std::move(r));
    held_.erase(held_.begin());
  }
}

// An operation no activity came for: its event pair's times, or none.
ReadyRecord ActivityMatcher::fallback(Expected& e) {
  ExpectedOperation& op = e.operation;
  return {op.context, std::move(op.record), op.timed_by_events ? GpuTimesFrom::events : GpuTimesFrom::unknown};
}

void ActivityMatcher::forget(std::uint64_t external_id) {
  expected_.erase(external_id);
  if (auto c = correlation_of_.find(external_id); c != correlation_of_.end()) {
    correlations_.erase(c->second);
    correlation_of_.erase(c);
  }
}

void ActivityMatcher::drop_correlation(std::uint32_t id) {
  auto it = correlations_.find(id);
  if (it == correlations_.end()) return;
  if (it->second.external_id != 0) correlation_of_.erase(it->second.external_id);
  correlations_.erase(it);
}

void ActivityMatcher::end_round(std::uint64_t now_ns, std::vector<ReadyRecord>& out) {
  ++round_;
  // Operations known to have completed (their events) with no activity by now: out
  // with their event times, in the order they were expected.
  while (!overdue_at_.empty() && overdue_at_.front().at <= now_ns) {
    const std::uint64_t id = overdue_at_.front().id;
    overdue_at_.pop_front();
    auto e = expected_.find(id);
    if (e == expected_.end() || e->second.matched) continue;
    const std::uint64_t sequence = e->second.sequence;
    emit(sequence, fallback(e->second), out);
    forget(id);
    finished(sequence, out);
  }
  while (!lingering_until_.empty() && lingering_until_.front().at <= now_ns) {
    const std::uint64_t id = lingering_until_.front().id;
    lingering_until_.pop_front();
    if (auto e = expected_.find(id); e != expected_.end() && e->second.matched) forget(id);
  }
  // Activities with no external correlation after a few deliveries: work the shim did
  // not tag. Tagged ones no operation claims: calls that failed, or other tools' work.
  while (!untagged_after_round_.empty() && untagged_after_round_.front().at < round_) {
    const auto id = static_cast<std::uint32_t>(untagged_after_round_.front().id);
    untagged_after_round_.pop_front();
    if (auto c = correlations_.find(id); c != correlations_.end() && c->second.external_id == 0) drop_correlation(id);
  }
  while (!unclaimed_at_.empty() && unclaimed_at_.front().at <= now_ns) {
    const auto id = static_cast<std::uint32_t>(unclaimed_at_.front().id);
    unclaimed_at_.pop_front();
    auto c = correlations_.find(id);
    if (c != correlations_.end() && c->second.external_id != 0 && !expected_.contains(c->second.external_id)) {
      drop_correlation(id);
    }
  }
}

void ActivityMatcher::settle(const ProfiledContext* context, std::vector<ReadyRecord>& out) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> done;  // sequence, external id
  for (auto& [id, e] : expected_) {
    if (context && e.operation.context != context) continue;
    done.emplace_back(e.sequence, id);
  }
  std::sort(done.begin(), done.end());
  for (auto [sequence, id] : done) {
    Expected& e = expected_.at(id);
    if (!e.matched) emit(sequence, fallback(e), out);
    forget(id);
  }
  // The settled context's records come out now, whatever other contexts still wait
  // for: its sinks end next.
  for (auto it = held_.begin(); it != held_.end();) {
    auto& records = it->second;
    auto mine = std::stable_partition(records.begin(), records.end(),
                                      [&](const ReadyRecord& r) { return context && r.context != context; });
    for (auto r = mine; r != records.end(); ++r) out.push_back(std::move(*r));
    records.erase(mine, records.end());
    it = records.empty() ? held_.erase(it) : std::next(it);
  }
  for (auto [sequence, id] : done) finished(sequence, out);
}

bool ActivityMatcher::expecting(const ProfiledContext* context) const {
  return std::any_of(expected_.begin(), expected_.end(),
                     [&](const auto& e) { return !e.second.matched && (!context || e.second.operation.context == context); });
}

std::vector<void*> ActivityMatcher::running_device_contexts(const ProfiledContext* context) const {
  std::vector<void*> contexts;
  for (const auto& [id, e] : expected_) {
    const ExpectedOperation& op = e.operation;
    if (e.matched || op.timed_by_events || (context && op.context != context)) continue;
    if (std::find(contexts.begin(), contexts.end(), op.device_context) == contexts.end()) {
      contexts.push_back(op.device_context);
    }
  }
  return contexts;
}

logfmt::Record ActivityMatcher::node_record(const logfmt::Record& launch, const GpuActivity& node) {
  // What the launch call knew (CPU times, stream) and what the node was on the GPU.
  logfmt::Record r;
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
    case logfmt::RecordKind::kernel:
      r.method = intern(node.name);
      r.grid = node.grid;
      r.block = node.block;
      r.static_smem = node.static_smem;
      r.dynamic_smem = node.dynamic_smem;
      r.registers = node.registers;
      break;
    case logfmt::RecordKind::memcpy: {
      const CopyKind kind = copy_kind_of(node);
      r.method = kind.method;
      r.transfer_dir = kind.dir;
      r.host_mem_type = kind.host_mem_type;
      r.transfer_bytes = node.bytes;
      break;
    }
    case logfmt::RecordKind::memset:
      r.method = "memset";
      r.transfer_bytes = node.bytes;
      break;
    case logfmt::RecordKind::graph: break;
  }
  return r;
}

std::string_view ActivityMatcher::intern(const char* name) {
  if (!name) return "unknown_kernel";
  return *names_.emplace(name).first;
}

}  // namespace computeprof::shim
