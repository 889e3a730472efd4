#include "shim/activity/activity_trace.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <fmt/format.h>

#include "config/profile_config.hpp"
#include "config/report.hpp"
#include "cupti/cupti_library.hpp"
#include "shim/activity/counter_session.hpp"
#include "shim/activity/ring_queue.hpp"
#include "shim/intercept/capture_mode.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/clock.hpp"
#include "shim/process/context_registry.hpp"
#include "shim/process/recorded_operation.hpp"
#include "shim/process/internal_worker.hpp"
#include "shim/process/lifecycle.hpp"
#include "shim/process/profiling_state.hpp"
#include "shim/process/thread_rings.hpp"

namespace computeprof::shim {

std::atomic<ActivityTiming> detail::g_activity_timing{ActivityTiming::undecided};
constinit thread_local std::uint32_t detail::t_call_correlation = 0;

namespace {

using State = ActivityTiming;
std::atomic<State>& g_state = detail::g_activity_timing;
pthread_once_t g_start_once = PTHREAD_ONCE_INIT;
const cupti::CuptiLibrary* g_cupti = nullptr;

// CUPTI writes records into buffers the shim lends it; it hands them back full, or
// at a flush, from its own thread or the flushing one.
constexpr std::size_t kBufferBytes = std::size_t{2} << 20;
constexpr std::size_t kBufferAlignment = 8;  // CUPTI's requirement
// The application never waits for activities: delivering them every few milliseconds
// is soon enough and keeps CUPTI's flush, which contends with launching threads, rare.
constexpr std::uint64_t kPollIntervalNs = 5'000'000;
// A collector with nothing awaited also wakes this often, should a wake-up be missed.
constexpr auto kIdleInterval = std::chrono::milliseconds(100);
constexpr int kSettleWaits = 50;  // of 1 ms
// The writer waits this long at most for a round it asked for (before a flight
// recorder's dump): the collector's records may wait for room in its ring meanwhile.
constexpr auto kAskedRoundWait = std::chrono::milliseconds(200);

// The matcher's records go to the writer as they become ready. Only under the
// activities' mutex, so that a settled context gets nothing after its settle (its sinks
// end next).
class SubmitReady final : public ReadySink {
 public:
  void take(const ProfiledContext* context, const records::Record& record, GpuTimesFrom times) override {
    if (times != GpuTimesFrom::activity) {
      take_untimed(context, record);
      return;
    }
    submit_record(context, context->origin.monotonic_at(record.gpu_end_ns), record);
  }

 private:
  // A record without GPU times: out of line, so that the common case's frame saves no
  // registers for it.
  [[gnu::noinline]] void take_untimed(const ProfiledContext* context, const records::Record& record) {
    if (record.kind != records::RecordKind::graph) {
      config::warn_once("CUPTI gave no activity record for some operations; their GPU times are unknown (gputime 0)");
    }
    submit_record(context, context->origin.monotonic_at(record.gpu_end_ns), record);
  }
};

using detail::g_collector;
using detail::PendingRings;

// Its queues are the OperationQueue the application's threads see.
struct Activities : detail::OperationQueue {
  std::mutex mutex;  // the matcher, the spare buffers, the scratch vectors
  ActivityMatcher matcher;
  std::vector<std::uint8_t*> spare_buffers;
  // Operations moved out of their threads' rings between rounds, to make room, and
  // taken with the others at the next round.
  RingQueue<PendingOperation> parked;
  bool park_between_rounds = false;  // serialized (make_room_locked)
  std::vector<PendingRings::Ring*> pending_rings;  // scratch
  std::vector<std::size_t> pending_heads;
  std::vector<PendingOperation*> pending_batch;
  SubmitReady ready;
  // Rounds the writer asked for, and the last asked one a round began after.
  std::uint64_t rounds_asked = 0;
  std::uint64_t rounds_answered = 0;
  std::condition_variable round_answered;
};
// The collector's: made at the first use, then one load per use.
Activities& activities() { return g_collector.shared_or_make<Activities>(); }

// Under the activities' mutex: the operations the threads queued (and those parked) go
// to the matcher, in the order they were made. Each round does this after its
// activities came, so that an operation whose activity came completes at once, never
// stored (ActivityMatcher::expect).
void take_pending_locked(Activities& a) {
  a.pending.snapshot(a.pending_rings);
  if (a.parked.empty() && a.pending_rings.size() == 1) {
    // One thread's operations: its ring holds them in the order they were made.
    PendingRings::Ring& ring = *a.pending_rings.front();
    ring.release(ring.read([&](PendingOperation& p) { a.matcher.expect(p, p.since_ns, a.ready); }));
    a.pending.free_exited();
    return;
  }
  a.pending_heads.clear();
  a.pending_batch.clear();
  for (std::size_t i = 0; i < a.parked.size(); ++i) a.pending_batch.push_back(&a.parked[i]);
  for (PendingRings::Ring* ring : a.pending_rings) {
    a.pending_heads.push_back(ring->read([&](PendingOperation& p) { a.pending_batch.push_back(&p); }));
  }
  const auto made_earlier = [](const PendingOperation* x, const PendingOperation* y) { return x->since_ns < y->since_ns; };
  // Parked operations and one thread's ring are in order already.
  if (!std::is_sorted(a.pending_batch.begin(), a.pending_batch.end(), made_earlier)) {
    std::stable_sort(a.pending_batch.begin(), a.pending_batch.end(), made_earlier);
  }
  for (PendingOperation* p : a.pending_batch) a.matcher.expect(*p, p->since_ns, a.ready);
  for (std::size_t i = 0; i < a.pending_rings.size(); ++i) a.pending_rings[i]->release(a.pending_heads[i]);
  a.parked.clear();
  a.pending.free_exited();
}

// Under the activities' mutex, between rounds, when a thread's ring fills: room is made.
// Serialized, the queued operations are moved aside until the next round takes them
// with its activities: they completed before they were queued, so those activities come
// with the round's delivery, and an operation whose activity came is never stored in
// the matcher. With conckerneltrace an operation may run on for long: the operations
// are taken now.
void make_room_locked(Activities& a) {
  if (!a.park_between_rounds) {
    take_pending_locked(a);
    return;
  }
  a.pending.snapshot(a.pending_rings);
  for (PendingRings::Ring* ring : a.pending_rings) {
    ring->release(ring->read([&](PendingOperation& p) { a.parked.push_back() = p; }));
  }
  a.pending.free_exited();
}

bool pending_empty(Activities& a) {
  if (!a.parked.empty()) return false;
  a.pending.snapshot(a.pending_rings);
  return std::all_of(a.pending_rings.begin(), a.pending_rings.end(), [](auto* ring) { return ring->size() == 0; });
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  Activities& a = activities();
  {
    std::lock_guard lock(a.mutex);
    if (!a.spare_buffers.empty()) {
      *buffer = a.spare_buffers.back();
      a.spare_buffers.pop_back();
    } else {
      *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
    }
  }
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid_size) {
  if (!buffer) return;
  Activities& a = activities();
  const std::uint64_t now = monotonic_ns();
  std::lock_guard lock(a.mutex);
  CUpti_Activity* record = nullptr;
  ActivityTimes times;
  while (valid_size > 0 && g_cupti->cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    // Most activities need only their times; the others are read whole.
    if (!read_activity_times(*record, times) || a.matcher.add_times(times, a.ready)) continue;
    read_activity_record(*record, [&](const GpuActivity& gpu) { a.matcher.add(gpu, now, a.ready); });
  }
  a.spare_buffers.push_back(buffer);
}

// CUPTI's callback of a call that makes operations, on the calling thread at its entry
// and exit: the call's correlation id, for the traced operation in progress (armed).
// The activity records of the call's work carry that id. An external id pushed around
// the call would not do: CUPTI writes external correlation records only with driver API
// records, which it does not write for driver calls made inside a CUDA runtime call,
// and without the DRIVER kind not at all (docs/validation/2026-11-26-h200.md).
void CUPTIAPI note_call_correlation(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || detail::t_call_correlation != detail::kCallArmed) return;
  detail::t_call_correlation = static_cast<const CUpti_CallbackData*>(data)->correlationId;
}

constexpr CUpti_ActivityKind kTracedKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                               CUPTI_ACTIVITY_KIND_MEMSET};

// The calls that make operations (their callbacks are turned on, no other's).
constexpr CUpti_CallbackId kRecordedCalls[] = {
#define ENTRY(symbol, base, version, per_thread, pfn)
#define RECORDED_ENTRY(symbol, base, version, per_thread, pfn) CUPTI_DRIVER_TRACE_CBID_##symbol,
#define MEMORY_ENTRY(symbol, base, version, per_thread, pfn)
#include "shim/intercept/cuda_entries.def"
#undef MEMORY_ENTRY
#undef RECORDED_ENTRY
#undef ENTRY
};

void say_unavailable(const std::string& why) {
  config::warn_once(fmt::format("CUPTI activity tracing unavailable: {}; GPU times come from event pairs", why));
}

// Every step or nothing: a failure undoes what was turned on.
bool turn_tracing_on(const cupti::CuptiLibrary& c) {
  CUpti_SubscriberHandle subscriber = nullptr;
  CUptiResult r = c.cuptiSubscribe(&subscriber, note_call_correlation, nullptr);
  if (r != CUPTI_SUCCESS) {
    say_unavailable(c.explain("cuptiSubscribe", r));
    return false;
  }
  r = c.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  std::size_t enabled = 0;
  for (; r == CUPTI_SUCCESS && enabled < std::size(kTracedKinds); ++enabled) {
    r = c.cuptiActivityEnable(kTracedKinds[enabled]);
    if (r != CUPTI_SUCCESS) break;
  }
  const char* failed = enabled == 0 ? "cuptiActivityRegisterCallbacks" : "cuptiActivityEnable";
  if (r == CUPTI_SUCCESS) {
    failed = "cuptiEnableCallback";
    for (CUpti_CallbackId cbid : kRecordedCalls) {
      if ((r = c.cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid)) != CUPTI_SUCCESS) break;
    }
  }
  if (r == CUPTI_SUCCESS) return true;
  say_unavailable(c.explain(failed, r));
  for (std::size_t i = 0; i < enabled; ++i) c.cuptiActivityDisable(kTracedKinds[i]);
  c.cuptiUnsubscribe(subscriber);  // its callbacks with it
  return false;
}

void flush_cupti(std::uint32_t flags) { g_cupti->cuptiActivityFlushAll(flags); }

// Until everything submitted to `context` ran. A context that is gone is not waited for.
void wait_for_context(CUcontext context) {
  const DriverCalls* d = driver_calls();
  if (!d || !d->ctx_push || !d->ctx_pop || !d->ctx_synchronize) return;
  if (d->ctx_push(context) != CUDA_SUCCESS) return;
  {
    const RelaxedCaptureMode relaxed(*d);
    d->ctx_synchronize();
  }
  CUcontext popped = nullptr;
  d->ctx_pop(&popped);
}

// Delivers what CUPTI holds complete, takes the operations queued meanwhile, then ends
// a round of the matcher; answers the rounds asked for before it began.
void collect_round() {
  Activities& a = activities();
  std::uint64_t asked = 0;
  {
    std::lock_guard lock(a.mutex);
    asked = a.rounds_asked;
  }
  flush_cupti(0);
  {
    std::lock_guard lock(a.mutex);
    take_pending_locked(a);
    a.matcher.end_round(monotonic_ns(), a.ready);
    a.rounds_answered = asked;
  }
  a.round_answered.notify_all();
}

bool round_asked() {
  Activities& a = activities();
  std::lock_guard lock(a.mutex);
  return a.rounds_answered != a.rounds_asked;
}

}  // namespace

void make_room_for_operations() {
  Activities& a = activities();
  std::lock_guard lock(a.mutex);
  make_room_locked(a);
}

namespace {

bool awaiting() {
  Activities& a = activities();
  std::lock_guard lock(a.mutex);
  return a.matcher.waiting() || !pending_empty(a) || a.rounds_answered != a.rounds_asked;
}

// Sleeps until the next round is due or asked for, making room whenever a thread's ring
// is half full meanwhile.
void wait_for_round() {
  const auto due = std::chrono::steady_clock::now() + std::chrono::nanoseconds(kPollIntervalNs);
  for (;;) {
    if (g_collector.wait_until(due)) make_room_for_operations();
    if (std::chrono::steady_clock::now() >= due || round_asked()) return;
  }
}

// The collector thread, until tracing stops. With nothing awaited it sleeps: an
// operation expected meanwhile, or a round asked for, wakes it.
void run_collector() {
  for (;;) {
    if (!activity_tracing()) return;
    if (awaiting()) {
      wait_for_round();
      if (activity_tracing()) collect_round();
      continue;
    }
    g_collector.sleep_unless(awaiting, kIdleInterval);
  }
}

// The writer, before a flight recorder's dump: a round now, so that the operations
// completed so far are written first. Bounded: the round's records may wait for the
// writer's room.
void deliver_completed_activities() {
  if (!activity_tracing() || !g_collector.started()) return;
  Activities& a = activities();
  std::unique_lock lock(a.mutex);
  const std::uint64_t asked = ++a.rounds_asked;
  lock.unlock();
  g_collector.wake();
  lock.lock();
  a.round_answered.wait_for(lock, kAskedRoundWait, [&] { return a.rounds_answered >= asked || !activity_tracing(); });
}

// At exit, once every operation completed (LifecycleStage::operations): the last
// records are written, then tracing stops before CUPTI's own exit handlers run.
void settle_and_stop_at_exit() {
  settle_activities(nullptr);
  if (!activity_tracing()) return;
  g_state.store(State::off, std::memory_order_release);
  for (CUpti_ActivityKind kind : kTracedKinds) g_cupti->cuptiActivityDisable(kind);
}

void settle_before_fork() {
  settle_activities(nullptr);
  activities().pending.lock_for_fork();
}

void unlock_after_fork() { activities().pending.unlock_in_parent(); }

// The process ends without its exit handlers: no CUPTI call (its own state may be
// mid-call on the ending thread); operations still waiting for activities are written
// without GPU times.
void settle_at_abrupt_end() {
  if (!activity_tracing()) return;
  Activities& a = activities();
  std::lock_guard lock(a.mutex);
  take_pending_locked(a);
  a.matcher.settle(nullptr, a.ready);
}

// CUPTI does not carry over into a forked child: the child times with events only, and
// has no collector.
void stop_in_child() {
  if (g_state.load(std::memory_order_relaxed) == State::tracing) g_state.store(State::off, std::memory_order_relaxed);
  activities().pending.reset_in_child();
}

}  // namespace

// Started once tracing is on, with its handlers.
constinit InternalWorker<detail::OperationQueue> detail::g_collector{{
    .name = "cprof-activity",
    .run = run_collector,
    .cannot_start = "cannot start the activity collector thread; records wait for the next flush point",
    .stage = LifecycleStage::activities,
    .handlers = {settle_and_stop_at_exit, settle_before_fork, unlock_after_fork, stop_in_child, settle_at_abrupt_end},
}};

namespace {

void decide() {
  if (counters_configured()) {
    // The range profiler replays counted kernels; its sessions and the activity API
    // are not combined (docs/counters.md, "Counters and activity records").
    config::warn_once("counters are configured: GPU times come from event pairs, CUPTI's activity records are not "
                      "used");
    g_state.store(State::off, std::memory_order_release);
    return;
  }
  const cupti::CuptiLoad& load = cupti::process_cupti();
  if (!load.library) {
    say_unavailable(load.error);
    g_state.store(State::off, std::memory_order_release);
    return;
  }
  g_cupti = &*load.library;
  // Serialized records are written in the order their operations ran.
  const bool serialized = !process_profile().cuda.operations.concurrent;
  activities().matcher.keep_order(serialized);
  activities().park_between_rounds = serialized;
  activities().matcher.select_graph_nodes(selects_graph_nodes());
  if (!turn_tracing_on(*g_cupti)) {
    g_state.store(State::off, std::memory_order_release);
    return;
  }
  g_state.store(State::tracing, std::memory_order_release);
  g_collector.start();
  add_completed_operations_source(deliver_completed_activities);
}


}  // namespace

bool detail::decide_activity_timing() {
  pthread_once(&g_start_once, decide);
  return true;
}

void settle_activities(const ProfiledContext* context) {
  if (!activity_tracing()) return;
  Activities& a = activities();
  // Operations nobody waited for (conckerneltrace) may still run: their activity
  // records are complete once their contexts are idle.
  std::vector<void*> running;
  {
    std::lock_guard lock(a.mutex);
    take_pending_locked(a);
    running = a.matcher.running_device_contexts(context);
  }
  for (void* device_context : running) wait_for_context(static_cast<CUcontext>(device_context));
  // What is complete first; a forced flush only when something is still missing, as
  // it also hands over buffers holding other operations' unfinished records.
  flush_cupti(0);
  bool missing = false;
  {
    std::lock_guard lock(a.mutex);
    missing = a.matcher.expecting(context);
  }
  if (missing) flush_cupti(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  // A buffer CUPTI's own thread was handing over as the flush ran may still be on its
  // way: a short wait for it before the rest is written without GPU times.
  for (int wait = 0; missing && wait < kSettleWaits; ++wait) {
    {
      std::lock_guard lock(a.mutex);
      missing = a.matcher.expecting(context);
    }
    if (missing) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::lock_guard lock(a.mutex);
  take_pending_locked(a);
  a.matcher.settle(context, a.ready);
}

}  // namespace computeprof::shim
