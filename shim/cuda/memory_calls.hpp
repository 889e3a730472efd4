#pragma once
// What the allocation wrappers (memory_wrappers.cpp) share: an event per successful
// allocation or free, numbered so that the writer applies them in the order the program
// made them (docs/design.md, "Memory tracing"), and cuMemGetInfo sampled when a
// device's use reaches a new high.
#include <cstdint>
#include <string_view>

#include "records/memory_event.hpp"
#include "shim/intercept/cuda_api.hpp"

namespace computeprof::shim {

// One call that allocates or frees; made just before the real call.
class MemoryCall {
 public:
  // A free is numbered now, before the driver can hand the address out again.
  MemoryCall(std::string_view api, records::MemoryOperation operation);

  // Stream-ordered calls: the stream and the pool, read after the call (the pool's
  // reserved and used bytes then). `pool` null: the stream's device's current pool.
  void stream_ordered(CUstream stream, CUmemoryPool pool);

  // After a successful allocation of `bytes` at `address` (a handle for arrays and
  // physical memory). `device` < 0: the current context's device.
  void allocated(records::MemoryKind kind, std::uint64_t address, std::uint64_t bytes, int device = -1);
  // After the free's call, whatever its result: `space` names where `address` lives
  // (memory_event.hpp; the writer finds the allocation's own kind).
  void freed(records::MemoryKind space, std::uint64_t address, CUresult result);

 private:
  records::MemoryEvent event_;
  CUstream stream_ = nullptr;
  CUmemoryPool pool_ = nullptr;
  bool stream_ordered_ = false;
};

}  // namespace computeprof::shim
