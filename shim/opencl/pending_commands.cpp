#include "shim/intercept/opencl_entry_functions.hpp"
#include "shim/opencl/pending_commands.hpp"

#include <pthread.h>
#include <time.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "config/report.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/clock.hpp"
#include "shim/process/lifecycle.hpp"

namespace computeprof::shim {
namespace {

struct PendingCommand {
  std::atomic<bool> busy{false};
  std::atomic<cl_command_queue> queue{nullptr};
  OpenCLContext* context = nullptr;
  HostTimes times;
  records::Record record;
};

// A fixed pool: taking a slot is a few atomic exchanges on the program's thread, no
// allocation and no lock.
constexpr std::size_t kSlots = 1024;
struct Pool {
  std::array<PendingCommand, kSlots> slots;
  std::atomic<std::size_t> pending{0};
};

std::atomic<Pool*> g_pool{nullptr};
pthread_once_t g_pool_once = PTHREAD_ONCE_INIT;

// Valid once the pool exists.
Pool& pool() { return *g_pool.load(std::memory_order_acquire); }

// Commands still running at exit: wait for them as long as some keep completing (their
// records are written in LifecycleStage::records). Added at the first tracked command,
// after the runtime initialised itself, so it runs before the runtime's own teardown.
void finish_pending_at_exit() {
  constexpr std::uint64_t kPatienceNs = 2'000'000'000;
  std::size_t last = pool().pending.load(std::memory_order_acquire);
  std::uint64_t since = monotonic_ns();
  while (last != 0) {
    const timespec pause{0, 1'000'000};
    nanosleep(&pause, nullptr);
    const std::size_t now = pool().pending.load(std::memory_order_acquire);
    if (now != last) {
      last = now;
      since = monotonic_ns();
    } else if (monotonic_ns() - since > kPatienceNs) {
      config::warn("OpenCL commands still not complete at exit; their records are missing");
      break;
    }
  }
}

void create_pool() {
  g_pool.store(new Pool, std::memory_order_release);  // leaked: callbacks may come until the end
  add_lifecycle_handlers(LifecycleStage::operations, {finish_pending_at_exit});
}

thread_local std::size_t t_hint = 0;

PendingCommand* take_slot() {
  for (std::size_t i = 0; i < kSlots; ++i) {
    PendingCommand& slot = pool().slots[(t_hint + i) % kSlots];
    if (!slot.busy.exchange(true, std::memory_order_acquire)) {
      t_hint = (t_hint + i + 1) % kSlots;
      return &slot;
    }
  }
  return nullptr;
}

void release_slot(PendingCommand& slot) {
  slot.queue.store(nullptr, std::memory_order_relaxed);
  slot.busy.store(false, std::memory_order_release);
  pool().pending.fetch_sub(1, std::memory_order_acq_rel);
}

void CL_CALLBACK on_complete(cl_event event, cl_int /*status*/, void* user_data) {
  auto& slot = *static_cast<PendingCommand*>(user_data);
  slot.times.completed_ns = monotonic_ns();
  fill_times(slot.record, *slot.context, event, slot.times, false);
  submit_record(slot.context->profiled, slot.times.completed_ns, slot.record);
  if (auto* release = COMPUTEPROF_CL_REAL(clReleaseEvent)) release(event);
  release_slot(slot);
}

}  // namespace

bool has_pending_commands(cl_command_queue queue) {
  Pool* p = g_pool.load(std::memory_order_acquire);
  if (!p || p->pending.load(std::memory_order_acquire) == 0) return false;
  for (const PendingCommand& slot : p->slots) {
    if (slot.queue.load(std::memory_order_acquire) == queue) return true;
  }
  return false;
}

bool record_on_completion(OpenCLContext& context, cl_command_queue queue, cl_event event, bool owned,
                          const HostTimes& times, const records::Record& record) {
  auto* set_callback = COMPUTEPROF_CL_REAL(clSetEventCallback);
  auto* retain = COMPUTEPROF_CL_REAL(clRetainEvent);
  auto* release = COMPUTEPROF_CL_REAL(clReleaseEvent);
  if (!set_callback || !retain || !release) return false;
  pthread_once(&g_pool_once, create_pool);
  PendingCommand* slot = take_slot();
  if (!slot) {
    config::warn_once("more than 1024 OpenCL commands in flight; the rest are waited for as in serialized mode");
    return false;
  }
  pool().pending.fetch_add(1, std::memory_order_acq_rel);
  slot->queue.store(queue, std::memory_order_release);
  slot->context = &context;
  slot->times = times;
  slot->record = record;
  if (!owned && retain(event) != CL_SUCCESS) {
    release_slot(*slot);
    return false;
  }
  if (set_callback(event, CL_COMPLETE, on_complete, slot) != CL_SUCCESS) {
    if (!owned) release(event);
    release_slot(*slot);
    return false;
  }
  return true;
}

}  // namespace computeprof::shim
