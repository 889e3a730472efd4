// Virtual memory management, done as the driver does it but with the process's own
// address space: a reservation is an inaccessible range of it, physical memory is a
// memory file, cuMemMap maps that file into a reservation (still inaccessible) and
// cuMemSetAccess opens the mapping: from then on copies and memsets reach it
// (find_allocation finds it). The granularity is 2 MiB. Physical memory is shared with
// another process as a file descriptor of its memory file, named after its device.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "sim.hpp"
#include "sim_api.hpp"

using namespace sim;

namespace {

using MappingIt = std::map<std::uintptr_t, Mapping>::iterator;

void* at(std::uintptr_t p) { return reinterpret_cast<void*>(p); }

// An inaccessible range that holds no memory: a reservation, or a mapping once unmapped.
void* inaccessible(void* where, std::size_t size, int flags) {
  return mmap(where, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | flags, -1, 0);
}

bool device_location(const CUmemLocation& l) { return l.type == CU_MEM_LOCATION_TYPE_DEVICE; }

constexpr std::string_view kMemoryFilePrefix = "simcuda-device-";

// The device whose memory file `fd` is; -1 when it is none of the sim's.
int device_of_memory_file(int fd) {
  char target[128];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = readlink(link.c_str(), target, sizeof target);
  const std::string_view name(target, n > 0 ? static_cast<std::size_t>(n) : 0);
  const std::string expected = "/memfd:" + std::string(kMemoryFilePrefix);
  if (!name.starts_with(expected)) return -1;
  int device = -1;
  const char* digits = name.data() + expected.size();
  std::from_chars(digits, name.data() + name.size(), device);
  return valid_device(device) ? device : -1;
}

PhysicalMemory* add_physical(int fd, std::size_t size, int device, bool exportable) {
  auto* m = new PhysicalMemory{fd, size, device, exportable};
  driver().physical.insert(m);
  return m;
}

// Physical memory the program may still use, with the driver's lock held; null otherwise.
PhysicalMemory* physical_of(CUmemGenericAllocationHandle handle) {
  auto* m = reinterpret_cast<PhysicalMemory*>(static_cast<std::uintptr_t>(handle));
  return driver().physical.count(m) && !m->released ? m : nullptr;
}

// Released and unmapped, physical memory is gone (retired: a stale handle stays harmless).
void forget_if_unused(PhysicalMemory* m) {
  if (!m->released || m->mappings > 0) return;
  driver().physical.erase(m);
  driver().retired.push_back(m);
}

bool inside_reservation(std::uintptr_t p, std::size_t n) {
  const auto& reservations = driver().reservations;
  auto it = reservations.upper_bound(p);
  if (it == reservations.begin()) return false;
  --it;
  return p + n <= it->first + it->second;
}

bool overlaps_mapping(std::uintptr_t p, std::size_t n) {
  auto& mappings = driver().mappings;
  auto it = mappings.lower_bound(p);
  if (it != mappings.end() && it->first < p + n) return true;
  return it != mappings.begin() && std::prev(it)->first + std::prev(it)->second.size > p;
}

// The whole mappings that make up [p, p + n) exactly, in order; none when a part of it is
// not mapped or a mapping reaches out of it.
std::vector<MappingIt> mappings_making_up(std::uintptr_t p, std::size_t n) {
  auto& mappings = driver().mappings;
  std::vector<MappingIt> out;
  std::uintptr_t next = p;
  for (auto it = mappings.find(p); it != mappings.end() && it->first == next && next < p + n; ++it) {
    out.push_back(it);
    next += it->second.size;
  }
  if (next != p + n) out.clear();
  return out;
}

}  // namespace

SIM_API CUresult cuMemGetAllocationGranularity(size_t* granularity, const CUmemAllocationProp* prop,
                                               CUmemAllocationGranularity_flags option) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!granularity || !prop || !device_location(prop->location)) return CUDA_ERROR_INVALID_VALUE;
  if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!valid_device(prop->location.id)) return CUDA_ERROR_INVALID_DEVICE;
  *granularity = kGranularity;
  return CUDA_SUCCESS;
}

// The address hint is only a hint: the sim takes what the system gives, aligned to the
// granularity (or to `alignment`, when larger).
SIM_API CUresult cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr, unsigned long long flags) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (!ptr || size == 0 || size % page != 0 || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (alignment != 0 && !std::has_single_bit(alignment)) return CUDA_ERROR_INVALID_VALUE;
  const std::size_t align = std::max(alignment, kGranularity);
  // More than needed, then the ends cut off: what is left starts aligned.
  void* raw = inaccessible(nullptr, size + align, 0);
  if (raw == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t base = round_up(start, align);
  if (base > start) munmap(raw, base - start);
  munmap(at(base + size), start + align - base);
  std::lock_guard lock(driver().mutex);
  driver().reservations[base] = size;
  *ptr = base;
  return CUDA_SUCCESS;
}

// The driver documents no case for a reservation still mapped: the sim refuses it.
SIM_API CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  std::lock_guard lock(driver().mutex);
  auto it = driver().reservations.find(ptr);
  if (it == driver().reservations.end() || it->second != size || overlaps_mapping(ptr, size)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  munmap(at(ptr), size);
  driver().reservations.erase(it);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop,
                             unsigned long long flags) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!handle || !prop || flags != 0 || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
  // The sim makes device memory only, shared by file descriptor only.
  if (!device_location(prop->location)) return CUDA_ERROR_NOT_SUPPORTED;
  if ((prop->requestedHandleTypes & ~CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) != 0) return CUDA_ERROR_NOT_SUPPORTED;
  if (!valid_device(prop->location.id)) return CUDA_ERROR_INVALID_DEVICE;
  if (size == 0 || size % kGranularity != 0) return CUDA_ERROR_INVALID_VALUE;
  const std::string name = std::string(kMemoryFilePrefix) + std::to_string(prop->location.id);
  const int fd = memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    close(fd);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  const bool exportable = prop->requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  std::lock_guard lock(driver().mutex);
  *handle = reinterpret_cast<std::uintptr_t>(add_physical(fd, size, prop->location.id, exportable));
  return CUDA_SUCCESS;
}

// A new file descriptor of the memory file, the caller's to pass on and close.
SIM_API CUresult cuMemExportToShareableHandle(void* shareable, CUmemGenericAllocationHandle handle,
                                              CUmemAllocationHandleType type, unsigned long long flags) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!shareable || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  std::lock_guard lock(driver().mutex);
  const PhysicalMemory* m = physical_of(handle);
  // Only as what was asked for when it was made.
  if (!m || !m->exportable) return CUDA_ERROR_INVALID_VALUE;
  const int fd = fcntl(m->fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  *static_cast<int*>(shareable) = fd;
  return CUDA_SUCCESS;
}

// `os_handle` is the file descriptor itself (cast to a pointer), which stays the caller's.
SIM_API CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle* handle, void* os_handle,
                                                CUmemAllocationHandleType type) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!handle) return CUDA_ERROR_INVALID_VALUE;
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  const int shared = static_cast<int>(reinterpret_cast<std::intptr_t>(os_handle));
  const int device = device_of_memory_file(shared);
  struct stat st {};
  if (device < 0 || fstat(shared, &st) != 0) return CUDA_ERROR_INVALID_VALUE;
  const int fd = fcntl(shared, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard lock(driver().mutex);
  *handle = reinterpret_cast<std::uintptr_t>(add_physical(fd, static_cast<std::size_t>(st.st_size), device, true));
  return CUDA_SUCCESS;
}

// Mapped, the memory stays until unmapped, as the driver does it.
SIM_API CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  std::lock_guard lock(driver().mutex);
  PhysicalMemory* m = physical_of(handle);
  if (!m) return CUDA_ERROR_INVALID_VALUE;
  m->released = true;
  close(m->fd);  // its mappings keep the memory
  forget_if_unused(m);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                          unsigned long long flags) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  // The offset must be 0 on today's driver.
  if (flags != 0 || offset != 0 || size == 0 || size % kGranularity != 0 || ptr % kGranularity != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  std::lock_guard lock(driver().mutex);
  PhysicalMemory* m = physical_of(handle);
  if (!m || size > m->size || !inside_reservation(ptr, size) || overlaps_mapping(ptr, size)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (mmap(at(ptr), size, PROT_NONE, MAP_SHARED | MAP_FIXED, m->fd, 0) == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  driver().mappings[ptr] = {size, m};
  ++m->mappings;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  std::lock_guard lock(driver().mutex);
  const auto parts = mappings_making_up(ptr, size);
  if (parts.empty()) return CUDA_ERROR_INVALID_VALUE;
  for (MappingIt it : parts) {
    const auto [base, mapping] = *it;
    inaccessible(at(base), mapping.size, MAP_FIXED);  // back to reserved
    driver().allocations.erase(base);
    --mapping.memory->mappings;
    forget_if_unused(mapping.memory);
    driver().mappings.erase(it);
  }
  return CUDA_SUCCESS;
}

// Every simulated device shares the process's address space: a range is as accessible as
// the most any device is given.
SIM_API CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!desc || count == 0) return CUDA_ERROR_INVALID_VALUE;
  int protection = PROT_NONE;
  for (size_t i = 0; i < count; ++i) {
    if (!device_location(desc[i].location)) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(desc[i].location.id)) return CUDA_ERROR_INVALID_DEVICE;
    switch (desc[i].flags) {
      case CU_MEM_ACCESS_FLAGS_PROT_NONE: break;
      case CU_MEM_ACCESS_FLAGS_PROT_READ: protection |= PROT_READ; break;
      case CU_MEM_ACCESS_FLAGS_PROT_READWRITE: protection |= PROT_READ | PROT_WRITE; break;
      default: return CUDA_ERROR_INVALID_VALUE;
    }
  }
  Context* c = current_context();
  std::lock_guard lock(driver().mutex);
  const auto parts = mappings_making_up(ptr, size);
  if (parts.empty()) return CUDA_ERROR_INVALID_VALUE;
  for (MappingIt it : parts) {
    const auto& [base, mapping] = *it;
    mprotect(at(base), mapping.size, protection);
    if (protection == PROT_NONE) {
      driver().allocations.erase(base);
    } else {
      driver().allocations[base] = {base, mapping.size, MemoryKind::device, c, mapping.memory->device, Origin::mapping};
    }
  }
  return CUDA_SUCCESS;
}
