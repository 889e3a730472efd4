// Copies and memsets: they really move bytes, on the stream's worker thread.
#include <cupti_driver_cbid.h>

#include <algorithm>
#include <cstring>

#include "sim.hpp"
#include "sim_api.hpp"
#include "work_trace.hpp"

using namespace sim;

namespace {

using Bytes = unsigned char*;

Bytes at(std::uintptr_t p) { return reinterpret_cast<Bytes>(p); }
Bytes at(const void* p) { return static_cast<Bytes>(const_cast<void*>(p)); }

bool device_range(CUdeviceptr p, std::size_t n) { return n == 0 || find_allocation(p, n) != nullptr; }

WorkRecord copy_work(std::uint64_t bytes, WorkMemory source, WorkMemory destination) {
  WorkRecord w;
  w.kind = WorkKind::memcpy;
  w.bytes = bytes;
  w.source = source;
  w.destination = destination;
  return w;
}

WorkMemory memory_of(CUmemorytype type, const void* host) {
  switch (type) {
    case CU_MEMORYTYPE_HOST: return memory_at(host);
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED: return WorkMemory::device;
    case CU_MEMORYTYPE_ARRAY: return WorkMemory::array;
  }
  return WorkMemory::unknown;
}

CUresult linear_copy(CUstream s, bool per_thread, bool sync, void* dst, const void* src, std::size_t n) {
  WorkNote note(copy_work(n, memory_at(src), memory_at(dst)));
  return submit(s, per_thread, sync, [=] { std::memmove(dst, src, n); });
}

// One end of a pitched copy.
struct Plane {
  Bytes base = nullptr;
  std::size_t pitch = 0;
  std::size_t height = 0;  // rows per slice (3D)
};

Plane plane_of(CUmemorytype type, const void* host, CUdeviceptr device, CUarray array, std::size_t pitch,
               std::size_t height) {
  switch (type) {
    case CU_MEMORYTYPE_HOST: return {at(host), pitch, height};
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED: return {at(device), pitch, height};
    case CU_MEMORYTYPE_ARRAY: {
      auto* a = reinterpret_cast<Array*>(array);
      return {a->data.data(), a->desc.Width * a->element_size, a->desc.Height ? a->desc.Height : 1};
    }
  }
  return {};
}

void copy_3d(const Plane& dst, std::size_t dx, std::size_t dy, std::size_t dz, const Plane& src, std::size_t sx,
             std::size_t sy, std::size_t sz, std::size_t width, std::size_t height, std::size_t depth) {
  for (std::size_t z = 0; z < depth; ++z) {
    for (std::size_t y = 0; y < height; ++y) {
      std::memmove(dst.base + ((dz + z) * dst.height + dy + y) * dst.pitch + dx,
                   src.base + ((sz + z) * src.height + sy + y) * src.pitch + sx, width);
    }
  }
}

bool plane_ok(CUmemorytype type, const void* host, CUdeviceptr device, CUarray array) {
  switch (type) {
    case CU_MEMORYTYPE_HOST: return host != nullptr;
    case CU_MEMORYTYPE_DEVICE: return find_allocation(device) != nullptr;
    case CU_MEMORYTYPE_UNIFIED: return device != 0;
    case CU_MEMORYTYPE_ARRAY: return valid_array(array);
  }
  return false;
}

CUresult copy_2d(const CUDA_MEMCPY2D* p, CUstream s, bool per_thread, bool sync) {
  if (!p || !plane_ok(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray) ||
      !plane_ok(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const CUDA_MEMCPY2D c = *p;
  WorkNote note(copy_work(c.WidthInBytes * c.Height, memory_of(c.srcMemoryType, c.srcHost),
                          memory_of(c.dstMemoryType, c.dstHost)));
  return submit(s, per_thread, sync, [c] {
    const Plane src = plane_of(c.srcMemoryType, c.srcHost, c.srcDevice, c.srcArray, c.srcPitch, 0);
    const Plane dst = plane_of(c.dstMemoryType, c.dstHost, c.dstDevice, c.dstArray, c.dstPitch, 0);
    copy_3d(dst, c.dstXInBytes, c.dstY, 0, src, c.srcXInBytes, c.srcY, 0, c.WidthInBytes, c.Height, 1);
  });
}

template <typename Copy3D>
CUresult copy_3d_params(const Copy3D* p, CUstream s, bool per_thread, bool sync) {
  if (!p || !plane_ok(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray) ||
      !plane_ok(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const Copy3D c = *p;
  WorkNote note(copy_work(c.WidthInBytes * c.Height * c.Depth, memory_of(c.srcMemoryType, c.srcHost),
                          memory_of(c.dstMemoryType, c.dstHost)));
  return submit(s, per_thread, sync, [c] {
    const Plane src = plane_of(c.srcMemoryType, c.srcHost, c.srcDevice, c.srcArray, c.srcPitch, c.srcHeight);
    const Plane dst = plane_of(c.dstMemoryType, c.dstHost, c.dstDevice, c.dstArray, c.dstPitch, c.dstHeight);
    copy_3d(dst, c.dstXInBytes, c.dstY, c.dstZ, src, c.srcXInBytes, c.srcY, c.srcZ, c.WidthInBytes, c.Height,
            c.Depth);
  });
}

CUresult batch(CUdeviceptr* dsts, CUdeviceptr* srcs, size_t* sizes, size_t count, CUstream s, bool per_thread) {
  if (!dsts || !srcs || !sizes || count == 0) return CUDA_ERROR_INVALID_VALUE;
  if (s == nullptr && !per_thread) return CUDA_ERROR_INVALID_VALUE;  // not the legacy NULL stream
  std::vector<CUdeviceptr> d(dsts, dsts + count), src(srcs, srcs + count);
  std::vector<size_t> n(sizes, sizes + count);
  std::uint64_t bytes = 0;
  for (size_t size : n) bytes += size;
  // CUPTI folds a batch into one record.
  WorkNote note(copy_work(bytes, memory_at(at(src[0])), memory_at(at(d[0]))));
  return submit(s, per_thread, false, [d, src, n] {
    for (std::size_t i = 0; i < d.size(); ++i) std::memmove(at(d[i]), at(src[i]), n[i]);
  });
}

// An operand of a 3D batch copy: where element (x, y, z) lives.
struct Operand3D {
  Bytes base;
  std::size_t row_bytes, slice_bytes, element;
};

Operand3D operand_of(const CUmemcpy3DOperand& op, std::size_t element, const CUextent3D& extent) {
  if (op.type == CU_MEMCPY_OPERAND_TYPE_ARRAY) {
    auto* a = reinterpret_cast<Array*>(op.op.array.array);
    const std::size_t row = a->desc.Width * a->element_size;
    const std::size_t slice = row * (a->desc.Height ? a->desc.Height : 1);
    return {a->data.data() + op.op.array.offset.z * slice + op.op.array.offset.y * row +
                op.op.array.offset.x * a->element_size,
            row, slice, a->element_size};
  }
  const std::size_t row_length = op.op.ptr.rowLength ? op.op.ptr.rowLength : extent.width;
  const std::size_t layer_height = op.op.ptr.layerHeight ? op.op.ptr.layerHeight : extent.height;
  return {at(op.op.ptr.ptr), row_length * element, row_length * layer_height * element, element};
}

CUresult batch_3d(size_t count, CUDA_MEMCPY3D_BATCH_OP* ops, CUstream s, bool per_thread) {
  if (!ops || count == 0) return CUDA_ERROR_INVALID_VALUE;
  if (s == nullptr && !per_thread) return CUDA_ERROR_INVALID_VALUE;
  std::vector<CUDA_MEMCPY3D_BATCH_OP> list(ops, ops + count);
  for (const auto& op : list) {
    for (const auto* end : {&op.src, &op.dst}) {
      if (end->type == CU_MEMCPY_OPERAND_TYPE_ARRAY && !valid_array(end->op.array.array)) return CUDA_ERROR_INVALID_VALUE;
    }
  }
  std::uint64_t bytes = 0;
  for (const auto& op : list) bytes += op.extent.width * op.extent.height * op.extent.depth;
  WorkNote note(copy_work(bytes, WorkMemory::unknown, WorkMemory::unknown));
  return submit(s, per_thread, false, [list] {
    for (const auto& op : list) {
      std::size_t element = 1;
      if (op.src.type == CU_MEMCPY_OPERAND_TYPE_ARRAY) element = reinterpret_cast<Array*>(op.src.op.array.array)->element_size;
      else if (op.dst.type == CU_MEMCPY_OPERAND_TYPE_ARRAY) element = reinterpret_cast<Array*>(op.dst.op.array.array)->element_size;
      const Operand3D src = operand_of(op.src, element, op.extent);
      const Operand3D dst = operand_of(op.dst, element, op.extent);
      for (std::size_t z = 0; z < op.extent.depth; ++z) {
        for (std::size_t y = 0; y < op.extent.height; ++y) {
          std::memmove(dst.base + z * dst.slice_bytes + y * dst.row_bytes, src.base + z * src.slice_bytes + y * src.row_bytes,
                       op.extent.width * element);
        }
      }
    }
  });
}

template <typename T>
CUresult fill_2d(CUdeviceptr d, std::size_t pitch, T value, std::size_t width, std::size_t height, CUstream s,
                 bool per_thread, bool sync) {
  if (!device_range(d, height ? (height - 1) * pitch + width * sizeof(T) : 0)) return CUDA_ERROR_INVALID_VALUE;
  WorkRecord work;
  work.kind = WorkKind::memset;
  work.bytes = width * height * sizeof(T);
  work.value = static_cast<std::uint32_t>(value);
  WorkNote note(work);
  return submit(s, per_thread, sync, [=] {
    for (std::size_t y = 0; y < height; ++y) {
      T* row = reinterpret_cast<T*>(at(d + y * pitch));
      std::fill(row, row + width, value);
    }
  });
}

Bytes array_at(CUarray a, std::size_t offset) { return reinterpret_cast<Array*>(a)->data.data() + offset; }
bool array_range(CUarray a, std::size_t offset, std::size_t n) {
  return valid_array(a) && offset + n <= reinterpret_cast<Array*>(a)->data.size();
}

}  // namespace

// Each macro defines a function and its per-thread twin from one body; `per_thread`
// and `sync` are visible in the body.
#define SIM_COPY(NAME, PT_NAME, SYNC, PARAMS, ...)                                    \
  namespace {                                                                         \
  CUresult NAME##_impl(bool per_thread, bool sync, SIM_UNPAREN PARAMS) __VA_ARGS__    \
  }                                                                                   \
  SIM_API CUresult NAME PARAMS {                                                      \
    DriverCall call(CUPTI_DRIVER_TRACE_CBID_##NAME);                                  \
    return NAME##_impl(false, SYNC, SIM_ARGS_##NAME);                                 \
  }                                                                                   \
  SIM_API CUresult PT_NAME PARAMS {                                                   \
    DriverCall call(CUPTI_DRIVER_TRACE_CBID_##PT_NAME);                               \
    return NAME##_impl(true, SYNC, SIM_ARGS_##NAME);                                  \
  }
#define SIM_UNPAREN(...) __VA_ARGS__

#define SIM_ARGS_cuMemcpy dst, src, n
SIM_COPY(cuMemcpy, cuMemcpy_ptds, true, (CUdeviceptr dst, CUdeviceptr src, size_t n), {
  return linear_copy(nullptr, per_thread, sync, at(dst), at(src), n);
})
#define SIM_ARGS_cuMemcpyAsync dst, src, n, s
SIM_COPY(cuMemcpyAsync, cuMemcpyAsync_ptsz, false, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s), {
  return linear_copy(s, per_thread, sync, at(dst), at(src), n);
})
#define SIM_ARGS_cuMemcpyPeer dst, dc, src, sc, n
SIM_COPY(cuMemcpyPeer, cuMemcpyPeer_ptds, true, (CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n), {
  if (!dc || !sc || !device_range(dst, n) || !device_range(src, n)) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(nullptr, per_thread, sync, at(dst), at(src), n);
})
#define SIM_ARGS_cuMemcpyPeerAsync dst, dc, src, sc, n, s
SIM_COPY(cuMemcpyPeerAsync, cuMemcpyPeerAsync_ptsz, false,
         (CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream s), {
           if (!dc || !sc || !device_range(dst, n) || !device_range(src, n)) return CUDA_ERROR_INVALID_VALUE;
           return linear_copy(s, per_thread, sync, at(dst), at(src), n);
         })
#define SIM_ARGS_cuMemcpyHtoD_v2 dst, src, n
SIM_COPY(cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds, true, (CUdeviceptr dst, const void* src, size_t n), {
  if (!device_range(dst, n) || !src) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(nullptr, per_thread, sync, at(dst), src, n);
})
#define SIM_ARGS_cuMemcpyDtoH_v2 dst, src, n
SIM_COPY(cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds, true, (void* dst, CUdeviceptr src, size_t n), {
  if (!device_range(src, n) || !dst) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(nullptr, per_thread, sync, dst, at(src), n);
})
#define SIM_ARGS_cuMemcpyDtoD_v2 dst, src, n
SIM_COPY(cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds, true, (CUdeviceptr dst, CUdeviceptr src, size_t n), {
  if (!device_range(src, n) || !device_range(dst, n)) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(nullptr, per_thread, sync, at(dst), at(src), n);
})
#define SIM_ARGS_cuMemcpyDtoA_v2 dst, off, src, n
SIM_COPY(cuMemcpyDtoA_v2, cuMemcpyDtoA_v2_ptds, true, (CUarray dst, size_t off, CUdeviceptr src, size_t n), {
  if (!device_range(src, n) || !array_range(dst, off, n)) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(nullptr, per_thread, sync, array_at(dst, off), at(src), n);
})
#define SIM_ARGS_cuMemcpyAtoD_v2 dst, src, off, n
SIM_COPY(cuMemcpyAtoD_v2, cuMemcpyAtoD_v2_ptds, true, (CUdeviceptr dst, CUarray src, size_t off, size_t n), {
  if (!device_range(dst, n) || !array_range(src, off, n)) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(nullptr, per_thread, sync, at(dst), array_at(src, off), n);
})
#define SIM_ARGS_cuMemcpyHtoA_v2 dst, off, src, n
SIM_COPY(cuMemcpyHtoA_v2, cuMemcpyHtoA_v2_ptds, true, (CUarray dst, size_t off, const void* src, size_t n), {
  if (!src || !array_range(dst, off, n)) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(nullptr, per_thread, sync, array_at(dst, off), src, n);
})
#define SIM_ARGS_cuMemcpyAtoH_v2 dst, src, off, n
SIM_COPY(cuMemcpyAtoH_v2, cuMemcpyAtoH_v2_ptds, true, (void* dst, CUarray src, size_t off, size_t n), {
  if (!dst || !array_range(src, off, n)) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(nullptr, per_thread, sync, dst, array_at(src, off), n);
})
#define SIM_ARGS_cuMemcpyAtoA_v2 dst, doff, src, soff, n
SIM_COPY(cuMemcpyAtoA_v2, cuMemcpyAtoA_v2_ptds, true, (CUarray dst, size_t doff, CUarray src, size_t soff, size_t n), {
  if (!array_range(dst, doff, n) || !array_range(src, soff, n)) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(nullptr, per_thread, sync, array_at(dst, doff), array_at(src, soff), n);
})
#define SIM_ARGS_cuMemcpyHtoDAsync_v2 dst, src, n, s
SIM_COPY(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz, false, (CUdeviceptr dst, const void* src, size_t n, CUstream s), {
  if (!device_range(dst, n) || !src) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(s, per_thread, sync, at(dst), src, n);
})
#define SIM_ARGS_cuMemcpyDtoHAsync_v2 dst, src, n, s
SIM_COPY(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz, false, (void* dst, CUdeviceptr src, size_t n, CUstream s), {
  if (!device_range(src, n) || !dst) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(s, per_thread, sync, dst, at(src), n);
})
#define SIM_ARGS_cuMemcpyDtoDAsync_v2 dst, src, n, s
SIM_COPY(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz, false, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s), {
  if (!device_range(src, n) || !device_range(dst, n)) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(s, per_thread, sync, at(dst), at(src), n);
})
#define SIM_ARGS_cuMemcpyHtoAAsync_v2 dst, off, src, n, s
SIM_COPY(cuMemcpyHtoAAsync_v2, cuMemcpyHtoAAsync_v2_ptsz, false, (CUarray dst, size_t off, const void* src, size_t n, CUstream s), {
  if (!src || !array_range(dst, off, n)) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(s, per_thread, sync, array_at(dst, off), src, n);
})
#define SIM_ARGS_cuMemcpyAtoHAsync_v2 dst, src, off, n, s
SIM_COPY(cuMemcpyAtoHAsync_v2, cuMemcpyAtoHAsync_v2_ptsz, false, (void* dst, CUarray src, size_t off, size_t n, CUstream s), {
  if (!dst || !array_range(src, off, n)) return CUDA_ERROR_INVALID_VALUE;
  return linear_copy(s, per_thread, sync, dst, array_at(src, off), n);
})
#define SIM_ARGS_cuMemcpy2D_v2 p
SIM_COPY(cuMemcpy2D_v2, cuMemcpy2D_v2_ptds, true, (const CUDA_MEMCPY2D* p), { return copy_2d(p, nullptr, per_thread, sync); })
#define SIM_ARGS_cuMemcpy2DUnaligned_v2 p
SIM_COPY(cuMemcpy2DUnaligned_v2, cuMemcpy2DUnaligned_v2_ptds, true, (const CUDA_MEMCPY2D* p), {
  return copy_2d(p, nullptr, per_thread, sync);
})
#define SIM_ARGS_cuMemcpy2DAsync_v2 p, s
SIM_COPY(cuMemcpy2DAsync_v2, cuMemcpy2DAsync_v2_ptsz, false, (const CUDA_MEMCPY2D* p, CUstream s), {
  return copy_2d(p, s, per_thread, sync);
})
#define SIM_ARGS_cuMemcpy3D_v2 p
SIM_COPY(cuMemcpy3D_v2, cuMemcpy3D_v2_ptds, true, (const CUDA_MEMCPY3D* p), { return copy_3d_params(p, nullptr, per_thread, sync); })
#define SIM_ARGS_cuMemcpy3DAsync_v2 p, s
SIM_COPY(cuMemcpy3DAsync_v2, cuMemcpy3DAsync_v2_ptsz, false, (const CUDA_MEMCPY3D* p, CUstream s), {
  return copy_3d_params(p, s, per_thread, sync);
})
#define SIM_ARGS_cuMemcpy3DPeer p
SIM_COPY(cuMemcpy3DPeer, cuMemcpy3DPeer_ptds, true, (const CUDA_MEMCPY3D_PEER* p), {
  return copy_3d_params(p, nullptr, per_thread, sync);
})
#define SIM_ARGS_cuMemcpy3DPeerAsync p, s
SIM_COPY(cuMemcpy3DPeerAsync, cuMemcpy3DPeerAsync_ptsz, false, (const CUDA_MEMCPY3D_PEER* p, CUstream s), {
  return copy_3d_params(p, s, per_thread, sync);
})
#define SIM_ARGS_cuMemcpyBatchAsync d, s, n, c, a, ai, na, f, st
SIM_COPY(cuMemcpyBatchAsync, cuMemcpyBatchAsync_ptsz, false,
         (CUdeviceptr * d, CUdeviceptr* s, size_t* n, size_t c, CUmemcpyAttributes* a, size_t* ai, size_t na,
          size_t* f, CUstream st),
         {
           (void)a, (void)ai, (void)na, (void)sync;
           if (f) *f = SIZE_MAX;
           return batch(d, s, n, c, st, per_thread);
         })
#define SIM_ARGS_cuMemcpyBatchAsync_v2 d, s, n, c, a, ai, na, st
SIM_COPY(cuMemcpyBatchAsync_v2, cuMemcpyBatchAsync_v2_ptsz, false,
         (CUdeviceptr * d, CUdeviceptr* s, size_t* n, size_t c, CUmemcpyAttributes* a, size_t* ai, size_t na,
          CUstream st),
         {
           (void)a, (void)ai, (void)na, (void)sync;
           return batch(d, s, n, c, st, per_thread);
         })
#define SIM_ARGS_cuMemcpy3DBatchAsync c, ops, f, fl, st
SIM_COPY(cuMemcpy3DBatchAsync, cuMemcpy3DBatchAsync_ptsz, false,
         (size_t c, CUDA_MEMCPY3D_BATCH_OP* ops, size_t* f, unsigned long long fl, CUstream st), {
           (void)fl, (void)sync;
           if (f) *f = SIZE_MAX;
           return batch_3d(c, ops, st, per_thread);
         })
#define SIM_ARGS_cuMemcpy3DBatchAsync_v2 c, ops, fl, st
SIM_COPY(cuMemcpy3DBatchAsync_v2, cuMemcpy3DBatchAsync_v2_ptsz, false,
         (size_t c, CUDA_MEMCPY3D_BATCH_OP* ops, unsigned long long fl, CUstream st), {
           (void)fl, (void)sync;
           return batch_3d(c, ops, st, per_thread);
         })

#define SIM_ARGS_cuMemsetD8_v2 d, v, n
SIM_COPY(cuMemsetD8_v2, cuMemsetD8_v2_ptds, true, (CUdeviceptr d, unsigned char v, size_t n), {
  return fill_2d<unsigned char>(d, n, v, n, 1, nullptr, per_thread, sync);
})
#define SIM_ARGS_cuMemsetD16_v2 d, v, n
SIM_COPY(cuMemsetD16_v2, cuMemsetD16_v2_ptds, true, (CUdeviceptr d, unsigned short v, size_t n), {
  return fill_2d<unsigned short>(d, 2 * n, v, n, 1, nullptr, per_thread, sync);
})
#define SIM_ARGS_cuMemsetD32_v2 d, v, n
SIM_COPY(cuMemsetD32_v2, cuMemsetD32_v2_ptds, true, (CUdeviceptr d, unsigned int v, size_t n), {
  return fill_2d<unsigned int>(d, 4 * n, v, n, 1, nullptr, per_thread, sync);
})
#define SIM_ARGS_cuMemsetD2D8_v2 d, p, v, w, h
SIM_COPY(cuMemsetD2D8_v2, cuMemsetD2D8_v2_ptds, true, (CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h), {
  return fill_2d<unsigned char>(d, p, v, w, h, nullptr, per_thread, sync);
})
#define SIM_ARGS_cuMemsetD2D16_v2 d, p, v, w, h
SIM_COPY(cuMemsetD2D16_v2, cuMemsetD2D16_v2_ptds, true, (CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h), {
  return fill_2d<unsigned short>(d, p, v, w, h, nullptr, per_thread, sync);
})
#define SIM_ARGS_cuMemsetD2D32_v2 d, p, v, w, h
SIM_COPY(cuMemsetD2D32_v2, cuMemsetD2D32_v2_ptds, true, (CUdeviceptr d, size_t p, unsigned int v, size_t w, size_t h), {
  return fill_2d<unsigned int>(d, p, v, w, h, nullptr, per_thread, sync);
})
#define SIM_ARGS_cuMemsetD8Async d, v, n, s
SIM_COPY(cuMemsetD8Async, cuMemsetD8Async_ptsz, false, (CUdeviceptr d, unsigned char v, size_t n, CUstream s), {
  return fill_2d<unsigned char>(d, n, v, n, 1, s, per_thread, sync);
})
#define SIM_ARGS_cuMemsetD16Async d, v, n, s
SIM_COPY(cuMemsetD16Async, cuMemsetD16Async_ptsz, false, (CUdeviceptr d, unsigned short v, size_t n, CUstream s), {
  return fill_2d<unsigned short>(d, 2 * n, v, n, 1, s, per_thread, sync);
})
#define SIM_ARGS_cuMemsetD32Async d, v, n, s
SIM_COPY(cuMemsetD32Async, cuMemsetD32Async_ptsz, false, (CUdeviceptr d, unsigned int v, size_t n, CUstream s), {
  return fill_2d<unsigned int>(d, 4 * n, v, n, 1, s, per_thread, sync);
})
#define SIM_ARGS_cuMemsetD2D8Async d, p, v, w, h, s
SIM_COPY(cuMemsetD2D8Async, cuMemsetD2D8Async_ptsz, false,
         (CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h, CUstream s), {
           return fill_2d<unsigned char>(d, p, v, w, h, s, per_thread, sync);
         })
#define SIM_ARGS_cuMemsetD2D16Async d, p, v, w, h, s
SIM_COPY(cuMemsetD2D16Async, cuMemsetD2D16Async_ptsz, false,
         (CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h, CUstream s), {
           return fill_2d<unsigned short>(d, p, v, w, h, s, per_thread, sync);
         })
#define SIM_ARGS_cuMemsetD2D32Async d, p, v, w, h, s
SIM_COPY(cuMemsetD2D32Async, cuMemsetD2D32Async_ptsz, false,
         (CUdeviceptr d, size_t p, unsigned int v, size_t w, size_t h, CUstream s), {
           return fill_2d<unsigned int>(d, p, v, w, h, s, per_thread, sync);
         })

