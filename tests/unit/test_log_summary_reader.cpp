// Classic logs read back into nvprof's summary (computeprof stats): both formats, the
// names as the program gave them, gputime to the nanosecond, and where a bad log is bad.
#include "catch.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/profile_config.hpp"
#include "logfmt/header.hpp"
#include "logfmt/log_summary_reader.hpp"
#include "logfmt/record_writer.hpp"
#include "warning_capture.hpp"
#include "written_log.hpp"

using namespace computeprof;
using namespace computeprof::records;
using namespace computeprof::logfmt;
using namespace computeprof::reports;

namespace {

// Every column a record can have, so that the method and gputime sit among others.
constexpr std::string_view kEveryColumn =
    "gpustarttimestamp\ngpuendtimestamp\ntimestamp\ngridsize3d\nthreadblocksize\ndynsmemperblock\n"
    "stasmemperblock\nregperthread\nstreamid\ncacheconfigexecuted\ncacheconfigrequested\nmemtransfersize\n"
    "memtransferdir\nmemtransferhostmemtype\ncallstack\n";

Record operation(RecordKind kind, std::string_view method, std::uint64_t gputime_ns) {
  Record r;
  r.kind = kind;
  r.method = method;
  r.gputime_ns = gputime_ns;
  r.cputime_ns = gputime_ns + 1'234;
  r.gpu_start_ns = 0x13e224f5a60f82e0;
  r.gpu_end_ns = r.gpu_start_ns + gputime_ns;
  r.grid = {4, 2, 1};
  r.block = {32, 8, 1};
  r.transfer_bytes = 4096;
  if (kind == RecordKind::memcpy) r.host_mem_type = HostMemType::pageable;
  return r;
}

// A whole log of `records` as the shim writes it: header, column line, one record each.
std::string log_of(const std::vector<Record>& records, config::LogFormat format) {
  test::WarningCapture warnings;
  const ColumnLayout layout = select_columns(config::parse_profile_config(kEveryColumn, "cfg"), config::Api::cuda);
  REQUIRE(warnings.lines().empty());
  HeaderInfo info;
  info.device_name = "NVIDIA H100 80GB HBM3";
  info.format = format;
  return test::written_log(info, layout, records);
}

// The table of `log`, which must read without an error.
std::string table_of(std::string_view log) {
  GpuSummary summary;
  const std::optional<LogReadError> error = add_log_to_summary(log, summary);
  INFO((error ? error->what : std::string()));
  REQUIRE_FALSE(error.has_value());
  return format_summary(summary.rows(), "");
}

LogReadError error_of(std::string_view log) {
  GpuSummary summary;
  const std::optional<LogReadError> error = add_log_to_summary(log, summary);
  REQUIRE(error.has_value());
  return *error;
}

constexpr std::string_view kKvpHeader =
    "# CUDA_PROFILE_LOG_VERSION 2.0\n"
    "# CUDA_DEVICE 0 GeForce GT 750M\n"
    "# CUDA_CONTEXT 1\n"
    "method,gputime,cputime,occupancy\n";

constexpr std::string_view kCsvHeader =
    "# CUDA_PROFILE_LOG_VERSION 2.0\n"
    "# CUDA_DEVICE 0 GeForce GT 750M\n"
    "# CUDA_CONTEXT 1\n"
    "# CUDA_PROFILE_CSV 1\n"
    "method,gputime,cputime,occupancy\n";

}  // namespace

TEST_CASE("a key-value log and a CSV log of the same records give the same table", "[log_reader]") {
  const std::vector<Record> records = {
      operation(RecordKind::kernel, "_Z4spiny", 30'000'000),
      operation(RecordKind::memcpy, "memcpyHtoD", 4'350),
      operation(RecordKind::kernel, "_Z4spiny", 20'000'000),
      operation(RecordKind::memcpy, "memcpyHtoDasync", 5'147),
      operation(RecordKind::memset, "memset", 992),
      operation(RecordKind::graph, "graphLaunch", 1'000'000'000),
  };
  const std::string expected =
      "Profiling result:\n"
      "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
      " GPU activities:   99.98%  50.000ms         2  25.000ms  20.000ms  30.000ms  spin(unsigned long long)\n"
      "                    0.02%  9.4970us         2  4.7480us  4.3500us  5.1470us  [CUDA memcpy HtoD]\n"
      "                    0.00%     992ns         1     992ns     992ns     992ns  [CUDA memset]\n";
  CHECK(table_of(log_of(records, config::LogFormat::kvp)) == expected);
  CHECK(table_of(log_of(records, config::LogFormat::csv)) == expected);
}

TEST_CASE("the old profiler's logs read as computeprof's", "[log_reader]") {
  // docs/format.md, "Golden logs".
  CHECK(table_of("# CUDA_PROFILE_LOG_VERSION 2.0\n"
                 "# CUDA_DEVICE 0 GeForce GT 750M\n"
                 "# CUDA_CONTEXT 1\n"
                 "method,gputime,cputime,occupancy\n"
                 "method=[ write_size ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.016 ] \n"
                 "method=[ memcpyDtoH ] gputime=[ 5.280 ] cputime=[ 538.104 ] \n") ==
        "Profiling result:\n"
        "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
        " GPU activities:   58.44%  7.4240us         1  7.4240us  7.4240us  7.4240us  write_size\n"
        "                   41.56%  5.2800us         1  5.2800us  5.2800us  5.2800us  [CUDA memcpy DtoH]\n");
  CHECK(table_of("# OPENCL_PROFILE_LOG_VERSION 2.0\n"
                 "# OPENCL_DEVICE 0 Tesla K40c\n"
                 "# OPENCL_CONTEXT 1\n"
                 "# OPENCL_PROFILE_CSV 1\n"
                 "# TIMESTAMPFACTOR 13d97a5aea505c75\n"
                 "gpustarttimestamp,gpuendtimestamp,method,gputime,cputime,occupancy,streamid\n"
                 "13e224f5a60f82e0,13e224f5a60fb0e0,memcpyHtoDasync,11.776,36.645,,12\n"
                 "13e224f5a6131880,13e224f5a62745c0,nbody,1322.304,21.637,0.750,12\n") ==
        "Profiling result:\n"
        "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
        " GPU activities:   99.12%  1.3223ms         1  1.3223ms  1.3223ms  1.3223ms  nbody\n"
        "                    0.88%  11.776us         1  11.776us  11.776us  11.776us  [CUDA memcpy HtoD]\n");
}

TEST_CASE("names come back as the program gave them, escaped or quoted", "[log_reader]") {
  const std::vector<std::string_view> names = {
      "line\nbreak\rand \\ backslash",
      "void scale<float, 3>(float*, int)",
      "say \"hi\"",
      "looks ] gputime=[ 1.000 ] like pairs",
  };
  std::vector<Record> records;
  for (std::string_view name : names) records.push_back(operation(RecordKind::kernel, name, 1'000));
  for (const config::LogFormat format : {config::LogFormat::kvp, config::LogFormat::csv}) {
    GpuSummary summary;
    REQUIRE_FALSE(add_log_to_summary(log_of(records, format), summary).has_value());
    std::vector<std::string> read;
    for (const SummaryRow& row : summary.rows()) read.push_back(row.name);
    std::sort(read.begin(), read.end());
    std::vector<std::string> expected(names.begin(), names.end());
    std::sort(expected.begin(), expected.end());
    CHECK(read == expected);
  }
}

TEST_CASE("gputime becomes nanoseconds exactly", "[log_reader]") {
  const auto total_ns = [](std::string_view gputime) {
    GpuSummary summary;
    const std::string log = std::string(kKvpHeader) + "method=[ k ] gputime=[ " + std::string(gputime) + " ] \n";
    REQUIRE_FALSE(add_log_to_summary(log, summary).has_value());
    return summary.rows().at(0).total_ns;
  };
  CHECK(total_ns("0.000") == 0);
  CHECK(total_ns("0.001") == 1);
  // 1.005 and 4294967.297 have no exact double: read through one, they would round.
  CHECK(total_ns("1.005") == 1'005);
  CHECK(total_ns("4294967.297") == 4'294'967'297);
  CHECK(total_ns("18446744073709551.615") == std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("a bad line is an error with its number", "[log_reader]") {
  struct Case {
    std::string log;
    std::size_t line;
    std::string what;
  };
  const std::string kvp(kKvpHeader);
  const std::string csv(kCsvHeader);
  const std::string good_kvp = "method=[ k ] gputime=[ 1.000 ] cputime=[ 2.000 ] \n";
  const Case cases[] = {
      {"", 1, "no column line: the file ends before its records begin"},
      {"# CUDA_PROFILE_LOG_VERSION 2.0\n", 2, "no column line: the file ends before its records begin"},
      {"# CUDA_PROFILE_LOG_VERSION 2.0\nmethod,cputime\n", 2, "the column line names no method or no gputime column"},
      {kvp + good_kvp + "method=[ k ] gputime=[ 1.5 ] \n", 6, "gputime '1.5' is not microseconds with three decimals"},
      {kvp + "method=[ k ] gputime=[ -1.000 ] \n", 5, "gputime '-1.000' is not microseconds with three decimals"},
      {kvp + "method=[ k ] gputime=[ 18446744073709551.616 ] \n", 5,
       "gputime '18446744073709551.616' is not microseconds with three decimals"},
      {kvp + "gputime=[ 1.000 ] \n", 5, "no method=[ ... ] pair"},
      {kvp + "xmethod=[ k ] gputime=[ 1.000 ] \n", 5, "no method=[ ... ] pair"},
      {kvp + "method=[ k ] cputime=[ 1.000 ] \n", 5, "no gputime=[ ... ] pair after the method"},
      {kvp + "method=[ k ] gputime=[ 1.000\n", 5, "the gputime=[ ... ] pair is not closed"},
      {kvp + "method=[ a\\tb ] gputime=[ 1.000 ] \n", 5, "the method has a backslash that is not \\n, \\r or \\\\"},
      {kvp + good_kvp + "method=[ k ] gputime=[ 1.0", 6,
       "the line is cut short (the file ends before its line break)"},
      {csv + "k,1.000,2.000\n", 6, "3 fields where the column line has 4"},
      {csv + "k\"x,1.000,2.000,\n", 6, "a quote inside a field that is not quoted"},
      {csv + "\"k\"x,1.000,2.000,\n", 6, "text after the closing quote of a field"},
      {csv + "k,1.000,2.000,", 6, "the line is cut short (the file ends before its line break)"},
      {csv + "\"k,1.000,2.000,\n", 6, "the line is cut short (the file ends before its line break)"},
      // A quoted name's line breaks are lines of the file: the bad record is on line 10.
      {csv + "\"two\nlines\",1.000,2.000,\n\"and\n\",1.000,2.000,\nk,1,2,\n", 10,
       "gputime '1' is not microseconds with three decimals"},
  };
  for (const Case& c : cases) {
    INFO(c.log);
    const LogReadError error = error_of(c.log);
    CHECK(error.line == c.line);
    CHECK(error.what == c.what);
  }
}

TEST_CASE("a log with no records is an empty table", "[log_reader]") {
  CHECK(table_of(kCsvHeader) == "Profiling result:\nNo kernels were profiled.\n");
}
