#include "shim/cuda/stream_ids.hpp"

#include <array>
#include <atomic>
#include <cstddef>

#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/timing/thread_context.hpp"

namespace computeprof::shim {
namespace {

// Destructions of streams: those begun (low half) less those ended, and those ended
// (high half). One word, so that one load tells whether a cached id may be stale.
std::atomic<std::uint64_t> g_stream_generation{0};
constexpr std::uint64_t kEnded = std::uint64_t{1} << 32;
constexpr std::uint64_t kUnderway = kEnded - 1;

struct CachedStream {
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  std::uint64_t id = 0;
  std::uint64_t stream_generation = 0;
  std::uint64_t context_generation = 0;  // 0: empty
};

// A thread names few streams; four entries replaced in turn.
struct StreamCache {
  std::array<CachedStream, 4> entries{};
  std::size_t next_victim = 0;
};
thread_local StreamCache t_streams;

std::uint64_t ask_driver(const DriverCalls& d, CUstream stream) {
  unsigned long long id = 0;
  if (d.stream_get_id && d.stream_get_id(stream, &id) == CUDA_SUCCESS) return id;
  return 0;
}

}  // namespace

std::uint64_t stream_id(const DriverCalls& d, CUcontext context, CUstream stream) {
  const std::uint64_t streams = g_stream_generation.load(std::memory_order_acquire);
  const std::uint64_t contexts = thread_contexts_generation();
  if ((streams & kUnderway) != 0 || !context) return ask_driver(d, stream);
  StreamCache& cache = t_streams;
  for (const CachedStream& e : cache.entries) {
    if (e.stream == stream && e.context == context && e.stream_generation == streams &&
        e.context_generation == contexts) {
      return e.id;
    }
  }
  const std::uint64_t id = ask_driver(d, stream);
  // Kept only when the driver knew the stream and nothing was destroyed meanwhile.
  if (id != 0 && g_stream_generation.load(std::memory_order_acquire) == streams &&
      thread_contexts_generation() == contexts) {
    cache.entries[cache.next_victim] = {context, stream, id, streams, contexts};
    cache.next_victim = (cache.next_victim + 1) % cache.entries.size();
  }
  return id;
}

void stream_destruction_begins() { g_stream_generation.fetch_add(1, std::memory_order_acq_rel); }
void stream_destruction_ends() { g_stream_generation.fetch_add(kEnded - 1, std::memory_order_acq_rel); }

}  // namespace computeprof::shim

using namespace computeprof::shim;

COMPUTEPROF_EXPORT CUresult cuStreamDestroy_v2(CUstream stream) {
  COMPUTEPROF_REAL_OR_RETURN(cuStreamDestroy_v2);
  stream_destruction_begins();
  const CUresult r = real_fn(stream);
  stream_destruction_ends();
  return r;
}
