// Writes run files for the report's tests and benchmark (docs/format.md, "Run file"),
// made with the shim's own encoder:
//   report_runs DIR            DIR/rank0.cprof, DIR/rank1.cprof (a straggler: its
//                              kernels run half as long again) and DIR/base.cprof (the
//                              kernels of a run before a regression), 200 iterations each
//   report_runs DIR LAUNCHES   DIR/scale.cprof: LAUNCHES kernel launches (a million:
//                              the report's size and speed, docs/performance.md)
// An iteration, on one thread in an NVTX range "iteration" with "compute" inside:
// a copy from pageable memory of 256 KiB and a 4 KiB copy on stream 7, a kernel
// "stencil" (occupancy 0.375) on stream 7 and "axpy" on stream 8 after it, never
// together, and a stream synchronization; device memory allocated at the start, one
// allocation of 1 MiB never freed.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "records/range_event.hpp"
#include "records/range_table.hpp"
#include "runfile/run_encoder.hpp"
#include "runfile/run_header.hpp"

namespace {

using computeprof::records::ApiCall;
using computeprof::records::ApiCallKind;
using computeprof::records::ContextInfo;
using computeprof::records::MemoryEvent;
using computeprof::records::MemoryOperation;
using computeprof::records::RangeEvent;
using computeprof::records::RangeEventKind;
using computeprof::records::Record;
using computeprof::records::RecordKind;

constexpr std::uint64_t kOrigin = 1'750'000'000'000'000'000ULL;

class RunWriter {
 public:
  RunWriter(const std::string& path, std::uint64_t pid, std::optional<std::uint64_t> rank)
      : out_(std::fopen(path.c_str(), "wb")), encoder_(ranges_, nullptr) {
    if (out_ == nullptr) {
      std::perror(path.c_str());
      std::exit(1);
    }
    computeprof::runfile::RunHeader header;
    header.pid = pid;
    header.program = "stencil_app";
    header.host = "node1";
    if (rank) header.rank = computeprof::config::DistributedRank{*rank, 2};
    put(computeprof::runfile::encode_header(header));
    context_.number = 1;
    context_.device_name = "Simulated GPU";
    context_.origin = {0, kOrigin};
    iteration_ = ranges_.intern_name("iteration");
    compute_ = ranges_.intern_name("compute");
  }
  ~RunWriter() {
    encoder_.end();
    flush();
    std::fclose(out_);
  }

  // One iteration of the loop described above, `kernel_ns` the stencil's time.
  void iteration(std::uint64_t kernel_ns) {
    const std::uint64_t begin = at_;
    copy(256 * 1024, 20'000, true);
    copy(4 * 1024, 2'000, false);
    const std::uint64_t compute_begin = at_;
    launch("_Z7stencilPfi", 7, kernel_ns, 0.375f);
    launch("_Z4axpyfPfS_", 8, kernel_ns / 4, 1.0f);
    range(compute_, compute_begin, at_);
    call("cuStreamSynchronize", ApiCallKind::stream_synchronize, 1'000);
    range(iteration_, begin, at_);
    if (encoder_.pending_bytes() > (1 << 20)) flush();
  }

  // A launch (its call is the record's), the kernel after the GPU's previous operation.
  void launch(std::string_view kernel, std::uint64_t stream, std::uint64_t ns, float occupancy) {
    Record r;
    r.kind = RecordKind::kernel;
    r.method = kernel;
    r.api = "cuLaunchKernel";
    r.stream_id = stream;
    r.correlation_id = ++correlation_;
    r.timestamp_ns = at_;
    r.cputime_ns = 3'000;
    r.gpu_start_ns = kOrigin + std::max(at_ + 3'000, gpu_free_);
    r.gputime_ns = ns;
    r.gpu_end_ns = r.gpu_start_ns + ns;
    r.occupancy = occupancy;
    r.thread_id = 100;
    gpu_free_ = r.gpu_end_ns - kOrigin;
    encoder_.operation(context_, r);
    at_ += 4'000;
  }

  // The thread works `ns` before its next call.
  void host_work(std::uint64_t ns) { at_ += ns; }

  void allocate(std::uint64_t address, std::uint64_t bytes, MemoryOperation operation) {
    MemoryEvent e;
    e.api = operation == MemoryOperation::allocation ? "cuMemAlloc_v2" : "cuMemFree_v2";
    e.start_ns = kOrigin + at_;
    e.wall_ns = e.start_ns + 5'000;
    e.sequence = ++sequence_;
    e.address = address;
    e.bytes = operation == MemoryOperation::allocation ? bytes : 0;
    e.correlation_id = ++correlation_;
    e.context_id = 1;
    e.thread_id = 100;
    e.operation = operation;
    encoder_.memory(e);
    at_ += 6'000;
  }

 private:
  void copy(std::uint64_t bytes, std::uint64_t ns, bool pageable) {
    Record r;
    r.kind = RecordKind::memcpy;
    r.method = "memcpyHtoDasync";
    r.api = "cuMemcpyHtoDAsync_v2";
    r.stream_id = 7;
    r.correlation_id = ++correlation_;
    r.timestamp_ns = at_;
    r.cputime_ns = pageable ? ns + 2'000 : 2'000;
    r.gpu_start_ns = kOrigin + std::max(at_ + 1'000, gpu_free_);
    r.gputime_ns = ns;
    r.gpu_end_ns = r.gpu_start_ns + ns;
    r.transfer_bytes = bytes;
    r.transfer_dir = computeprof::records::TransferDir::host_to_device;
    r.host_mem_type = pageable ? computeprof::records::HostMemType::pageable
                               : computeprof::records::HostMemType::page_locked;
    r.thread_id = 100;
    gpu_free_ = r.gpu_end_ns - kOrigin;
    encoder_.operation(context_, r);
    at_ += r.cputime_ns + 500;
  }
  void call(std::string_view name, ApiCallKind kind, std::uint64_t ns) {
    ApiCall c;
    c.name = name;
    c.kind = kind;
    c.correlation_id = ++correlation_;
    c.start_ns = kOrigin + at_;
    const std::uint64_t until = std::max(at_ + ns, gpu_free_ + 500);
    c.end_ns = kOrigin + until;
    c.thread_id = 100;
    c.context = 1;
    c.stream_id = 7;
    encoder_.api_call(c);
    at_ = until + 20'000;  // host work between iterations: the GPU idles
  }
  void range(computeprof::records::RangeNameId name, std::uint64_t begin, std::uint64_t end) {
    RangeEvent e;
    e.kind = RangeEventKind::push_pop;
    e.start_wall_ns = kOrigin + begin;
    e.end_wall_ns = kOrigin + end;
    e.name = name;
    e.thread_id = e.end_thread_id = 100;
    encoder_.range(e);
  }
  void put(std::string_view bytes) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), out_) != bytes.size()) {
      std::perror("write");
      std::exit(1);
    }
  }
  void flush() { put(encoder_.take_chunk()); }

  std::FILE* out_;
  computeprof::records::RangeTable ranges_;
  computeprof::runfile::RunEncoder encoder_;
  ContextInfo context_;
  computeprof::records::RangeNameId iteration_ = 0, compute_ = 0;
  std::uint64_t at_ = 10'000;  // ns after kOrigin: the host's clock
  std::uint64_t gpu_free_ = 0;  // when the GPU's last operation ends
  std::uint64_t correlation_ = 0;
  std::uint64_t sequence_ = 0;
};

void sample(const std::string& path, std::uint64_t pid, std::optional<std::uint64_t> rank, std::uint64_t kernel_ns) {
  RunWriter run(path, pid, rank);
  run.allocate(0x7000'0000'0000, 64 << 20, MemoryOperation::allocation);
  run.allocate(0x7000'1000'0000, 1 << 20, MemoryOperation::allocation);
  for (int i = 0; i < 200; ++i) run.iteration(kernel_ns);
  run.allocate(0x7000'0000'0000, 0, MemoryOperation::free);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: report_runs DIR [LAUNCHES]\n");
    return 2;
  }
  const std::string dir = argv[1];
  if (argc == 3) {
    const std::uint64_t launches = std::strtoull(argv[2], nullptr, 10);
    RunWriter run(dir + "/scale.cprof", 4242, std::nullopt);
    // Times that vary as measured ones do (a fixed sequence, so that the files are the
    // same each time): all alike, they would compress to nothing.
    std::uint64_t random = 88172645463325252ULL;
    for (std::uint64_t i = 0; i < launches; ++i) {
      random ^= random << 13;
      random ^= random >> 7;
      random ^= random << 17;
      run.launch(i % 2 ? "_Z4axpyfPfS_" : "_Z7stencilPfi", 7 + random % 4, 1'000 + random % 4'000, 0.5f);
      run.host_work(random % 3'000);
    }
    return 0;
  }
  sample(dir + "/rank0.cprof", 1001, 0, 40'000);
  sample(dir + "/rank1.cprof", 1002, 1, 60'000);
  sample(dir + "/base.cprof", 1000, 0, 30'000);
  return 0;
}
