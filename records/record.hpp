#pragma once
// One kernel execution, copy or memset, as every collector fills it and every writer
// reads it. Plain data: no allocation, so the shim can fill it on the application's
// threads.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "config/counters.hpp"

namespace computeprof::records {

// graph: one cuGraphLaunch, timed as a whole (its nodes are not seen one by one
// without CUPTI).
enum class RecordKind : std::uint8_t { kernel, memcpy, memset, graph };
inline constexpr std::size_t kRecordKinds = 4;

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

// memtransferdir values (docs/format.md, "Methods and directions"); host_to_host (a unified-address copy between
// two host buffers) is computeprof's: the old profiler had no such copies.
enum class TransferDir : std::uint8_t {
  host_to_device = 0,
  device_to_host = 1,
  device_to_device = 2,
  peer = 3,
  host_to_host = 4
};
// memtransferhostmemtype values.
enum class HostMemType : std::uint8_t { pageable = 0, page_locked = 1 };

struct CounterValue {
  enum class State : std::uint8_t { absent, unavailable, value };
  State state = State::absent;
  std::uint64_t value = 0;

  static CounterValue unavailable_value() { return {State::unavailable, 0}; }
  static CounterValue of(std::uint64_t v) { return {State::value, v}; }
};

// The counter values of one counted launch, kept apart from its record: most records
// have none, and all 45 would make every record several times larger.
struct CounterValues {
  std::array<CounterValue, config::kLegacyCounterCount> values{};
};

// none: not a counted launch. unavailable: counters could not be collected; every
// configured counter reads n/a. measured: Record::counters holds them.
enum class CounterState : std::uint8_t { none, unavailable, measured };

// Fields are ordered by size, so that no padding is wasted: records are copied through
// per-thread rings at every operation (176 bytes).
struct Record {
  // Kernel name or copy method; the producer keeps the characters alive for the whole
  // process (interned names, string literals): the exports' threads write copies of
  // the record after the pipeline is done with it.
  std::string_view method;
  // The intercepted call that made the operation (a string literal): its entry point.
  std::string_view api;

  std::uint64_t gpu_start_ns = 0;  // gpustarttimestamp
  std::uint64_t gpu_end_ns = 0;    // gpuendtimestamp
  std::uint64_t timestamp_ns = 0;  // CPU start, since the context was created
  std::uint64_t gputime_ns = 0;
  std::uint64_t cputime_ns = 0;
  std::uint64_t stream_id = 0;
  // Ties the call to its GPU work in exports; unique in the process (a graph launch's
  // nodes share their launch's).
  std::uint64_t correlation_id = 0;
  std::uint64_t transfer_bytes = 0;  // copies and memsets
  // With CounterState::measured: owned by the record until it is written (the record
  // pipeline frees it then); otherwise null.
  CounterValues* counters = nullptr;

  // Kernels only.
  Dim3 grid;
  Dim3 block;
  std::uint32_t dynamic_smem = 0;
  std::uint32_t static_smem = 0;
  std::uint32_t registers = 0;
  // OpenCL localblocksize: work-items per work-group the program asked for, 0 when it
  // passed no local size and let the runtime choose.
  std::uint32_t local_block_size = 0;
  std::uint32_t thread_id = 0;  // of the thread that made the call
  std::uint32_t stack_id = 0;   // callstack: the call's stack, numbered by the shim; 0: none
  // The NVTX push/pop ranges open on the calling thread when it made the call: a path
  // of records::range_table() (records/range_table.hpp); 0: none.
  std::uint32_t range_path = 0;
  // Empty where it cannot be known (OpenCL on a CPU). A float holds every ratio of warps
  // exactly enough for the three decimals written.
  std::optional<float> occupancy;

  RecordKind kind = RecordKind::kernel;
  std::uint8_t cache_config_requested = 0;
  std::uint8_t cache_config_executed = 0;
  CounterState counter_state = CounterState::none;
  TransferDir transfer_dir = TransferDir::host_to_device;  // copies only
  std::optional<HostMemType> host_mem_type;                // copies with a host side
  // The producer checked that `method` holds no character a log escapes or quotes
  // (logfmt::is_plain_name), so the writer does not scan it again: a kernel's name is
  // checked once per kernel, not once per record.
  bool method_is_plain = false;

  // The value of legacy counter `id` (absent when the record has no counters).
  CounterValue counter(std::size_t id) const {
    switch (counter_state) {
      case CounterState::none: return {};
      case CounterState::unavailable: return CounterValue::unavailable_value();
      case CounterState::measured: return counters->values[id];
    }
    return {};
  }
};
static_assert(sizeof(Record) <= 176, "records travel through per-thread rings: keep them small");

}  // namespace computeprof::records
