// An application that allocates and frees memory in every way the driver offers,
// reaching the driver in one chosen way, for the end-to-end tests of memory tracing.
//
//   memory_client <reach> <scenario>
//   reach:    linked | dlsym | procaddress | procaddress-ptds
//   scenario: peak | unknown-free | arrays
//
// Like driver_client: `linked` (the memory_client_linked build) takes the addresses of
// the symbols it links against, `dlsym` looks them up on a libcuda handle, and the
// procaddress paths ask cuGetProcAddress_v2 for every function, procaddress-ptds with
// CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM (the calls that take a stream then get
// their _ptsz variants). Each allocation prints `alloc <label> <api> 0x<address> <bytes>`
// (an array's or physical memory's handle as its address), each free `free <label> <api>
// 0x<address>`; the last line is PASS or FAIL.
#include <dlfcn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include <cuda.h>
#include <cudaTypedefs.h>

#undef cuGetProcAddress

namespace {

// Every driver function the client calls: its member, exported symbol (linked and dlsym),
// its name and version for cuGetProcAddress (which name its PFN_ type too).
#define MEMORY_CLIENT_DRIVER(X)                                                         \
  X(get_error_name, cuGetErrorName, cuGetErrorName, 6000)                               \
  X(init, cuInit, cuInit, 2000)                                                         \
  X(device_get, cuDeviceGet, cuDeviceGet, 2000)                                         \
  X(primary_retain, cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, 7000)           \
  X(ctx_set_current, cuCtxSetCurrent, cuCtxSetCurrent, 4000)                            \
  X(ctx_synchronize, cuCtxSynchronize, cuCtxSynchronize, 2000)                          \
  X(stream_create, cuStreamCreate, cuStreamCreate, 2000)                                \
  X(stream_synchronize, cuStreamSynchronize, cuStreamSynchronize, 2000)                 \
  X(mem_alloc, cuMemAlloc_v2, cuMemAlloc, 3020)                                         \
  X(mem_alloc_pitch, cuMemAllocPitch_v2, cuMemAllocPitch, 3020)                         \
  X(mem_free, cuMemFree_v2, cuMemFree, 3020)                                            \
  X(mem_alloc_host, cuMemAllocHost_v2, cuMemAllocHost, 3020)                            \
  X(mem_host_alloc, cuMemHostAlloc, cuMemHostAlloc, 2020)                               \
  X(mem_free_host, cuMemFreeHost, cuMemFreeHost, 2000)                                  \
  X(mem_host_register, cuMemHostRegister_v2, cuMemHostRegister, 6050)                   \
  X(mem_host_unregister, cuMemHostUnregister, cuMemHostUnregister, 4000)                \
  X(mem_alloc_managed, cuMemAllocManaged, cuMemAllocManaged, 6000)                      \
  X(array_create, cuArrayCreate_v2, cuArrayCreate, 3020)                                \
  X(array_destroy, cuArrayDestroy, cuArrayDestroy, 2000)                                \
  X(array_3d_create, cuArray3DCreate_v2, cuArray3DCreate, 3020)                         \
  X(mipmapped_array_create, cuMipmappedArrayCreate, cuMipmappedArrayCreate, 5000)       \
  X(mipmapped_array_destroy, cuMipmappedArrayDestroy, cuMipmappedArrayDestroy, 5000)    \
  X(mem_alloc_async, cuMemAllocAsync, cuMemAllocAsync, 11020)                           \
  X(mem_alloc_from_pool_async, cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync, 11020) \
  X(mem_free_async, cuMemFreeAsync, cuMemFreeAsync, 11020)                              \
  X(default_mem_pool, cuDeviceGetDefaultMemPool, cuDeviceGetDefaultMemPool, 11020)      \
  X(mem_pool_create, cuMemPoolCreate, cuMemPoolCreate, 11020)                           \
  X(mem_pool_destroy, cuMemPoolDestroy, cuMemPoolDestroy, 11020)                        \
  X(pointer_get_attribute, cuPointerGetAttribute, cuPointerGetAttribute, 4000)          \
  X(granularity, cuMemGetAllocationGranularity, cuMemGetAllocationGranularity, 10020)   \
  X(address_reserve, cuMemAddressReserve, cuMemAddressReserve, 10020)                   \
  X(address_free, cuMemAddressFree, cuMemAddressFree, 10020)                            \
  X(mem_create, cuMemCreate, cuMemCreate, 10020)                                        \
  X(mem_release, cuMemRelease, cuMemRelease, 10020)                                     \
  X(mem_map, cuMemMap, cuMemMap, 10020)                                                 \
  X(mem_unmap, cuMemUnmap, cuMemUnmap, 10020)                                           \
  X(mem_set_access, cuMemSetAccess, cuMemSetAccess, 10020)                              \
  X(mem_export, cuMemExportToShareableHandle, cuMemExportToShareableHandle, 10020)      \
  X(mem_import, cuMemImportFromShareableHandle, cuMemImportFromShareableHandle, 10020)  \
  X(memset_d8, cuMemsetD8_v2, cuMemsetD8, 3020)                                         \
  X(memcpy_dtoh, cuMemcpyDtoH_v2, cuMemcpyDtoH, 3020)                                   \
  X(mem_get_info, cuMemGetInfo_v2, cuMemGetInfo, 3020)                                  \
  X(graph_create, cuGraphCreate, cuGraphCreate, 10000)                                  \
  X(graph_add_mem_alloc_node, cuGraphAddMemAllocNode, cuGraphAddMemAllocNode, 11040)    \
  X(graph_add_mem_free_node, cuGraphAddMemFreeNode, cuGraphAddMemFreeNode, 11040)       \
  X(graph_instantiate, cuGraphInstantiateWithFlags, cuGraphInstantiateWithFlags, 11040) \
  X(graph_launch, cuGraphLaunch, cuGraphLaunch, 10000)                                  \
  X(graph_exec_destroy, cuGraphExecDestroy, cuGraphExecDestroy, 10000)                  \
  X(graph_destroy, cuGraphDestroy, cuGraphDestroy, 10000)

struct Driver {
#define MEMORY_CLIENT_MEMBER(member, symbol, base, version) PFN_##base##_v##version member = nullptr;
  MEMORY_CLIENT_DRIVER(MEMORY_CLIENT_MEMBER)
#undef MEMORY_CLIENT_MEMBER
};

struct Lookup {
  void** slot;
  void* linked;          // the linked symbol's address (memory_client_linked only)
  const char* exported;  // exact symbol (linked, dlsym)
  const char* base;      // cuGetProcAddress name
  int version;
};

#ifdef CLIENT_LINKED
#define MEMORY_CLIENT_LINKED_ADDRESS(symbol) reinterpret_cast<void*>(&symbol)
#else
#define MEMORY_CLIENT_LINKED_ADDRESS(symbol) nullptr
#endif

Driver g;
bool g_per_thread = false;  // procaddress-ptds: the stream calls are their _ptsz variants

const Lookup kLookups[] = {
#define MEMORY_CLIENT_LOOKUP(member, symbol, base, version) \
  {reinterpret_cast<void**>(&g.member), MEMORY_CLIENT_LINKED_ADDRESS(symbol), #symbol, #base, version},
    MEMORY_CLIENT_DRIVER(MEMORY_CLIENT_LOOKUP)
#undef MEMORY_CLIENT_LOOKUP
};

[[noreturn]] void fail(const std::string& what) {
  std::printf("FAIL: %s\n", what.c_str());
  std::fflush(stdout);
  std::_Exit(1);
}

void* open_driver() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) fail(std::string("dlopen libcuda.so.1: ") + dlerror());
  return h;
}

void resolve(std::string_view reach) {
  if (reach == "linked") {
#ifndef CLIENT_LINKED
    fail("this build does not link the driver; use memory_client_linked");
#endif
    for (const Lookup& l : kLookups) *l.slot = l.linked;
  } else if (reach == "dlsym") {
    void* h = open_driver();
    for (const Lookup& l : kLookups) *l.slot = dlsym(h, l.exported);
  } else if (reach == "procaddress" || reach == "procaddress-ptds") {
    auto gpa = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(open_driver(), "cuGetProcAddress_v2"));
    if (!gpa) fail("dlsym cuGetProcAddress_v2");
    g_per_thread = reach == "procaddress-ptds";
    for (const Lookup& l : kLookups) {
      CUdriverProcAddressQueryResult status{};
      // Per-thread variants appeared in CUDA 7.0: asked for at an older version, the
      // driver rightly gives the legacy one.
      const int version = g_per_thread && l.version < 7000 ? 7000 : l.version;
      const cuuint64_t flags = g_per_thread ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0;
      if (gpa(l.base, l.slot, version, flags, &status) != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS) {
        *l.slot = nullptr;
      }
    }
  } else {
    fail("unknown reach path");
  }
  for (const Lookup& l : kLookups) {
    if (!*l.slot) fail(std::string("no entry point for ") + l.exported);
  }
}

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = "?";
  g.get_error_name(r, &name);
  fail(std::string(what) + " returned " + (name ? name : "?"));
}

// The name of the stream-ordered call the program made, as it reached it.
std::string stream_api(const char* name) { return std::string(name) + (g_per_thread ? "_ptsz" : ""); }

template <typename Address>
std::uint64_t address_of(Address a) {
  if constexpr (std::is_pointer_v<Address>) {
    return reinterpret_cast<std::uintptr_t>(a);
  } else {
    return a;
  }
}

template <typename Address>
void allocated(const char* label, const std::string& api, Address address, std::uint64_t bytes) {
  std::printf("alloc %s %s 0x%llx %llu\n", label, api.c_str(), static_cast<unsigned long long>(address_of(address)),
              static_cast<unsigned long long>(bytes));
}

template <typename Address>
void freed(const char* label, const std::string& api, Address address) {
  std::printf("free %s %s 0x%llx\n", label, api.c_str(), static_cast<unsigned long long>(address_of(address)));
}

constexpr std::size_t KiB = std::size_t{1} << 10;
constexpr std::size_t MiB = std::size_t{1} << 20;

CUmemoryPool pool_of(CUdeviceptr p) {
  CUmemoryPool pool = nullptr;
  check(g.pointer_get_attribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p), "cuPointerGetAttribute");
  return pool;
}

CUmemLocation device_zero() {
  CUmemLocation l{};
  l.type = CU_MEM_LOCATION_TYPE_DEVICE;
  l.id = 0;
  return l;
}

void open_primary_context() {
  check(g.init(0), "cuInit");
  CUdevice dev = 0;
  check(g.device_get(&dev, 0), "cuDeviceGet");
  CUcontext ctx = nullptr;
  check(g.primary_retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(g.ctx_set_current(ctx), "cuCtxSetCurrent");
}

// The peak of device 0 is right after d3's allocation; meminfo is read there. Device-
// resident then: d1, d2, a1, the two pools' reservations (2 MiB each: p1's 2 MiB in the
// default pool, p2's 512 KiB in the created one), the 2 MiB of physical memory and d3.
void scenario_peak() {
  open_primary_context();
  const CUdevice dev = 0;
  CUstream s = nullptr;
  check(g.stream_create(&s, 0), "cuStreamCreate");

  CUdeviceptr d1 = 0;  // never freed
  check(g.mem_alloc(&d1, 1 * MiB), "cuMemAlloc d1");
  allocated("d1", "cuMemAlloc_v2", d1, 1 * MiB);

  CUdeviceptr d2 = 0;
  std::size_t pitch = 0;
  check(g.mem_alloc_pitch(&d2, &pitch, 1000, 64, 4), "cuMemAllocPitch d2");
  if (pitch != 1024) fail("pitch " + std::to_string(pitch) + ", not 1024");
  allocated("d2", "cuMemAllocPitch_v2", d2, pitch * 64);

  void* h1 = nullptr;
  check(g.mem_alloc_host(&h1, 64 * KiB), "cuMemAllocHost h1");
  allocated("h1", "cuMemAllocHost_v2", h1, 64 * KiB);
  void* h2 = nullptr;
  check(g.mem_host_alloc(&h2, 32 * KiB, 0), "cuMemHostAlloc h2");
  allocated("h2", "cuMemHostAlloc", h2, 32 * KiB);
  void* r1 = std::aligned_alloc(4 * KiB, 16 * KiB);
  check(g.mem_host_register(r1, 16 * KiB, 0), "cuMemHostRegister r1");
  allocated("r1", "cuMemHostRegister_v2", r1, 16 * KiB);
  CUdeviceptr m1 = 0;
  check(g.mem_alloc_managed(&m1, 256 * KiB, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged m1");
  allocated("m1", "cuMemAllocManaged", m1, 256 * KiB);

  CUDA_ARRAY_DESCRIPTOR array_desc{};
  array_desc.Width = 256;
  array_desc.Height = 256;
  array_desc.Format = CU_AD_FORMAT_FLOAT;
  array_desc.NumChannels = 1;
  CUarray a1 = nullptr;
  check(g.array_create(&a1, &array_desc), "cuArrayCreate a1");
  allocated("a1", "cuArrayCreate_v2", a1, 256 * 256 * 4);

  CUdeviceptr p1 = 0;
  check(g.mem_alloc_async(&p1, 2 * MiB, s), "cuMemAllocAsync p1");
  allocated("p1", stream_api("cuMemAllocAsync"), p1, 2 * MiB);
  CUmemoryPool default_pool = nullptr;
  check(g.default_mem_pool(&default_pool, dev), "cuDeviceGetDefaultMemPool");
  if (pool_of(p1) != default_pool) fail("p1 is not from the default pool");

  CUmemPoolProps pool_props{};
  pool_props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  pool_props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  pool_props.location = device_zero();
  CUmemoryPool pool = nullptr;
  check(g.mem_pool_create(&pool, &pool_props), "cuMemPoolCreate");
  CUdeviceptr p2 = 0;
  check(g.mem_alloc_from_pool_async(&p2, 512 * KiB, pool, s), "cuMemAllocFromPoolAsync p2");
  allocated("p2", stream_api("cuMemAllocFromPoolAsync"), p2, 512 * KiB);
  if (pool_of(p2) != pool) fail("p2 is not from its pool");

  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = device_zero();
  std::size_t granularity = 0;
  check(g.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity");
  if (granularity == 0 || 2 * MiB % granularity != 0) fail("granularity " + std::to_string(granularity));
  CUdeviceptr va = 0;
  check(g.address_reserve(&va, 2 * MiB, 0, 0, 0), "cuMemAddressReserve");
  CUmemGenericAllocationHandle handle = 0;
  check(g.mem_create(&handle, 2 * MiB, &prop, 0), "cuMemCreate");
  allocated("handle", "cuMemCreate", handle, 2 * MiB);
  check(g.mem_map(va, 2 * MiB, 0, handle, 0), "cuMemMap");
  allocated("va", "cuMemMap", va, 2 * MiB);
  CUmemAccessDesc access{};
  access.location = device_zero();
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  check(g.mem_set_access(va, 2 * MiB, &access, 1), "cuMemSetAccess");
  // The mapping is memory the device reaches.
  check(g.memset_d8(va, 0x5a, 2 * MiB), "cuMemsetD8 va");
  unsigned char last = 0;
  check(g.memcpy_dtoh(&last, va + 2 * MiB - 1, 1), "cuMemcpyDtoH va");
  if (last != 0x5a) fail("the mapping does not hold what was set");

  CUdeviceptr d3 = 0;
  check(g.mem_alloc(&d3, 4 * MiB), "cuMemAlloc d3");
  allocated("d3", "cuMemAlloc_v2", d3, 4 * MiB);
  std::size_t free_bytes = 0, total = 0;
  check(g.mem_get_info(&free_bytes, &total), "cuMemGetInfo");
  std::printf("meminfo %zu %zu\n", free_bytes, total);

  check(g.mem_free(d3), "cuMemFree d3");
  freed("d3", "cuMemFree_v2", d3);
  check(g.mem_free_async(p1, s), "cuMemFreeAsync p1");
  freed("p1", stream_api("cuMemFreeAsync"), p1);
  check(g.mem_free_async(p2, s), "cuMemFreeAsync p2");
  freed("p2", stream_api("cuMemFreeAsync"), p2);
  check(g.stream_synchronize(s), "cuStreamSynchronize");

  check(g.mem_unmap(va, 2 * MiB), "cuMemUnmap");
  freed("va", "cuMemUnmap", va);
  check(g.mem_release(handle), "cuMemRelease");
  freed("handle", "cuMemRelease", handle);
  check(g.address_free(va, 2 * MiB), "cuMemAddressFree");
  check(g.mem_pool_destroy(pool), "cuMemPoolDestroy");

  check(g.array_destroy(a1), "cuArrayDestroy a1");
  freed("a1", "cuArrayDestroy", a1);
  check(g.mem_free(d2), "cuMemFree d2");
  freed("d2", "cuMemFree_v2", d2);
  check(g.mem_free(m1), "cuMemFree m1");
  freed("m1", "cuMemFree_v2", m1);
  check(g.mem_free_host(h1), "cuMemFreeHost h1");
  freed("h1", "cuMemFreeHost", h1);
  check(g.mem_free_host(h2), "cuMemFreeHost h2");
  freed("h2", "cuMemFreeHost", h2);
  check(g.mem_host_unregister(r1), "cuMemHostUnregister r1");
  freed("r1", "cuMemHostUnregister", r1);
  std::free(r1);

  CUgraph graph = nullptr;
  check(g.graph_create(&graph, 0), "cuGraphCreate");
  CUDA_MEM_ALLOC_NODE_PARAMS node_params{};
  node_params.poolProps = pool_props;
  node_params.bytesize = 1 * MiB;
  CUgraphNode alloc_node = nullptr;
  check(g.graph_add_mem_alloc_node(&alloc_node, graph, nullptr, 0, &node_params), "cuGraphAddMemAllocNode");
  allocated("g1", "cuGraphAddMemAllocNode", node_params.dptr, 1 * MiB);
  CUgraphNode free_node = nullptr;
  check(g.graph_add_mem_free_node(&free_node, graph, &alloc_node, 1, node_params.dptr), "cuGraphAddMemFreeNode");
  freed("g1", "cuGraphAddMemFreeNode", node_params.dptr);
  CUgraphExec exec = nullptr;
  check(g.graph_instantiate(&exec, graph, 0), "cuGraphInstantiateWithFlags");
  check(g.graph_launch(exec, s), "cuGraphLaunch");
  check(g.stream_synchronize(s), "cuStreamSynchronize");
  check(g.graph_exec_destroy(exec), "cuGraphExecDestroy");
  check(g.graph_destroy(graph), "cuGraphDestroy");

  CUDA_ARRAY3D_DESCRIPTOR mipmap_desc{};
  mipmap_desc.Width = 64;
  mipmap_desc.Height = 64;
  mipmap_desc.Format = CU_AD_FORMAT_FLOAT;
  mipmap_desc.NumChannels = 1;
  CUmipmappedArray mm1 = nullptr;
  check(g.mipmapped_array_create(&mm1, &mipmap_desc, 1), "cuMipmappedArrayCreate");
  allocated("mm1", "cuMipmappedArrayCreate", mm1, 64 * 64 * 4);
  check(g.mipmapped_array_destroy(mm1), "cuMipmappedArrayDestroy");
  freed("mm1", "cuMipmappedArrayDestroy", mm1);

  check(g.ctx_synchronize(), "cuCtxSynchronize");
}

// Physical memory passes between processes as a file descriptor, over a Unix socket.
void send_fd(int socket, int fd) {
  char byte = 0;
  iovec data{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&message);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  if (sendmsg(socket, &message, 0) != 1) fail("sendmsg");
}

int receive_fd(int socket) {
  char byte = 0;
  iovec data{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  if (recvmsg(socket, &message, 0) != 1) fail("recvmsg");
  const cmsghdr* c = CMSG_FIRSTHDR(&message);
  if (!c || c->cmsg_type != SCM_RIGHTS) fail("no file descriptor received");
  int fd = -1;
  std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
  return fd;
}

constexpr unsigned char kExportedByte = 0x3c;

// The other program of unknown-free (run as `memory_client <reach> export-to <socket>`):
// 2 MiB of device 0's physical memory, filled with kExportedByte, sent on `socket` as a
// file descriptor; its own handle released before it exits.
void scenario_export_to(int socket) {
  open_primary_context();
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location = device_zero();
  CUmemGenericAllocationHandle handle = 0;
  check(g.mem_create(&handle, 2 * MiB, &prop, 0), "cuMemCreate");
  CUdeviceptr va = 0;
  check(g.address_reserve(&va, 2 * MiB, 0, 0, 0), "cuMemAddressReserve");
  check(g.mem_map(va, 2 * MiB, 0, handle, 0), "cuMemMap");
  CUmemAccessDesc access{};
  access.location = device_zero();
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  check(g.mem_set_access(va, 2 * MiB, &access, 1), "cuMemSetAccess");
  check(g.memset_d8(va, kExportedByte, 2 * MiB), "cuMemsetD8");
  check(g.mem_unmap(va, 2 * MiB), "cuMemUnmap");
  check(g.address_free(va, 2 * MiB), "cuMemAddressFree");
  int fd = -1;
  check(g.mem_export(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), "cuMemExportToShareableHandle");
  send_fd(socket, fd);
  close(fd);
  check(g.mem_release(handle), "cuMemRelease");
}

// A free of memory the profiler cannot have seen allocated: another program (this client
// run again, unprofiled like any program the user did not ask to profile) makes the
// physical memory and hands it over as a file descriptor. This one imports it (no
// allocation: the memory exists already; printed `import x1 <api> 0x<handle> <bytes>`),
// maps it, checks it holds what the other program wrote, unmaps it and releases it: a
// cuMemRelease of a handle no allocation call of this process returned.
void scenario_unknown_free(const char* reach) {
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) fail("socketpair");
  const pid_t child = fork();
  if (child == 0) {
    // The child's end must survive the exec.
    const int end = dup(sockets[1]);
    setenv("COMPUTE_PROFILE", "0", 1);
    execl("/proc/self/exe", "memory_client", reach, "export-to", std::to_string(end).c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(sockets[1]);
  const int fd = receive_fd(sockets[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail("the exporting program failed");

  open_primary_context();
  CUmemGenericAllocationHandle handle = 0;
  check(g.mem_import(&handle, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)),
                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
        "cuMemImportFromShareableHandle");
  close(fd);
  std::printf("import x1 cuMemImportFromShareableHandle 0x%llx %zu\n", static_cast<unsigned long long>(handle), 2 * MiB);
  CUdeviceptr va = 0;
  check(g.address_reserve(&va, 2 * MiB, 0, 0, 0), "cuMemAddressReserve");
  check(g.mem_map(va, 2 * MiB, 0, handle, 0), "cuMemMap");
  allocated("xva", "cuMemMap", va, 2 * MiB);
  CUmemAccessDesc access{};
  access.location = device_zero();
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  check(g.mem_set_access(va, 2 * MiB, &access, 1), "cuMemSetAccess");
  unsigned char first = 0;
  check(g.memcpy_dtoh(&first, va, 1), "cuMemcpyDtoH");
  if (first != kExportedByte) fail("the imported memory does not hold what the other program wrote");
  check(g.mem_unmap(va, 2 * MiB), "cuMemUnmap");
  freed("xva", "cuMemUnmap", va);
  check(g.address_free(va, 2 * MiB), "cuMemAddressFree");
  check(g.mem_release(handle), "cuMemRelease");
  freed("x1", "cuMemRelease", handle);
}

// Arrays of three dimensions: a 3D array of 64 x 32 x 8 two-channel floats (131072
// bytes), and one of 128 x 128 one-byte elements made with depth 0 (16384 bytes, a 2D
// array); the 3D one is destroyed, the other left (a leak).
void scenario_arrays() {
  open_primary_context();
  CUDA_ARRAY3D_DESCRIPTOR volume{};
  volume.Width = 64;
  volume.Height = 32;
  volume.Depth = 8;
  volume.Format = CU_AD_FORMAT_FLOAT;
  volume.NumChannels = 2;
  CUarray a3 = nullptr;
  check(g.array_3d_create(&a3, &volume), "cuArray3DCreate a3");
  allocated("a3", "cuArray3DCreate_v2", a3, 64 * 32 * 8 * 4 * 2);
  CUDA_ARRAY3D_DESCRIPTOR flat{};
  flat.Width = 128;
  flat.Height = 128;
  flat.Format = CU_AD_FORMAT_UNSIGNED_INT8;
  flat.NumChannels = 1;
  CUarray a2 = nullptr;
  check(g.array_3d_create(&a2, &flat), "cuArray3DCreate a2");
  allocated("a2", "cuArray3DCreate_v2", a2, 128 * 128);
  check(g.array_destroy(a3), "cuArrayDestroy a3");
  freed("a3", "cuArrayDestroy", a3);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <reach> <scenario>\n", argv[0]);
    return 2;
  }
  resolve(argv[1]);
  const std::string_view scenario = argv[2];
  // unknown-free's other program says nothing unless it fails.
  if (scenario == "export-to" && argc > 3) {
    scenario_export_to(std::atoi(argv[3]));
    return 0;
  }
  if (scenario == "peak") scenario_peak();
  else if (scenario == "unknown-free") scenario_unknown_free(argv[1]);
  else if (scenario == "arrays") scenario_arrays();
  else fail("unknown scenario");
  std::printf("PASS\n");
  // Like many programs: exit with d1 still allocated and the primary context retained.
  std::exit(0);
}
