// How many records per second the log writer formats on one core: key-value and CSV
// lines of a kernel and a copy record, for the default columns and for every column.
//
//   writer_throughput [--records N]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "config/profile_config.hpp"
#include "logfmt/columns.hpp"
#include "records/record.hpp"
#include "logfmt/record_writer.hpp"

using namespace computeprof;

namespace {

records::Record kernel() {
  records::Record r;
  r.kind = records::RecordKind::kernel;
  r.method = "_Z6vecAddPKfS0_Pfi";
  r.gpu_start_ns = 0x13e224f5a60f82e0;
  r.gpu_end_ns = 0x13e224f5a60fb0e0;
  r.timestamp_ns = 123'456'789;
  r.gputime_ns = 7'424;
  r.cputime_ns = 17'288;
  r.stream_id = 7;
  r.grid = {40, 1, 1};
  r.block = {256, 1, 1};
  r.registers = 16;
  r.occupancy = 0.75F;
  return r;
}

records::Record copy() {
  records::Record r;
  r.kind = records::RecordKind::memcpy;
  r.method = "memcpyHtoDasync";
  r.gputime_ns = 5'280;
  r.cputime_ns = 538'104;
  r.transfer_bytes = 40'960;
  r.transfer_dir = records::TransferDir::host_to_device;
  r.host_mem_type = records::HostMemType::pageable;
  return r;
}

// Records per second for one layout and format, over `n` records (kernels and copies),
// written in place into a buffer by one LineWriter, as the shim's log sink writes them
// (LogFile::room_for).
double rate(const logfmt::ColumnLayout& layout, config::LogFormat format, long n, std::size_t& bytes) {
  logfmt::LineWriter lines(layout, format);
  const records::Record records[] = {kernel(), copy()};
  constexpr std::size_t kBuffer = 1 << 20;
  std::vector<char> buffer(kBuffer);
  char* p = buffer.data();
  bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    const records::Record& r = records[i & 1];
    if (buffer.data() + kBuffer - p < static_cast<std::ptrdiff_t>(lines.bound(r))) {
      bytes += static_cast<std::size_t>(p - buffer.data());
      p = buffer.data();
    }
    p = lines.put(p, r);
  }
  bytes += static_cast<std::size_t>(p - buffer.data());
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  return static_cast<double>(n) / seconds.count();
}

}  // namespace

int main(int argc, char** argv) {
  long n = 2'000'000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--records") == 0 && i + 1 < argc) {
      n = std::atol(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--records N]\n", argv[0]);
      return 2;
    }
  }
  config::ProfileConfig all;
  for (std::size_t o = 0; o < config::kOptionCount; ++o) all.set(static_cast<config::Option>(o));
  const logfmt::ColumnLayout layouts[] = {logfmt::select_columns({}, config::Api::cuda),
                                          logfmt::select_columns(all, config::Api::cuda)};
  const char* names[] = {"default columns", "every column"};
  std::printf("%ld records per configuration, one core\n", n);
  for (int l = 0; l < 2; ++l) {
    for (auto format : {config::LogFormat::kvp, config::LogFormat::csv}) {
      std::size_t bytes = 0;
      const double r = rate(layouts[l], format, n, bytes);
      std::printf("  %-16s %-3s %8.2f M records/s  (%zu bytes)\n", names[l],
                  format == config::LogFormat::kvp ? "KVP" : "CSV", r / 1e6, bytes);
    }
  }
  return 0;
}
