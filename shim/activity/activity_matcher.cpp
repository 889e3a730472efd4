#include "shim/activity/activity_matcher.hpp"

#include <algorithm>
#include <utility>

namespace computeprof::shim {
namespace {

// An operation's GPU times from its activities (one per call outside graphs; CUPTI
// folds a batch of copies into one record).
void take_times(logfmt::Record& r, const std::vector<GpuActivity>& activities) {
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
  auto [it, inserted] = correlations_.try_emplace(id);
  if (inserted) it->second.first_seen_ns = now_ns;
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
  expected_[id] = Expected{std::move(operation), now_ns, false, 0};
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
    std::vector<GpuActivity>& nodes = c->second.activities;
    std::sort(nodes.begin(), nodes.end(), [](const GpuActivity& a, const GpuActivity& b) { return a.start_ns < b.start_ns; });
    for (const GpuActivity& node : nodes) out.push_back({operation.context, node_record(operation.record, node), false});
    nodes.clear();
    if (!e->second.matched) e->second.linger_until_ns = now_ns + kGraphLingerNs;
    e->second.matched = true;
    return;
  }
  ReadyRecord ready{operation.context, std::move(operation.record), false};
  take_times(ready.record, c->second.activities);
  out.push_back(std::move(ready));
  forget(c->second.external_id);
}

void ActivityMatcher::forget(std::uint64_t external_id) {
  expected_.erase(external_id);
  if (auto c = correlation_of_.find(external_id); c != correlation_of_.end()) {
    correlations_.erase(c->second);
    correlation_of_.erase(c);
  }
}

void ActivityMatcher::end_round(std::uint64_t now_ns, std::vector<ReadyRecord>& out) {
  std::vector<std::uint64_t> done;
  for (auto& [id, e] : expected_) {
    if (e.matched) {
      if (now_ns >= e.linger_until_ns) done.push_back(id);
    } else if (now_ns - e.since_ns >= kOverdueNs) {
      out.push_back({e.operation.context, std::move(e.operation.record), true});
      done.push_back(id);
    }
  }
  for (std::uint64_t id : done) forget(id);

  for (auto it = correlations_.begin(); it != correlations_.end();) {
    Correlation& c = it->second;
    const bool claimed = c.external_id != 0 && expected_.contains(c.external_id);
    ++c.rounds;
    const bool drop =
        !claimed && (c.external_id == 0 ? c.rounds > kUntaggedRounds : now_ns - c.first_seen_ns >= kUnclaimedNs);
    if (!drop) {
      ++it;
      continue;
    }
    if (c.external_id != 0) correlation_of_.erase(c.external_id);
    it = correlations_.erase(it);
  }
}

void ActivityMatcher::settle(const ProfiledContext* context, std::vector<ReadyRecord>& out) {
  std::vector<std::uint64_t> done;
  for (auto& [id, e] : expected_) {
    if (context && e.operation.context != context) continue;
    if (!e.matched) out.push_back({e.operation.context, std::move(e.operation.record), true});
    done.push_back(id);
  }
  for (std::uint64_t id : done) forget(id);
}

bool ActivityMatcher::expecting(const ProfiledContext* context) const {
  return std::any_of(expected_.begin(), expected_.end(),
                     [&](const auto& e) { return !e.second.matched && (!context || e.second.operation.context == context); });
}

logfmt::Record ActivityMatcher::node_record(const logfmt::Record& launch, const GpuActivity& node) {
  // What the launch call knew (CPU times, stream) and what the node was on the GPU.
  logfmt::Record r;
  r.timestamp_ns = launch.timestamp_ns;
  r.cputime_ns = launch.cputime_ns;
  r.stream_id = launch.stream_id;
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
