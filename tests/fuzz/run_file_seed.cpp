// The seeds of run_file_fuzzer, written into the directory given: a finished run (two
// contexts, kernels with counters, copies, memory events, NVTX ranges, a call stack)
// and the same run killed in its second chunk.
#include <fstream>
#include <string>

#include "runfile/run_encoder.hpp"
#include "runfile/run_header.hpp"

using namespace computeprof;

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  runfile::RunHeader header;
  header.pid = 1234;
  header.host = "seed";
  header.command_line = {"./app", "1"};
  header.counters = {1, 2};
  records::RangeTable ranges;
  const auto name = ranges.intern_name("step");
  const auto domain = ranges.add_domain(ranges.intern_name("train"));
  const auto path = ranges.intern_path(0, domain, name);
  const std::vector<symbols::Frame> frames = {{"main", "/bin/app", 16, 0, "app.cpp", 3, false}};
  runfile::RunEncoder encoder(ranges, [&](std::uint32_t) -> const std::vector<symbols::Frame>& { return frames; });
  std::string file = runfile::encode_header(header);
  records::ContextInfo one{1, 0, "GPU", config::Api::cuda, {10, 1000}, {}};
  records::ContextInfo two{2, 1, "CPU", config::Api::opencl, {20, 2000}, {}};
  encoder.facts({true, 1000, 10});
  records::CounterValues counters;
  counters.values[1] = records::CounterValue::of(77);
  for (int i = 0; i < 40; ++i) {
    records::Record r;
    r.kind = i % 3 == 0 ? records::RecordKind::memcpy : records::RecordKind::kernel;
    r.method = i % 3 == 0 ? "memcpyHtoD" : "_Z4spinv";
    r.api = "cuLaunchKernel";
    r.timestamp_ns = 100u * i;
    r.gpu_start_ns = 1000u + 90u * i;
    r.gpu_end_ns = r.gpu_start_ns + 50;
    r.gputime_ns = 50;
    r.correlation_id = i;
    r.range_path = i % 2 ? path : 0;
    r.stack_id = i % 5 == 0 ? 1 : 0;
    r.occupancy = 0.5f;
    if (i % 7 == 0) {
      r.counter_state = records::CounterState::measured;
      r.counters = &counters;
    }
    encoder.operation(i % 4 ? one : two, r);
    if (i == 20) {
      records::MemoryEvent e;
      e.api = "cuMemAlloc_v2";
      e.address = 4096;
      e.bytes = 64;
      e.stack_id = 1;
      encoder.memory(e);
      records::RangeEvent range;
      range.kind = records::RangeEventKind::push_pop;
      range.name = name;
      range.domain = domain;
      range.path = path;
      encoder.range(range);
      file += encoder.take_chunk();
    }
  }
  encoder.end();
  file += encoder.take_chunk();
  std::ofstream(dir + "/finished.cprof", std::ios::binary) << file;
  std::ofstream(dir + "/killed.cprof", std::ios::binary) << file.substr(0, file.size() - 40);
  return 0;
}
