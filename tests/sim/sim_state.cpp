// The simulated driver's shared state: contexts, streams and their workers.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "sim.hpp"
#include "work_trace.hpp"

namespace sim {

std::uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

namespace {
// SIMCUDA_EVENT_RECORDS_FILE: the number of cuEventRecord calls the process made is
// written there at exit, after every exit handler registered later (the shim's), and on
// a second line the number of events it created.
void write_event_records() {
  const char* path = std::getenv("SIMCUDA_EVENT_RECORDS_FILE");
  if (FILE* f = path ? std::fopen(path, "w") : nullptr) {
    std::fprintf(f, "%llu\n%llu\n", static_cast<unsigned long long>(driver().event_records.load()),
                 static_cast<unsigned long long>(driver().events_created.load()));
    std::fclose(f);
  }
}
}  // namespace

Driver& driver() {
  // Leaked: the driver must outlive every atexit handler, as the real one does.
  static Driver* d = [] {
    auto* drv = new Driver;
    if (const char* n = std::getenv("SIMCUDA_DEVICE_COUNT")) {
      const int count = std::atoi(n);
      if (count >= 1 && count <= kMaxDevices) drv->device_count = count;
    }
    if (std::getenv("SIMCUDA_EVENT_RECORDS_FILE")) std::atexit(write_event_records);
    return drv;
  }();
  return *d;
}

CUresult ready() {
  Driver& d = driver();
  if (d.deinitialised.load()) return CUDA_ERROR_DEINITIALIZED;
  return d.initialised.load(std::memory_order_acquire) ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

namespace {
// Each thread's stack of current contexts. Not a thread_local vector: exit() destroys
// the main thread's thread_locals before its atexit handlers run, and those may push a
// context (as the shim's do at exit, which the real driver allows). Owned by a list
// that stays reachable, so leak checkers see the stacks of finished threads owned.
struct ContextStack {
  std::vector<Context*> contexts;
};
thread_local ContextStack* t_context_stack = nullptr;

std::vector<Context*>& context_stack() {
  if (!t_context_stack) {
    static std::mutex mutex;
    static auto* stacks = new std::vector<ContextStack*>;
    auto* stack = new ContextStack;
    std::lock_guard lock(mutex);
    stacks->push_back(stack);
    t_context_stack = stack;
  }
  return t_context_stack->contexts;
}

// The worker's view of the operation it is running (see device_now()): its device
// time, and the wall time from which an operation without a modelled duration counts
// (0 once device_busy_for modelled it).
thread_local std::uint64_t t_device_ns = 0;
thread_local std::uint64_t t_wall_mark_ns = 0;

void sleep_until_ns(std::uint64_t ns) {
  // Not a call when the time has passed: clock_nanosleep costs a system call even then
  // (tens of us on a virtual machine), which made the simulated launch slower than the
  // profiler it tests.
  if (now_ns() >= ns) return;
  timespec ts;
  ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000u);
  ts.tv_nsec = static_cast<long>(ns % 1'000'000'000u);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
  }
}
}  // namespace

std::uint64_t device_now() { return t_device_ns; }

std::uint64_t device_time_so_far() { return t_wall_mark_ns == 0 ? t_device_ns : t_device_ns + (now_ns() - t_wall_mark_ns); }

void device_busy_for(std::uint64_t ns) {
  t_device_ns += ns;
  t_wall_mark_ns = 0;
  sleep_until_ns(t_device_ns);
}

void device_delay(std::uint64_t ns) {
  // The delay comes first in its operation: the worker's own time before it is not
  // the device's.
  const bool counting_wall = t_wall_mark_ns != 0;
  t_device_ns += ns;
  t_wall_mark_ns = 0;
  sleep_until_ns(t_device_ns);
  if (counting_wall) t_wall_mark_ns = now_ns();
}

std::uint64_t kernel_launch_latency_ns() {
  static const std::uint64_t latency = [] {
    const char* v = std::getenv("SIMCUDA_LAUNCH_LATENCY_NS");
    return v && *v ? std::strtoull(v, nullptr, 10) : std::uint64_t{5000};
  }();
  return latency;
}

void device_at_least(std::uint64_t ns) {
  t_device_ns = std::max(t_device_ns, ns);
  if (t_wall_mark_ns != 0) t_wall_mark_ns = now_ns();
}

Context* current_context() {
  const auto& stack = context_stack();
  if (stack.empty()) return nullptr;
  Context* c = stack.back();
  std::lock_guard lock(driver().mutex);
  return driver().contexts.count(c) ? c : nullptr;
}

void set_current_context(Context* c) {
  auto& stack = context_stack();
  if (stack.empty()) {
    if (c) stack.push_back(c);
  } else if (c) {
    stack.back() = c;
  } else {
    stack.pop_back();
  }
}

void push_context(Context* c) { context_stack().push_back(c); }

Context* pop_context() {
  auto& stack = context_stack();
  if (stack.empty()) return nullptr;
  Context* c = stack.back();
  stack.pop_back();
  return c;
}

void Stream::start() {
  std::thread([this] {
    std::uint64_t device_clock_ns = 0;
    for (;;) {
      PendingOperation op;
      {
        std::unique_lock lock(mutex);
        cv.wait(lock, [&] { return !queue.empty() || stopping; });
        if (queue.empty()) return;
        op = std::move(queue.front());
        queue.pop_front();
      }
      t_device_ns = std::max(device_clock_ns, op.submitted_ns);
      t_wall_mark_ns = now_ns();
      op.run();
      // An operation without a modelled duration (a copy, a CPU kernel body) takes
      // the wall time it took.
      device_clock_ns = device_time_so_far();
      bool room_made;
      {
        std::lock_guard lock(mutex);
        ++completed;
        completion_ns[completed % kStreamDepth] = device_clock_ns;
        room_made = room_waiters != 0 && enqueued - completed <= kStreamDepth / 2;
      }
      cv.notify_all();
      if (room_made) room.notify_all();
    }
  }).detach();
}

namespace {
void stamp(Event* ev, std::uint64_t ns) {
  {
    std::lock_guard lock(ev->mutex);
    ev->stamp_ns = ns;
    ev->done = true;
    ev->marker_stream = nullptr;
  }
  ev->cv.notify_all();
}
}  // namespace

bool Stream::add_marker(Event* ev) {
  std::lock_guard lock(mutex);
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE || !queue.empty() || completed != enqueued) return false;
  std::lock_guard event_lock(ev->mutex);
  ev->marker_stream = this;
  ev->marker_recorded_ns = now_ns();
  markers.push_back(ev);
  return true;
}

void settle_marker(Event* ev) {
  Stream* s = nullptr;
  {
    std::lock_guard lock(ev->mutex);
    s = ev->marker_stream;
  }
  if (!s) return;
  std::lock_guard lock(s->mutex);
  auto it = std::find(s->markers.begin(), s->markers.end(), ev);
  if (it == s->markers.end()) return;  // taken by an operation: stamped when it starts
  s->markers.erase(it);
  stamp(ev, ev->marker_recorded_ns);
}

void Stream::enqueue(Operation op, std::vector<std::pair<Stream*, std::uint64_t>> waits) {
  std::unique_lock lock(mutex);
  if (capture == CU_STREAM_CAPTURE_STATUS_NONE && enqueued - completed >= kStreamDepth) {
    // The worker needs nothing from this thread to make progress: what `waits` counts
    // was enqueued before.
    ++room_waiters;
    room.wait(lock, [&] { return enqueued - completed <= kStreamDepth / 2 || stopping; });
    --room_waiters;
  }
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE) {
    if (capture_graph) capture_graph->operations.push_back(std::move(op));
    return;
  }
  if (!markers.empty()) {
    op = [reached = std::move(markers), op = std::move(op)] {
      for (Event* ev : reached) stamp(ev, device_now());
      op();
    };
    markers.clear();
  }
  if (!waits.empty()) {
    op = [waits = std::move(waits), op = std::move(op)] {
      std::uint64_t ready_ns = 0;
      for (auto& [s, count] : waits) ready_ns = std::max(ready_ns, s->wait_for(count));
      device_at_least(ready_ns);
      op();
    };
  }
  queue.push_back({std::move(op), now_ns()});
  ++enqueued;
  cv.notify_all();
}

std::uint64_t Stream::wait_for(std::uint64_t count) {
  std::unique_lock lock(mutex);
  cv.wait(lock, [&] { return completed >= count; });
  if (count == 0) return 0;
  // Its time overwritten since: the oldest kept ended no earlier.
  const std::uint64_t kept = completed - count < kStreamDepth ? count : completed - kStreamDepth + 1;
  return completion_ns[kept % kStreamDepth];
}

void Stream::synchronize() {
  std::vector<Event*> waiting;
  {
    std::lock_guard lock(mutex);
    waiting = markers;
  }
  for (Event* ev : waiting) settle_marker(ev);
  wait_for(enqueued_count());
}

bool Stream::idle() {
  std::lock_guard lock(mutex);
  return completed == enqueued;
}

std::uint64_t Stream::enqueued_count() {
  std::lock_guard lock(mutex);
  return enqueued;
}

namespace {
Stream* new_stream(Context* c, bool legacy, bool blocking) {
  auto* s = new Stream;
  s->context = c;
  s->id = driver().next_id++;
  s->legacy = legacy;
  s->blocking = blocking;
  s->start();
  std::lock_guard lock(driver().mutex);
  driver().streams.insert(s);
  return s;
}
}  // namespace

Context* new_context(int device, bool primary) {
  auto* c = new Context;
  c->id = driver().next_id++;
  c->device = device;
  c->primary = primary;
  c->legacy = new_stream(c, true, true);
  std::lock_guard lock(driver().mutex);
  driver().contexts.insert(c);
  return c;
}

void destroy_context(Context* c) {
  std::vector<Stream*> streams;
  {
    std::lock_guard lock(c->mutex);
    streams = c->streams;
  }
  streams.push_back(c->legacy);
  for (Stream* s : streams) s->synchronize();
  std::lock_guard lock(driver().mutex);
  driver().contexts.erase(c);
  driver().retired.push_back(c);
  for (Stream* s : streams) {
    driver().streams.erase(s);
    driver().retired.push_back(s);
  }
}

Stream* resolve_stream(CUstream handle, bool per_thread_variant) {
  Context* current = current_context();
  if (handle == CU_STREAM_PER_THREAD || (handle == nullptr && per_thread_variant)) {
    if (!current) return nullptr;
    {
      std::lock_guard lock(current->mutex);
      auto it = current->per_thread.find(std::this_thread::get_id());
      if (it != current->per_thread.end()) return it->second;
    }
    Stream* s = new_stream(current, false, true);
    std::lock_guard lock(current->mutex);
    current->per_thread[std::this_thread::get_id()] = s;
    current->streams.push_back(s);
    return s;
  }
  if (handle == nullptr || handle == CU_STREAM_LEGACY) return current ? current->legacy : nullptr;
  auto* s = reinterpret_cast<Stream*>(handle);
  std::lock_guard lock(driver().mutex);
  return driver().streams.count(s) ? s : nullptr;
}

std::vector<std::pair<Stream*, std::uint64_t>> implicit_waits(Stream* s) {
  std::vector<std::pair<Stream*, std::uint64_t>> waits;
  if (s->legacy) {
    std::lock_guard lock(s->context->mutex);
    for (Stream* other : s->context->streams) {
      if (other->blocking) waits.emplace_back(other, other->enqueued_count());
    }
  } else if (s->blocking) {
    Stream* legacy = s->context->legacy;
    if (const std::uint64_t count = legacy->enqueued_count(); !legacy->idle()) waits.emplace_back(legacy, count);
  }
  return waits;
}

bool valid_device(CUdevice d) { return d >= 0 && d < driver().device_count; }

const Allocation* find_allocation(std::uintptr_t p, std::size_t n) {
  auto& allocs = driver().allocations;
  std::lock_guard lock(driver().mutex);
  auto it = allocs.upper_bound(p);
  if (it == allocs.begin()) return nullptr;
  --it;
  const Allocation& a = it->second;
  if (p < a.base || p + std::max<std::size_t>(n, 1) > a.base + a.size) return nullptr;
  return &a;
}

bool valid_array(CUarray a) {
  std::lock_guard lock(driver().mutex);
  return driver().arrays.count(reinterpret_cast<Array*>(a)) != 0;
}

CUresult submit(CUstream handle, bool per_thread, bool synchronous, Operation op) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!current_context()) return CUDA_ERROR_INVALID_CONTEXT;
  Stream* s = resolve_stream(handle, per_thread);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  bool capturing;
  {
    std::lock_guard lock(s->mutex);
    capturing = s->capture != CU_STREAM_CAPTURE_STATUS_NONE;
  }
  // The work alone is reported, not the wait for the blocking streams.
  op = traced_operation(std::move(op), *s, capturing);
  s->enqueue(std::move(op), implicit_waits(s));
  if (synchronous && !capturing) s->synchronize();
  return CUDA_SUCCESS;
}

}  // namespace sim
