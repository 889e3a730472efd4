#pragma once
// The simulated CUDA driver's state: devices, contexts, streams that execute
// operations on worker threads, events stamped when a stream reaches them, modules,
// kernels, memory. Test equipment (docs/design.md, "Without a GPU").
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <cuda.h>

namespace sim {

constexpr int kMaxDevices = 8;

std::uint64_t now_ns();

// The simulated GPU's clock. Each stream runs its operations on a worker thread, but
// device time is modelled rather than read off the worker: an operation starts at
// max(end of the stream's previous operation, when it was submitted), a kernel of
// known duration ends exactly that much later, and an event is stamped with the
// device time at which the stream reaches it. Elapsed times then do not depend on
// when the host scheduler happens to run the worker. These are only valid on a
// worker thread, inside an operation.
std::uint64_t device_now();
// The running operation occupies the device for `ns`; returns once the wall clock
// has reached its end, so nothing can observe completion before it happened.
void device_busy_for(std::uint64_t ns);
// The running operation waited for something outside its stream: its device time
// is at least `ns` (an event's stamp, or the wall clock after a host-side wait).
void device_at_least(std::uint64_t ns);
// The device spends `ns` before the running operation's own work; what the operation
// does afterwards counts as it would have.
void device_delay(std::uint64_t ns);

// What a real GPU spends between reaching a kernel launch in its stream and starting
// the kernel (fetching the launch, setting up the grid): an event pair around the
// launch measures it, CUPTI's kernel record does not. SIMCUDA_LAUNCH_LATENCY_NS sets
// it (nanoseconds); 5000 by default.
std::uint64_t kernel_launch_latency_ns();

struct Context;
struct Event;
struct Graph;

using Operation = std::function<void()>;

struct PendingOperation {
  Operation run;
  std::uint64_t submitted_ns;
};

// How many operations a stream holds not yet completed. A real driver's queue of
// pending work has a bound (about a thousand launches a stream): a launch beyond it
// waits in the driver until the GPU has caught up, so a host that outruns the GPU
// keeps a backlog of this size, not one that grows with the run. Here a launch that
// finds the queue full waits until the GPU has worked off half of it, so that a host
// which outruns the GPU wakes once per half a queue, not once per operation.
constexpr std::uint64_t kStreamDepth = 1024;

// A FIFO of operations executed in order by the stream's own worker thread.
struct Stream {
  Context* context = nullptr;
  std::uint64_t id = 0;
  bool legacy = false;    // the context's NULL stream
  bool blocking = true;   // synchronises with the legacy stream
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<PendingOperation> queue;
  std::uint64_t enqueued = 0;
  std::uint64_t completed = 0;
  // The device time at which each of the last kStreamDepth operations ended, by
  // completion number: work that waits for one of them starts then, not when this
  // stream's worker got round to looking (a loaded host wakes it milliseconds late).
  std::array<std::uint64_t, kStreamDepth> completion_ns{};
  bool stopping = false;
  // Launches waiting for the queue to hold half of kStreamDepth.
  std::condition_variable room;
  int room_waiters = 0;
  // Events recorded while the stream was idle: the device reaches them when the
  // stream starts its next operation, and they take that operation's start time (a
  // waiter who finds one still here settles it at its record time). So an event pair
  // around a kernel measures the kernel alone, however long the host took between
  // recording the event and launching: the test's known durations stay exact.
  std::vector<Event*> markers;
  // Stream capture.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  Graph* capture_graph = nullptr;

  void start();
  // Appends an operation (or, while capturing, appends it to the capture graph),
  // first waiting if the stream holds kStreamDepth. It runs once each stream in
  // `waits` completed its count of operations, and on the device from when the last of
  // those ended; the events recorded while this stream was idle are reached after
  // those waits.
  void enqueue(Operation op, std::vector<std::pair<Stream*, std::uint64_t>> waits = {});
  void synchronize();
  // Makes `ev` a marker when the stream is idle and not capturing; false otherwise.
  bool add_marker(Event* ev);
  bool idle();
  std::uint64_t enqueued_count();
  // Waits until `count` operations completed; returns the device time the count-th
  // ended (0 for none).
  std::uint64_t wait_for(std::uint64_t count);
};

struct Context {
  std::uint64_t id = 0;
  int device = 0;
  bool primary = false;
  CUfunc_cache cache_config = CU_FUNC_CACHE_PREFER_NONE;
  Stream* legacy = nullptr;
  std::mutex mutex;
  std::vector<Stream*> streams;  // created streams and per-thread streams
  std::map<std::thread::id, Stream*> per_thread;
};

struct Graph {
  std::vector<Operation> operations;
};
struct GraphExec {
  std::vector<Operation> operations;
};

struct Event {
  Context* context = nullptr;
  std::mutex mutex;
  std::condition_variable cv;
  bool recorded = false;
  bool done = false;
  bool captured = false;  // recorded into a capturing stream
  Stream* capture_stream = nullptr;
  std::uint64_t stamp_ns = 0;
  // While a marker of that stream (Stream::markers), with its record time.
  Stream* marker_stream = nullptr;
  std::uint64_t marker_recorded_ns = 0;
};

// A marker `ev` still waiting for its stream's next operation is stamped with its
// record time now (someone waits for it). Nothing when it is not a waiting marker.
void settle_marker(Event* ev);

// A kernel implementation runs on the worker thread over the whole grid.
struct LaunchGeometry {
  unsigned grid[3];
  unsigned block[3];
};
using KernelBody = void (*)(const LaunchGeometry&, const std::vector<std::vector<unsigned char>>& args);

struct KernelSpec {
  std::string name;
  int registers;
  int static_smem;
  std::vector<std::size_t> param_sizes;
  KernelBody body;  // null: does nothing
};
const KernelSpec& kernel_spec(const std::string& name);

struct Function {
  const KernelSpec* spec;
  Context* context;
  CUmodule module;
};
struct Module {
  Context* context;
  std::map<std::string, Function*> functions;
};
struct Kernel {
  const KernelSpec* spec;
  std::map<Context*, Function*> functions;
};
struct Library {
  std::map<std::string, Kernel*> kernels;
};

enum class MemoryKind { device, host, managed, registered };
// What made a device allocation: what may free it, and what cuMemGetInfo counts of it.
enum class Origin {
  allocation,  // cuMemAlloc, cuMemAllocPitch (and every kind but device)
  pool,        // stream-ordered: its pool's reserved bytes count instead
  graph,       // a graph's allocation node
  mapping,     // a range made accessible by cuMemSetAccess: its physical memory counts instead
};
struct MemoryPool;
struct GraphMemory;
struct Allocation {
  std::uintptr_t base;
  std::size_t size;
  MemoryKind kind;
  Context* context;  // null for a mapping or graph memory made without a current context
  int device;
  Origin origin = Origin::allocation;
  MemoryPool* pool = nullptr;            // Origin::pool
  GraphMemory* graph_memory = nullptr;   // Origin::graph
};
struct Array {
  CUDA_ARRAY3D_DESCRIPTOR desc;
  std::size_t element_size;
  int device;
  std::vector<unsigned char> data;
};
// Nothing reads a mipmapped array's levels in the sim: only their bytes are kept, for
// cuMemGetInfo.
struct MipmappedArray {
  std::size_t bytes;
  int device;
};

// The granularity of physical memory, pools' reservations and graph memory: 2 MiB, as
// on the GPUs the sim stands for.
constexpr std::size_t kGranularity = std::size_t{2} << 20;
constexpr std::size_t round_up(std::size_t n, std::size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// A stream-ordered memory pool (api_pools.cpp). Simplifications: cuMemAllocAsync and
// cuMemFreeAsync change a pool when they are called, not when their stream reaches them,
// and a pool keeps no freed memory: its reserved bytes are always its used bytes rounded
// up to kGranularity, whatever its release threshold.
struct MemoryPool {
  int device = 0;
  bool is_default = false;
  bool destroyed = false;  // its handle is gone; what was allocated from it lives on
  std::uint64_t used = 0;
  std::uint64_t used_high = 0;
  std::uint64_t reserved_high = 0;
  std::uint64_t release_threshold = 0;
  std::uint64_t reserved() const { return round_up(used, kGranularity); }
};

// Physical memory of cuMemCreate (api_virtual_memory.cpp): a memory file, mapped where
// cuMemMap puts it, shared with other processes as its file descriptor. It is gone once
// released and no longer mapped.
struct PhysicalMemory {
  int fd;
  std::size_t size;
  int device;
  bool exportable;  // asked for with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
  int mappings = 0;
  bool released = false;
};
struct Mapping {
  std::size_t size;
  PhysicalMemory* memory;
};

// The memory of a graph's allocation node (api_graph_memory.cpp): its address is the
// graph's for good; it is allocated (`live`) from the node's creation, or again when the
// node runs after a free, until a free node runs, cuMemFree or cuMemFreeAsync.
struct GraphMemory {
  std::uintptr_t base;
  std::size_t size;
  int device;
  Context* context;
  bool live = true;
  bool has_free_node = false;  // then only that node frees it
};
struct GraphNode;

// Everything, under one lock (the sim is test equipment: simple beats fast, but
// operations themselves run without it).
struct Driver {
  std::mutex mutex;
  // Read by every call without the lock (ready()): the real driver serializes no call
  // on one lock, and the cost the shim adds per call is measured against this one's.
  std::atomic<bool> initialised{false};
  std::atomic<bool> deinitialised{false};
  int device_count = 2;
  std::atomic<std::uint64_t> next_id{1};
  std::set<Context*> contexts;
  Context* primary[kMaxDevices] = {};
  int primary_refs[kMaxDevices] = {};
  std::set<Stream*> streams;
  std::set<Event*> events;
  std::set<Module*> modules;
  std::set<Function*> functions;
  std::set<Library*> libraries;
  std::set<Kernel*> kernels;
  std::set<Graph*> graphs;
  std::set<GraphExec*> graph_execs;
  std::map<std::uintptr_t, Allocation> allocations;
  std::set<Array*> arrays;
  std::set<MipmappedArray*> mipmapped_arrays;
  // Every pool made, destroyed ones too: their memory outlives their handles.
  std::set<MemoryPool*> pools;
  MemoryPool* default_pool[kMaxDevices] = {};  // made when first asked for
  MemoryPool* current_pool[kMaxDevices] = {};  // null: the default pool
  std::map<std::uintptr_t, std::size_t> reservations;  // base -> size
  std::map<std::uintptr_t, Mapping> mappings;          // base -> mapping
  std::set<PhysicalMemory*> physical;
  std::map<std::uintptr_t, GraphMemory> graph_memory;  // by address, never forgotten
  std::set<GraphNode*> graph_nodes;
  // Destroyed objects are kept, not freed: a stale handle or a worker still finishing
  // stays harmless memory (and leak checkers see it is still owned).
  std::vector<const void*> retired;
  // cuEventRecord calls, for tests that check who records events (SIMCUDA_EVENT_RECORDS_FILE).
  std::atomic<std::uint64_t> event_records{0};
  std::atomic<std::uint64_t> events_created{0};
};
Driver& driver();

// Entry checks: initialised, not torn down.
CUresult ready();
Context* current_context();
void set_current_context(Context* c);
void push_context(Context* c);
Context* pop_context();

Context* new_context(int device, bool primary);
void destroy_context(Context* c);
// Resolves a stream handle as a call sees it; null when invalid.
Stream* resolve_stream(CUstream handle, bool per_thread_variant);
// What the next operation of `s` waits for, as CUDA's legacy default stream orders
// work: on the legacy stream, everything submitted before to the context's blocking
// streams; on a blocking stream, everything submitted before to the legacy stream.
std::vector<std::pair<Stream*, std::uint64_t>> implicit_waits(Stream* s);

bool valid_device(CUdevice d);

// The allocation containing [p, p + n), or null.
const Allocation* find_allocation(std::uintptr_t p, std::size_t n = 1);
bool valid_array(CUarray a);

// Device memory's storage (device_memory.cpp): zeroed host memory, given back with
// std::free.
void* new_storage(std::size_t size);
// Forgets the device or managed allocation at `p` for cuMemFree and cuMemFreeAsync, with
// the driver's lock held; `storage` gets what to give back with std::free once nothing
// uses it (null for graph memory, whose address stays its graph's).
CUresult forget_device_allocation(std::uintptr_t p, void** storage);
// What cuMemGetInfo counts as used on `device`, with the driver's lock held.
std::uint64_t device_bytes_in_use(int device);

// Runs `op` on the stream; a synchronous call then waits for it.
CUresult submit(CUstream handle, bool per_thread, bool synchronous, Operation op);

}  // namespace sim
