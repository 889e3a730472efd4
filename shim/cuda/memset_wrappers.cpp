// Memsets (method `memset`): 8, 16 and 32 bit, 1D and 2D, synchronous and not.
#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/timing/operation_timing.hpp"

namespace computeprof::shim {
namespace {

template <typename Call>
CUresult memset(std::string_view api, CUstream stream, bool per_thread, std::uint64_t bytes, Call&& call) {
  if (!cuda_recording()) return call();
  return run_recorded(
      api, stream, per_thread,
      [&](records::Record& r) {
        r.kind = records::RecordKind::memset;
        r.method = "memset";
        r.transfer_bytes = bytes;
      },
      call);
}

}  // namespace
}  // namespace computeprof::shim

using namespace computeprof::shim;

#define COMPUTEPROF_MEMSET_PAIR(NAME, PT_NAME, PARAMS, ARGS, STREAM, BYTES)                          \
  COMPUTEPROF_WRAPPER(NAME, PARAMS) {                                                          \
    COMPUTEPROF_REAL_OR_RETURN(NAME);                                                                \
    return computeprof::shim::memset(#NAME, STREAM, false, BYTES, [&] { return real_fn ARGS; });    \
  }                                                                                                  \
  COMPUTEPROF_WRAPPER(PT_NAME, PARAMS) {                                                       \
    COMPUTEPROF_REAL_OR_RETURN(PT_NAME);                                                             \
    return computeprof::shim::memset(#PT_NAME, STREAM, true, BYTES, [&] { return real_fn ARGS; });  \
  }

COMPUTEPROF_MEMSET_PAIR(cuMemsetD8_v2, cuMemsetD8_v2_ptds, (CUdeviceptr d, unsigned char v, size_t n), (d, v, n),
                        nullptr, n)
COMPUTEPROF_MEMSET_PAIR(cuMemsetD16_v2, cuMemsetD16_v2_ptds, (CUdeviceptr d, unsigned short v, size_t n), (d, v, n),
                        nullptr, 2 * static_cast<std::uint64_t>(n))
COMPUTEPROF_MEMSET_PAIR(cuMemsetD32_v2, cuMemsetD32_v2_ptds, (CUdeviceptr d, unsigned int v, size_t n), (d, v, n),
                        nullptr, 4 * static_cast<std::uint64_t>(n))
COMPUTEPROF_MEMSET_PAIR(cuMemsetD2D8_v2, cuMemsetD2D8_v2_ptds,
                        (CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h), (d, pitch, v, w, h),
                        nullptr, static_cast<std::uint64_t>(w) * h)
COMPUTEPROF_MEMSET_PAIR(cuMemsetD2D16_v2, cuMemsetD2D16_v2_ptds,
                        (CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h), (d, pitch, v, w, h),
                        nullptr, 2 * static_cast<std::uint64_t>(w) * h)
COMPUTEPROF_MEMSET_PAIR(cuMemsetD2D32_v2, cuMemsetD2D32_v2_ptds,
                        (CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h), (d, pitch, v, w, h),
                        nullptr, 4 * static_cast<std::uint64_t>(w) * h)
COMPUTEPROF_MEMSET_PAIR(cuMemsetD8Async, cuMemsetD8Async_ptsz, (CUdeviceptr d, unsigned char v, size_t n, CUstream s),
                        (d, v, n, s), s, n)
COMPUTEPROF_MEMSET_PAIR(cuMemsetD16Async, cuMemsetD16Async_ptsz,
                        (CUdeviceptr d, unsigned short v, size_t n, CUstream s), (d, v, n, s), s,
                        2 * static_cast<std::uint64_t>(n))
COMPUTEPROF_MEMSET_PAIR(cuMemsetD32Async, cuMemsetD32Async_ptsz, (CUdeviceptr d, unsigned int v, size_t n, CUstream s),
                        (d, v, n, s), s, 4 * static_cast<std::uint64_t>(n))
COMPUTEPROF_MEMSET_PAIR(cuMemsetD2D8Async, cuMemsetD2D8Async_ptsz,
                        (CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h, CUstream s),
                        (d, pitch, v, w, h, s), s, static_cast<std::uint64_t>(w) * h)
COMPUTEPROF_MEMSET_PAIR(cuMemsetD2D16Async, cuMemsetD2D16Async_ptsz,
                        (CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h, CUstream s),
                        (d, pitch, v, w, h, s), s, 2 * static_cast<std::uint64_t>(w) * h)
COMPUTEPROF_MEMSET_PAIR(cuMemsetD2D32Async, cuMemsetD2D32Async_ptsz,
                        (CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h, CUstream s),
                        (d, pitch, v, w, h, s), s, 4 * static_cast<std::uint64_t>(w) * h)
