// libFuzzer target for the databases `computeprof stats` reads: the input, written to a
// file, is read as stats reads an `export sqlite` database another person made (read-
// only, SQLite's defensive settings). Seeded with a valid database (stats_seed), whose
// pages the fuzzer corrupts. Besides the sanitizers' checks, a database that cannot be
// read must be one warning line naming the file.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tools/stats_input.hpp"

namespace {

// One file per fuzzing process, rewritten for each input.
const std::string& input_path() {
  static const std::string path = [] {
    char pattern[] = "/tmp/database_reader_fuzzer.XXXXXX";
    const int fd = mkstemp(pattern);
    if (fd < 0) std::abort();
    close(fd);
    return std::string(pattern);
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = input_path();
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr || std::fwrite(data, 1, size, file) != size || std::fclose(file) != 0) std::abort();
  computeprof::tools::StatsInput input;
  const std::string warning = computeprof::tools::read_stats_input(path, input);
  if (!warning.empty() && (warning.find('\n') != std::string::npos || warning.find(path) == std::string::npos)) {
    __builtin_trap();
  }
  for (const auto& row : input.operations.rows()) {
    if (row.calls == 0 || row.min_ns > row.max_ns) __builtin_trap();
  }
  input.ranges.rows();
  return 0;
}
