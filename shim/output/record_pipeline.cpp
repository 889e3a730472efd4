#include "shim/output/record_pipeline.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iterator>
#include <mutex>
#include <vector>

#include "shim/output/memory_event_queue.hpp"
#include "shim/output/record_outputs.hpp"
#include "shim/output/sink_factory.hpp"
#include "shim/process/internal_worker.hpp"
#include "shim/process/lifecycle.hpp"
#include "shim/process/thread_rings.hpp"

namespace computeprof::shim {
namespace {

using detail::g_writer;
using RecordRing = detail::RecordRings::Ring;

// A queued record's place, for ordering a batch without copying records.
struct Queued {
  std::uint64_t completed_ns;
  QueuedRecord* record;
};

// Its rings are the RecordQueue a submission sees.
struct Pipeline : detail::RecordQueue {
  std::mutex drain_mutex;  // held by whoever drains: the writer or a flush
  MemoryEventQueue memory;
  // The drain holder's scratch.
  std::vector<RecordRing*> draining;
  std::vector<detail::RangeRings::Ring*> draining_ranges;
  std::vector<detail::ApiCallRings::Ring*> draining_calls;
  std::vector<std::size_t> heads;
  std::vector<Queued> batch;
  std::vector<Queued> merged;
  RecordOutputs outputs{make_context_sinks, make_process_sinks};  // drain holder's only
};

// The writer's: made at the first use, then one load per use.
Pipeline& pipeline() { return g_writer.shared_or_make<Pipeline>(); }

// The writer drains this often unless a thread's ring fills first: what a process killed
// by SIGKILL loses at most.
constexpr auto kWriteInterval = std::chrono::milliseconds(20);
// A thread whose ring is full looks again this often (a notification may be missed).
constexpr auto kFullRingWait = std::chrono::milliseconds(1);

void write_queued(Pipeline& p, const QueuedRecord& q) {
  p.outputs.write(*q.context, q.record);
  delete q.record.counters;  // the record's own (records/record.hpp)
}

// The one ring with records; null when none or several have any.
RecordRing* only_ring_with_records(const std::vector<RecordRing*>& rings) {
  RecordRing* found = nullptr;
  for (RecordRing* ring : rings) {
    if (ring->size() == 0) continue;
    if (found != nullptr) return nullptr;
    found = ring;
  }
  return found;
}

// Writes the records queued in every ring, in completion order; returns how many. The
// records stay in their rings' slots, which their producers do not reuse until the
// tails move.
std::size_t write_queued_records(Pipeline& p) {
  p.rings.snapshot(p.draining);
  // The records of a single ring that has any (one thread makes operations, or
  // completes them) are written where they lie, nothing gathered, when they are in
  // completion order: always for the operations of one thread serialized, not for
  // those a resolver completes (a short kernel on one stream overtakes a long one on
  // another; docs/format.md, "Record order").
  if (RecordRing* ring = only_ring_with_records(p.draining)) {
    std::uint64_t latest = 0;
    bool in_order = true;
    const std::size_t head = ring->read([&](const QueuedRecord& q) {
      in_order = in_order && q.completed_ns >= latest;
      latest = q.completed_ns;
    });
    if (in_order) {
      std::size_t written = 0;
      ring->read_up_to(head, [&](const QueuedRecord& q) {
        write_queued(p, q);
        ++written;
      });
      ring->release(head);
      return written;
    }
  }
  // Only the records' places are gathered and ordered. Each ring's records are usually
  // in completion order: merged with those gathered before them, in linear time and
  // stably (a ring that did not overlap them needs nothing); else all are sorted.
  p.batch.clear();
  p.heads.clear();
  auto earlier = [](const Queued& a, const Queued& b) { return a.completed_ns < b.completed_ns; };
  bool rings_in_order = true;
  for (RecordRing* ring : p.draining) {
    const std::size_t gathered = p.batch.size();
    p.heads.push_back(ring->read([&](QueuedRecord& q) { p.batch.push_back({q.completed_ns, &q}); }));
    if (!rings_in_order || gathered == p.batch.size()) continue;
    const auto run = p.batch.begin() + static_cast<std::ptrdiff_t>(gathered);
    rings_in_order = std::is_sorted(run, p.batch.end(), earlier);
    if (rings_in_order && gathered != 0 && earlier(*run, *(run - 1))) {
      p.merged.clear();
      std::merge(p.batch.begin(), run, run, p.batch.end(), std::back_inserter(p.merged), earlier);
      p.batch.swap(p.merged);
    }
  }
  if (!rings_in_order) std::stable_sort(p.batch.begin(), p.batch.end(), earlier);
  for (const Queued& q : p.batch) write_queued(p, *q.record);
  for (std::size_t i = 0; i < p.draining.size(); ++i) p.draining[i]->release(p.heads[i]);
  return p.batch.size();
}

// Hands every queued NVTX event to the sinks, ring by ring; returns how many.
std::size_t write_queued_ranges(Pipeline& p) {
  p.ranges.snapshot(p.draining_ranges);
  std::size_t written = 0;
  for (detail::RangeRings::Ring* ring : p.draining_ranges) {
    ring->release(ring->read([&](const records::RangeEvent& e) {
      p.outputs.write_range(e);
      ++written;
    }));
  }
  p.ranges.free_exited();
  return written;
}

// Hands every queued API call to the sinks, ring by ring (each thread's in the order it
// made them); returns how many.
std::size_t write_queued_calls(Pipeline& p) {
  p.calls.snapshot(p.draining_calls);
  std::size_t written = 0;
  for (detail::ApiCallRings::Ring* ring : p.draining_calls) {
    ring->release(ring->read([&](const records::ApiCall& c) {
      p.outputs.write_api_call(c);
      ++written;
    }));
  }
  p.calls.free_exited();
  return written;
}

// `everything`: the process ends; memory events are handed on whatever gaps remain.
void drain_locked(Pipeline& p, bool everything = false) {
  const std::size_t memory_events =
      p.memory.drain([&](const records::MemoryEvent& e) { p.outputs.write_memory(e); }, everything);
  const std::size_t ranges = write_queued_ranges(p);
  const std::size_t calls = write_queued_calls(p);
  const std::size_t records = write_queued_records(p);
  // Written through at once: a process killed later keeps what was done.
  if (records != 0 || memory_events != 0 || ranges != 0 || calls != 0) {
    p.outputs.flush();
    g_writer.notify_drained();
  }
  p.rings.free_exited();
}

// The parts that complete operations on threads of their own; set once each, read by
// the writer. Constant-initialised: registered whatever the order of static constructors.
constexpr std::size_t kMaxCompletedSources = 2;
constinit std::atomic<DeliverCompleted> g_completed_sources[kMaxCompletedSources]{};

void deliver_completed_operations() {
  for (const auto& source : g_completed_sources) {
    if (DeliverCompleted deliver = source.load(std::memory_order_acquire)) deliver();
  }
}

// The writer thread: whatever woke it (a ring half full, a full one), it drains. A sink
// that needs every record first (a dump due) has the parts deliver what completed, out
// of the lock (their threads submit meanwhile, and may wait for room), then a drain.
void run_writer() {
  auto& p = pipeline();
  for (;;) {
    g_writer.wait_for(kWriteInterval);
    {
      std::lock_guard lock(p.drain_mutex);
      drain_locked(p);
      if (!p.outputs.poll()) continue;
    }
    deliver_completed_operations();
    std::lock_guard lock(p.drain_mutex);
    drain_locked(p);
    p.outputs.poll();
  }
}

void flush_at_exit() {
  auto& p = pipeline();
  std::lock_guard lock(p.drain_mutex);
  drain_locked(p, true);
  p.outputs.flush();
  p.outputs.end_process();
}

void before_fork() {
  auto& p = pipeline();
  p.drain_mutex.lock();
  drain_locked(p);
  p.outputs.checkpoint();
  p.rings.lock_for_fork();
  p.ranges.lock_for_fork();
  p.calls.lock_for_fork();
  p.memory.lock_for_fork();
}

void after_fork_in_parent() {
  auto& p = pipeline();
  p.memory.unlock_in_parent();
  p.calls.unlock_in_parent();
  p.ranges.unlock_in_parent();
  p.rings.unlock_in_parent();
  p.drain_mutex.unlock();
}

// Only resets state: no driver calls, no waiting (the driver forks helpers too). The
// writer starts again at the child's first record.
void after_fork_in_child() {
  auto& p = pipeline();
  p.rings.reset_in_child();
  p.ranges.reset_in_child();
  p.calls.reset_in_child();
  p.memory.reset_in_child();
  p.outputs.abandon();
  p.drain_mutex.unlock();
}

// The process ends without its exit handlers: what the rings hold is written now.
void write_out_at_abrupt_end() { flush_at_exit(); }

}  // namespace

// Started at the first record, which comes after the driver's initialisation: the
// handlers are added then, so that the exit flush runs before CUDA tears down. Started
// again (the handlers added already) at a forked child's first record.
constinit InternalWorker<detail::RecordQueue> detail::g_writer{{
    .name = "cprof-writer",
    .run = run_writer,
    .cannot_start = "cannot start the log writer thread; records are written at flushes only",
    .stage = LifecycleStage::records,
    .handlers = {flush_at_exit, before_fork, after_fork_in_parent, after_fork_in_child, write_out_at_abrupt_end},
}};

namespace {

// The first push, and a push into a full ring, which waits for the writer, a
// millisecond at a time: nothing is dropped. Without a writer, the pushing thread
// drains when its ring is full. Out of line, so that the common push does not pay for
// its frame.
template <typename Rings, typename Fill>
[[gnu::noinline]] void push_slowly(Pipeline& p, Rings& rings, Fill& fill) {
  g_writer.start();
  auto& ring = rings.this_thread_ring();
  while (!ring.try_push(fill)) {
    if (g_writer.started()) {
      g_writer.wait_for_room(ring, kFullRingWait);
    } else {
      std::lock_guard lock(p.drain_mutex);
      drain_locked(p);
    }
  }
  published_to<g_writer>(ring);
}

// Pushes into the calling thread's ring of `rings`.
template <typename Rings, typename Fill>
void push_or_wait(Pipeline& p, Rings& rings, Fill&& fill) {
  if (!try_submit_to<g_writer>(rings, fill)) push_slowly(p, rings, fill);
}

}  // namespace

void detail::submit_record_otherwise(const ProfiledContext* context, std::uint64_t completed_ns,
                                     const records::Record& record) {
  auto& p = pipeline();
  push_or_wait(p, p.rings, [context, completed_ns, &record](QueuedRecord& q) {
    q.context = context;
    q.completed_ns = completed_ns;
    q.record = record;
  });
}

void detail::submit_range_otherwise(const records::RangeEvent& event) {
  auto& p = pipeline();
  push_or_wait(p, p.ranges, [&event](records::RangeEvent& e) { e = event; });
}

void detail::submit_api_call_otherwise(const records::ApiCall& call) {
  auto& p = pipeline();
  push_or_wait(p, p.calls, [&call](records::ApiCall& c) { c = call; });
}

void prepare_to_submit_records() {
  auto& p = pipeline();
  p.rings.this_thread_ring();
  g_writer.start();
}

void submit_records(std::span<const Submission> submissions) {
  auto& p = pipeline();
  RecordRing& ring = p.rings.this_thread_ring();
  auto fill = [](const Submission& s, QueuedRecord& q) {
    q.context = s.context;
    q.completed_ns = s.completed_ns;
    q.record = *s.record;
  };
  // Usually the ring has room for all: one check, one publication.
  if (try_submit_all_to<g_writer>(ring, submissions.size(),
                                  [&](std::size_t i, QueuedRecord& q) { fill(submissions[i], q); })) {
    return;
  }
  for (const Submission& s : submissions) push_or_wait(p, p.rings, [&](QueuedRecord& q) { fill(s, q); });
}

std::uint64_t next_memory_sequence() { return pipeline().memory.next_sequence(); }

void submit_memory_event(const records::MemoryEvent& event, bool cancelled) {
  auto& p = pipeline();
  push_or_wait(p, p.memory, [&](QueuedMemoryEvent& q) {
    q.event = event;
    q.cancelled = cancelled;
  });
}

void add_completed_operations_source(DeliverCompleted deliver) {
  for (auto& source : g_completed_sources) {
    DeliverCompleted none = nullptr;
    if (source.compare_exchange_strong(none, deliver, std::memory_order_acq_rel) || none == deliver) return;
  }
}

void flush_records() {
  auto& p = pipeline();
  std::lock_guard lock(p.drain_mutex);
  drain_locked(p);
  p.outputs.checkpoint();
}

void retire_context(const ProfiledContext* context) {
  auto& p = pipeline();
  std::lock_guard lock(p.drain_mutex);
  drain_locked(p);
  p.outputs.end_context(*context);
  p.outputs.checkpoint();
}

}  // namespace computeprof::shim
