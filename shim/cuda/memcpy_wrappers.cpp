// Every copy entry point of CUDA 13's cuda.h, legacy and per-thread variants.
#include <algorithm>
#include <array>

#include "shim/cuda/memory_sides.hpp"
#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/timing/operation_timing.hpp"

namespace computeprof::shim {

using records::classify_copy;
using records::CopyKind;
using records::MemorySide;
using records::peer_copy;
namespace {

void describe_copy(records::Record& r, const CopyKind& kind, std::uint64_t bytes) {
  r.kind = records::RecordKind::memcpy;
  r.method = kind.method;
  r.transfer_dir = kind.dir;
  r.host_mem_type = kind.host_mem_type;
  r.transfer_bytes = bytes;
}

template <typename Kind, typename Call>
CUresult copy(std::string_view api, CUstream stream, bool per_thread, Kind&& kind, std::uint64_t bytes, Call&& call) {
  if (!cuda_recording()) return call();
  return run_recorded(
      api, stream, per_thread, [&](records::Record& r) { describe_copy(r, kind(), bytes); }, call);
}

CopyKind kind_2d(const CUDA_MEMCPY2D* p, bool async) {
  return classify_copy(side_of_operand(p->srcMemoryType, p->srcHost, p->srcDevice),
                       side_of_operand(p->dstMemoryType, p->dstHost, p->dstDevice), async);
}

CopyKind kind_3d(const CUDA_MEMCPY3D* p, bool async) {
  return classify_copy(side_of_operand(p->srcMemoryType, p->srcHost, p->srcDevice),
                       side_of_operand(p->dstMemoryType, p->dstHost, p->dstDevice), async);
}

CopyKind kind_3d_peer(const CUDA_MEMCPY3D_PEER* p, bool async) {
  if (p->srcContext != p->dstContext) return peer_copy(async);
  return classify_copy(side_of_operand(p->srcMemoryType, p->srcHost, p->srcDevice),
                       side_of_operand(p->dstMemoryType, p->dstHost, p->dstDevice), async);
}

// A batch is one operation on the GPU, so one record: its direction is that of most
// of its bytes (docs/format.md, "Methods and directions").
struct BatchTally {
  std::array<std::uint64_t, 3 * 4> bytes{};  // [kind slot]
  std::array<CopyKind, 3 * 4> kinds{};
  std::array<bool, 3 * 4> seen{};
  std::uint64_t total = 0;

  void add(MemorySide src, MemorySide dst, std::uint64_t n) {
    const std::size_t slot = static_cast<std::size_t>(src) * 4 + static_cast<std::size_t>(dst);
    if (!seen[slot]) kinds[slot] = classify_copy(src, dst, true);
    seen[slot] = true;
    bytes[slot] += n;
    total += n;
  }
  CopyKind dominant() const {
    std::size_t best = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      if (seen[i] && (!seen[best] || bytes[i] > bytes[best])) best = i;
    }
    return seen[best] ? kinds[best] : classify_copy(MemorySide::device, MemorySide::device, true);
  }
};

BatchTally tally_batch(const CUdeviceptr* dsts, const CUdeviceptr* srcs, const size_t* sizes, size_t count) {
  BatchTally tally;
  if (!dsts || !srcs || !sizes) return tally;
  for (size_t i = 0; i < count; ++i) tally.add(side_of_address(srcs[i]), side_of_address(dsts[i]), sizes[i]);
  return tally;
}

MemorySide side_of_3d_operand(const CUmemcpy3DOperand& op) {
  return op.type == CU_MEMCPY_OPERAND_TYPE_ARRAY ? MemorySide::array : side_of_address(op.op.ptr.ptr);
}

BatchTally tally_3d_batch(const CUDA_MEMCPY3D_BATCH_OP* ops, size_t count) {
  BatchTally tally;
  if (!ops) return tally;
  for (size_t i = 0; i < count; ++i) {
    const auto& op = ops[i];
    // The extent counts elements: bytes for pointer-to-pointer copies, the array's
    // element size when an end is an array.
    std::size_t element = 1;
    if (op.src.type == CU_MEMCPY_OPERAND_TYPE_ARRAY) element = array_element_bytes(op.src.op.array.array);
    else if (op.dst.type == CU_MEMCPY_OPERAND_TYPE_ARRAY) element = array_element_bytes(op.dst.op.array.array);
    tally.add(side_of_3d_operand(op.src), side_of_3d_operand(op.dst),
              static_cast<std::uint64_t>(op.extent.width) * op.extent.height * op.extent.depth * element);
  }
  return tally;
}

template <typename Tally, typename Call>
CUresult batch_copy(std::string_view api, CUstream stream, bool per_thread, Tally&& tally, Call&& call) {
  if (!cuda_recording()) return call();
  return run_recorded(
      api, stream, per_thread,
      [&](records::Record& r) {
        const BatchTally t = tally();
        describe_copy(r, t.dominant(), t.total);
      },
      call);
}

constexpr MemorySide kDevice = MemorySide::device;
constexpr MemorySide kArray = MemorySide::array;

}  // namespace
}  // namespace computeprof::shim

using namespace computeprof::shim;

// Each macro defines the legacy variant and its per-thread twin from one body.
#define COMPUTEPROF_COPY_PAIR(NAME, PT_NAME, PARAMS, ARGS, STREAM, KIND, BYTES)                              \
  COMPUTEPROF_WRAPPER(NAME, PARAMS) {                                                                 \
    COMPUTEPROF_REAL_OR_RETURN(NAME);                                                                       \
    return copy(#NAME, STREAM, false, [&] { return KIND; }, BYTES, [&] { return real_fn ARGS; });          \
  }                                                                                                         \
  COMPUTEPROF_WRAPPER(PT_NAME, PARAMS) {                                                              \
    COMPUTEPROF_REAL_OR_RETURN(PT_NAME);                                                                    \
    return copy(#PT_NAME, STREAM, true, [&] { return KIND; }, BYTES, [&] { return real_fn ARGS; });        \
  }

COMPUTEPROF_COPY_PAIR(cuMemcpy, cuMemcpy_ptds, (CUdeviceptr dst, CUdeviceptr src, size_t n), (dst, src, n),
                      nullptr, classify_copy(side_of_address(src), side_of_address(dst), false), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyAsync, cuMemcpyAsync_ptsz, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s),
                      (dst, src, n, s), s, classify_copy(side_of_address(src), side_of_address(dst), true), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyPeer, cuMemcpyPeer_ptds,
                      (CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n),
                      (dst, dctx, src, sctx, n), nullptr,
                      dctx != sctx ? peer_copy(false) : classify_copy(kDevice, kDevice, false), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyPeerAsync, cuMemcpyPeerAsync_ptsz,
                      (CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n, CUstream s),
                      (dst, dctx, src, sctx, n, s), s,
                      dctx != sctx ? peer_copy(true) : classify_copy(kDevice, kDevice, true), n)

COMPUTEPROF_COPY_PAIR(cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds, (CUdeviceptr dst, const void* src, size_t n),
                      (dst, src, n), nullptr, classify_copy(side_of_host(src), kDevice, false), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds, (void* dst, CUdeviceptr src, size_t n), (dst, src, n),
                      nullptr, classify_copy(kDevice, side_of_host(dst), false), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds, (CUdeviceptr dst, CUdeviceptr src, size_t n),
                      (dst, src, n), nullptr, classify_copy(kDevice, kDevice, false), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyDtoA_v2, cuMemcpyDtoA_v2_ptds, (CUarray dst, size_t off, CUdeviceptr src, size_t n),
                      (dst, off, src, n), nullptr, classify_copy(kDevice, kArray, false), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyAtoD_v2, cuMemcpyAtoD_v2_ptds, (CUdeviceptr dst, CUarray src, size_t off, size_t n),
                      (dst, src, off, n), nullptr, classify_copy(kArray, kDevice, false), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyHtoA_v2, cuMemcpyHtoA_v2_ptds, (CUarray dst, size_t off, const void* src, size_t n),
                      (dst, off, src, n), nullptr, classify_copy(side_of_host(src), kArray, false), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyAtoH_v2, cuMemcpyAtoH_v2_ptds, (void* dst, CUarray src, size_t off, size_t n),
                      (dst, src, off, n), nullptr, classify_copy(kArray, side_of_host(dst), false), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyAtoA_v2, cuMemcpyAtoA_v2_ptds,
                      (CUarray dst, size_t doff, CUarray src, size_t soff, size_t n), (dst, doff, src, soff, n),
                      nullptr, classify_copy(kArray, kArray, false), n)

COMPUTEPROF_COPY_PAIR(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz,
                      (CUdeviceptr dst, const void* src, size_t n, CUstream s), (dst, src, n, s), s,
                      classify_copy(side_of_host(src), kDevice, true), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz,
                      (void* dst, CUdeviceptr src, size_t n, CUstream s), (dst, src, n, s), s,
                      classify_copy(kDevice, side_of_host(dst), true), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz,
                      (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s), (dst, src, n, s), s,
                      classify_copy(kDevice, kDevice, true), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyHtoAAsync_v2, cuMemcpyHtoAAsync_v2_ptsz,
                      (CUarray dst, size_t off, const void* src, size_t n, CUstream s), (dst, off, src, n, s), s, classify_copy(side_of_host(src), kArray, true), n)
COMPUTEPROF_COPY_PAIR(cuMemcpyAtoHAsync_v2, cuMemcpyAtoHAsync_v2_ptsz,
                      (void* dst, CUarray src, size_t off, size_t n, CUstream s), (dst, src, off, n, s), s,
                      classify_copy(kArray, side_of_host(dst), true), n)

COMPUTEPROF_COPY_PAIR(cuMemcpy2D_v2, cuMemcpy2D_v2_ptds, (const CUDA_MEMCPY2D* p), (p), nullptr,
                      kind_2d(p, false), p ? static_cast<std::uint64_t>(p->WidthInBytes) * p->Height : 0)
COMPUTEPROF_COPY_PAIR(cuMemcpy2DUnaligned_v2, cuMemcpy2DUnaligned_v2_ptds, (const CUDA_MEMCPY2D* p), (p), nullptr, kind_2d(p, false), p ? static_cast<std::uint64_t>(p->WidthInBytes) * p->Height : 0)
COMPUTEPROF_COPY_PAIR(cuMemcpy2DAsync_v2, cuMemcpy2DAsync_v2_ptsz, (const CUDA_MEMCPY2D* p, CUstream s), (p, s), s, kind_2d(p, true), p ? static_cast<std::uint64_t>(p->WidthInBytes) * p->Height : 0)
COMPUTEPROF_COPY_PAIR(cuMemcpy3D_v2, cuMemcpy3D_v2_ptds, (const CUDA_MEMCPY3D* p), (p), nullptr,
                      kind_3d(p, false),
                      p ? static_cast<std::uint64_t>(p->WidthInBytes) * p->Height * p->Depth : 0)
COMPUTEPROF_COPY_PAIR(cuMemcpy3DAsync_v2, cuMemcpy3DAsync_v2_ptsz, (const CUDA_MEMCPY3D* p, CUstream s), (p, s), s, kind_3d(p, true),
                      p ? static_cast<std::uint64_t>(p->WidthInBytes) * p->Height * p->Depth : 0)
COMPUTEPROF_COPY_PAIR(cuMemcpy3DPeer, cuMemcpy3DPeer_ptds, (const CUDA_MEMCPY3D_PEER* p), (p), nullptr,
                      kind_3d_peer(p, false),
                      p ? static_cast<std::uint64_t>(p->WidthInBytes) * p->Height * p->Depth : 0)
COMPUTEPROF_COPY_PAIR(cuMemcpy3DPeerAsync, cuMemcpy3DPeerAsync_ptsz, (const CUDA_MEMCPY3D_PEER* p, CUstream s),
                      (p, s), s, kind_3d_peer(p, true),
                      p ? static_cast<std::uint64_t>(p->WidthInBytes) * p->Height * p->Depth : 0)

#define COMPUTEPROF_BATCH_PAIR(NAME, PT_NAME, PARAMS, ARGS, STREAM, TALLY)                         \
  COMPUTEPROF_WRAPPER(NAME, PARAMS) {                                                        \
    COMPUTEPROF_REAL_OR_RETURN(NAME);                                                              \
    return batch_copy(#NAME, STREAM, false, [&] { return TALLY; }, [&] { return real_fn ARGS; });  \
  }                                                                                                \
  COMPUTEPROF_WRAPPER(PT_NAME, PARAMS) {                                                     \
    COMPUTEPROF_REAL_OR_RETURN(PT_NAME);                                                           \
    return batch_copy(#PT_NAME, STREAM, true, [&] { return TALLY; }, [&] { return real_fn ARGS; }); \
  }

COMPUTEPROF_BATCH_PAIR(cuMemcpyBatchAsync, cuMemcpyBatchAsync_ptsz,
                       (CUdeviceptr * dsts, CUdeviceptr* srcs, size_t* sizes, size_t count, CUmemcpyAttributes* attrs,
                        size_t* attr_idxs, size_t num_attrs, size_t* fail_idx, CUstream s),
                       (dsts, srcs, sizes, count, attrs, attr_idxs, num_attrs, fail_idx, s), s,
                       tally_batch(dsts, srcs, sizes, count))
COMPUTEPROF_BATCH_PAIR(cuMemcpyBatchAsync_v2, cuMemcpyBatchAsync_v2_ptsz,
                       (CUdeviceptr * dsts, CUdeviceptr* srcs, size_t* sizes, size_t count, CUmemcpyAttributes* attrs,
                        size_t* attr_idxs, size_t num_attrs, CUstream s),
                       (dsts, srcs, sizes, count, attrs, attr_idxs, num_attrs, s), s,
                       tally_batch(dsts, srcs, sizes, count))
COMPUTEPROF_BATCH_PAIR(cuMemcpy3DBatchAsync, cuMemcpy3DBatchAsync_ptsz,
                       (size_t count, CUDA_MEMCPY3D_BATCH_OP* ops, size_t* fail_idx, unsigned long long flags,
                        CUstream s),
                       (count, ops, fail_idx, flags, s), s, tally_3d_batch(ops, count))
COMPUTEPROF_BATCH_PAIR(cuMemcpy3DBatchAsync_v2, cuMemcpy3DBatchAsync_v2_ptsz,
                       (size_t count, CUDA_MEMCPY3D_BATCH_OP* ops, unsigned long long flags, CUstream s),
                       (count, ops, flags, s), s, tally_3d_batch(ops, count))
