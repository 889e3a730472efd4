// What making the exports from a run file costs (docs/format.md, "Run file"): a run file
// of N near-empty kernel launches, as the shim writes it, converted into each export on
// this thread: CPU ns a launch (the median of the rounds), JSON events a second, and the
// databases against bench/sqlite_floor (SQLite's own cost for an operation's rows, run
// here as a child with the same operations and rounds), with the run file's bytes a
// launch and the cost of reading it alone.
//
//   run_conversion [--operations N] [--rounds R] [--only FORMAT]
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "exports/run_conversion.hpp"
#include "logfmt/log_file.hpp"
#include "runfile/run_encoder.hpp"
#include "runfile/run_header.hpp"

using namespace computeprof;

namespace {

double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// As the shim writes a loop of launches of one kernel on one stream: a chunk per
// 4,096 records (the writer's batches).
std::string run_file_of(long launches, const records::RangeTable& ranges) {
  runfile::RunHeader header;
  header.pid = 4242;
  header.program = "vector_add";
  header.host = "bench";
  header.wall_ns = 1'700'000'000'000'000'000ULL;
  std::string file = runfile::encode_header(header);
  runfile::RunEncoder encoder(ranges, nullptr);
  records::ContextInfo context;
  context.number = 1;
  context.device_name = "NVIDIA H200";
  context.origin = {1'000, header.wall_ns};
  encoder.facts({true, header.wall_ns, 1'000});
  static const char kName[] = "_Z6vecAddPKfS0_Pfi";
  records::Record r;
  r.method = kName;
  r.method_is_plain = true;
  r.api = "cuLaunchKernel";
  r.grid = {4096, 1, 1};
  r.block = {256, 1, 1};
  r.registers = 16;
  r.stream_id = 7;
  r.thread_id = 31337;
  r.occupancy = 1.0f;
  for (long i = 0; i < launches; ++i) {
    const auto n = static_cast<std::uint64_t>(i);
    r.timestamp_ns = 10'000 + n * 2'000 + n % 13;
    r.gpu_start_ns = header.wall_ns + 20'000 + n * 1'900 + n % 7;
    r.gpu_end_ns = r.gpu_start_ns + 1'500 + n % 5;
    r.gputime_ns = r.gpu_end_ns - r.gpu_start_ns;
    r.cputime_ns = 1'800 + n % 11;
    r.correlation_id = n + 1;
    encoder.operation(context, r);
    if ((i + 1) % 4096 == 0) file += encoder.take_chunk();
  }
  encoder.end();
  file += encoder.take_chunk();
  return file;
}

class DirectoryFiles final : public exports::OutputFiles {
 public:
  explicit DirectoryFiles(std::string stem) : stem_(std::move(stem)) {}
  bool open(logfmt::LogFile& file, std::string_view extension) override {
    return static_cast<bool>(file.open(stem_ + std::string(extension)));
  }

 private:
  std::string stem_;
};

struct NoVisitor final : runfile::RunVisitor {
  std::uint64_t sum = 0;
  void operation(const records::ContextInfo&, const records::Record& r) override { sum += r.correlation_id; }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string read_all(const std::string& path) {
  std::string text;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    char buffer[1 << 16];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
    std::fclose(f);
  }
  return text;
}

std::size_t count_of(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// bench/sqlite_floor's median CPU ns an operation, run beside this program; 0 if it
// cannot be run.
double sqlite_floor_ns(const std::string& self, long operations, int rounds) {
  const std::string directory = self.substr(0, self.rfind('/') + 1);
  const std::string command = "'" + directory + "sqlite_floor' --operations " + std::to_string(operations) +
                              " --rounds " + std::to_string(rounds);
  std::FILE* p = popen(command.c_str(), "r");
  if (!p) return 0;
  std::string out;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, p)) out += buffer;
  pclose(p);
  const std::size_t line = out.find('\n');
  return line == std::string::npos ? 0 : std::atof(out.c_str() + line + 1);
}

}  // namespace

int main(int argc, char** argv) {
  long operations = 1'000'000;
  int rounds = 3;
  std::string_view only;  // one format (for a profiler's view of it)
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--operations" && i + 1 < argc) {
      operations = std::atol(argv[++i]);
    } else if (a == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--operations N] [--rounds R] [--only FORMAT]\n", argv[0]);
      return 2;
    }
  }
  operations = std::max(operations, 1L);
  rounds = std::max(rounds, 1);
  char directory[] = "/tmp/run-conversion-XXXXXX";
  if (!mkdtemp(directory)) return 1;
  const std::string stem = std::string(directory) + "/run";

  records::RangeTable ranges;
  const std::string run = run_file_of(operations, ranges);
  const auto n = static_cast<double>(operations);
  std::printf("%ld launches: the run file %.1f bytes a launch\n", operations, static_cast<double>(run.size()) / n);

  std::vector<double> read_ns;
  for (int r = 0; r < rounds; ++r) {
    const double start = thread_cpu_ns();
    runfile::RunReader reader(run);
    NoVisitor visitor;
    reader.read(visitor);
    read_ns.push_back((thread_cpu_ns() - start) / n);
  }
  std::printf("  %-8s %8.1f CPU ns a launch\n", "read", median(read_ns));

  const double floor = only.empty() ? sqlite_floor_ns(argv[0], operations, rounds) : 0;
  DirectoryFiles files(stem);
  for (config::ExportFormat format : exports::kConvertedFormats) {
    if (!only.empty() && only != exports::export_format_name(format)) continue;
    std::vector<double> ns;
    for (int r = 0; r < rounds; ++r) {
      const std::string path = stem + std::string(exports::export_extension(format));
      ::unlink(path.c_str());
      const double start = thread_cpu_ns();
      const exports::ConversionResult result = exports::convert_run(run, format, files);
      ns.push_back((thread_cpu_ns() - start) / n);
      if (result.summary.error || result.not_written || result.summary.operations != static_cast<std::uint64_t>(operations)) {
        std::fprintf(stderr, "run_conversion: %s: the conversion failed\n",
                     std::string(exports::export_format_name(format)).c_str());
        return 1;
      }
    }
    const double per_launch = median(ns);
    std::printf("  %-8s %8.1f CPU ns a launch", std::string(exports::export_format_name(format)).c_str(), per_launch);
    if (format == config::ExportFormat::json) {
      const std::size_t events = count_of(read_all(stem + ".json"), "\"ph\":");
      std::printf(", %zu events, %.2f M events a second", events, static_cast<double>(events) / (per_launch * n) * 1e3);
    }
    if (format == config::ExportFormat::pftrace) {
      std::printf(", %.1f bytes a launch", static_cast<double>(read_all(stem + ".pftrace").size()) / n);
    }
    if ((format == config::ExportFormat::sqlite || format == config::ExportFormat::nvprof) && floor > 0) {
      std::printf(", %.2fx sqlite_floor (%.1f ns)", per_launch / floor, floor);
    }
    std::printf("\n");
  }
  for (config::ExportFormat format : exports::kConvertedFormats) {
    ::unlink((stem + std::string(exports::export_extension(format))).c_str());
  }
  ::rmdir(directory);
  return 0;
}
