// The OpenCL commands that move or set memory, recorded as copies and memsets with the
// old profiler's method names. A command the program made non-blocking (and every
// copy between device objects, which OpenCL never blocks on) gets the `async` suffix.
// clEnqueueMapBuffer/Unmap are not recorded: whether a map moves any byte is the
// runtime's choice (README).
#include <cstddef>
#include <string_view>

#include "shim/intercept/opencl_entry_functions.hpp"
#include "shim/opencl/command_timer.hpp"

namespace computeprof::shim {
namespace {

using records::HostMemType;
using records::Record;
using records::RecordKind;
using records::TransferDir;

// Pinned when the runtime allocated the object in host memory it can reach directly.
HostMemType host_mem_type(cl_mem object) {
  cl_mem_flags flags = 0;
  auto* get_info = COMPUTEPROF_CL_REAL(clGetMemObjectInfo);
  if (get_info && get_info(object, CL_MEM_FLAGS, sizeof flags, &flags, nullptr) == CL_SUCCESS &&
      (flags & CL_MEM_ALLOC_HOST_PTR)) {
    return HostMemType::page_locked;
  }
  return HostMemType::pageable;
}

std::size_t region_bytes(const std::size_t* region) {
  return region ? region[0] * region[1] * region[2] : 0;
}

std::size_t image_bytes(cl_mem image, const std::size_t* region) {
  std::size_t element = 0;
  auto* get_info = COMPUTEPROF_CL_REAL(clGetImageInfo);
  if (!get_info || get_info(image, CL_IMAGE_ELEMENT_SIZE, sizeof element, &element, nullptr) != CL_SUCCESS) return 0;
  return element * region_bytes(region);
}

void describe_copy(Record& r, std::string_view method, TransferDir dir, std::size_t bytes) {
  r.kind = RecordKind::memcpy;
  r.method = method;
  r.transfer_dir = dir;
  r.transfer_bytes = bytes;
}

void describe_host_copy(Record& r, std::string_view method, TransferDir dir, std::size_t bytes, cl_mem object) {
  describe_copy(r, method, dir, bytes);
  r.host_mem_type = host_mem_type(object);
}

std::string_view named(cl_bool blocking, std::string_view sync, std::string_view async) {
  return blocking ? sync : async;
}

}  // namespace
}  // namespace computeprof::shim

using namespace computeprof::shim;
using computeprof::records::TransferDir;

COMPUTEPROF_CL_EXPORT cl_int clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                 size_t offset, size_t size, void* ptr, cl_uint num_waits,
                                                 const cl_event* waits, cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueReadBuffer);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) {
        describe_host_copy(r, named(blocking, "memcpyDtoH", "memcpyDtoHasync"), TransferDir::device_to_host, size,
                           buffer);
      },
      [&](cl_event* e) { return real_fn(queue, buffer, blocking, offset, size, ptr, num_waits, waits, e); });
}

COMPUTEPROF_CL_EXPORT cl_int clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                  size_t offset, size_t size, const void* ptr, cl_uint num_waits,
                                                  const cl_event* waits, cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueWriteBuffer);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) {
        describe_host_copy(r, named(blocking, "memcpyHtoD", "memcpyHtoDasync"), TransferDir::host_to_device, size,
                           buffer);
      },
      [&](cl_event* e) { return real_fn(queue, buffer, blocking, offset, size, ptr, num_waits, waits, e); });
}

COMPUTEPROF_CL_EXPORT cl_int clEnqueueReadBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                     const size_t* buffer_origin, const size_t* host_origin,
                                                     const size_t* region, size_t buffer_row_pitch,
                                                     size_t buffer_slice_pitch, size_t host_row_pitch,
                                                     size_t host_slice_pitch, void* ptr, cl_uint num_waits,
                                                     const cl_event* waits, cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueReadBufferRect);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) {
        describe_host_copy(r, named(blocking, "memcpyDtoH", "memcpyDtoHasync"), TransferDir::device_to_host,
                           region_bytes(region), buffer);
      },
      [&](cl_event* e) {
        return real_fn(queue, buffer, blocking, buffer_origin, host_origin, region, buffer_row_pitch,
                       buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, num_waits, waits, e);
      });
}

COMPUTEPROF_CL_EXPORT cl_int clEnqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                                      const size_t* buffer_origin, const size_t* host_origin,
                                                      const size_t* region, size_t buffer_row_pitch,
                                                      size_t buffer_slice_pitch, size_t host_row_pitch,
                                                      size_t host_slice_pitch, const void* ptr, cl_uint num_waits,
                                                      const cl_event* waits, cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueWriteBufferRect);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) {
        describe_host_copy(r, named(blocking, "memcpyHtoD", "memcpyHtoDasync"), TransferDir::host_to_device,
                           region_bytes(region), buffer);
      },
      [&](cl_event* e) {
        return real_fn(queue, buffer, blocking, buffer_origin, host_origin, region, buffer_row_pitch,
                       buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, num_waits, waits, e);
      });
}

COMPUTEPROF_CL_EXPORT cl_int clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
                                                 size_t dst_offset, size_t size, cl_uint num_waits,
                                                 const cl_event* waits, cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueCopyBuffer);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) { describe_copy(r, "memcpyDtoDasync", TransferDir::device_to_device, size); },
      [&](cl_event* e) { return real_fn(queue, src, dst, src_offset, dst_offset, size, num_waits, waits, e); });
}

COMPUTEPROF_CL_EXPORT cl_int clEnqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                     const size_t* src_origin, const size_t* dst_origin,
                                                     const size_t* region, size_t src_row_pitch,
                                                     size_t src_slice_pitch, size_t dst_row_pitch,
                                                     size_t dst_slice_pitch, cl_uint num_waits,
                                                     const cl_event* waits, cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueCopyBufferRect);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) {
        describe_copy(r, "memcpyDtoDasync", TransferDir::device_to_device, region_bytes(region));
      },
      [&](cl_event* e) {
        return real_fn(queue, src, dst, src_origin, dst_origin, region, src_row_pitch, src_slice_pitch,
                       dst_row_pitch, dst_slice_pitch, num_waits, waits, e);
      });
}

COMPUTEPROF_CL_EXPORT cl_int clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void* pattern,
                                                 size_t pattern_size, size_t offset, size_t size, cl_uint num_waits,
                                                 const cl_event* waits, cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueFillBuffer);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) {
        r.kind = computeprof::records::RecordKind::memset;
        r.method = "memset";
        r.transfer_bytes = size;
      },
      [&](cl_event* e) { return real_fn(queue, buffer, pattern, pattern_size, offset, size, num_waits, waits, e); });
}

COMPUTEPROF_CL_EXPORT cl_int clEnqueueReadImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                                const size_t* origin, const size_t* region, size_t row_pitch,
                                                size_t slice_pitch, void* ptr, cl_uint num_waits,
                                                const cl_event* waits, cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueReadImage);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) {
        describe_host_copy(r, named(blocking, "memcpyAtoH", "memcpyAtoHasync"), TransferDir::device_to_host,
                           image_bytes(image, region), image);
      },
      [&](cl_event* e) {
        return real_fn(queue, image, blocking, origin, region, row_pitch, slice_pitch, ptr, num_waits, waits, e);
      });
}

COMPUTEPROF_CL_EXPORT cl_int clEnqueueWriteImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                                 const size_t* origin, const size_t* region, size_t row_pitch,
                                                 size_t slice_pitch, const void* ptr, cl_uint num_waits,
                                                 const cl_event* waits, cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueWriteImage);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) {
        describe_host_copy(r, named(blocking, "memcpyHtoA", "memcpyHtoAasync"), TransferDir::host_to_device,
                           image_bytes(image, region), image);
      },
      [&](cl_event* e) {
        return real_fn(queue, image, blocking, origin, region, row_pitch, slice_pitch, ptr, num_waits, waits, e);
      });
}

COMPUTEPROF_CL_EXPORT cl_int clEnqueueCopyImage(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                const size_t* src_origin, const size_t* dst_origin,
                                                const size_t* region, cl_uint num_waits, const cl_event* waits,
                                                cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueCopyImage);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) {
        describe_copy(r, "memcpyAtoAasync", TransferDir::device_to_device, image_bytes(src, region));
      },
      [&](cl_event* e) { return real_fn(queue, src, dst, src_origin, dst_origin, region, num_waits, waits, e); });
}

COMPUTEPROF_CL_EXPORT cl_int clEnqueueCopyImageToBuffer(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                        const size_t* src_origin, const size_t* region,
                                                        size_t dst_offset, cl_uint num_waits, const cl_event* waits,
                                                        cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueCopyImageToBuffer);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) {
        describe_copy(r, "memcpyAtoDasync", TransferDir::device_to_device, image_bytes(src, region));
      },
      [&](cl_event* e) { return real_fn(queue, src, dst, src_origin, region, dst_offset, num_waits, waits, e); });
}

COMPUTEPROF_CL_EXPORT cl_int clEnqueueCopyBufferToImage(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                        size_t src_offset, const size_t* dst_origin,
                                                        const size_t* region, cl_uint num_waits,
                                                        const cl_event* waits, cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueCopyBufferToImage);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) {
        describe_copy(r, "memcpyDtoAasync", TransferDir::device_to_device, image_bytes(dst, region));
      },
      [&](cl_event* e) { return real_fn(queue, src, dst, src_offset, dst_origin, region, num_waits, waits, e); });
}
