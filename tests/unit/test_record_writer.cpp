#include "catch.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "config/profile_config.hpp"
#include "csv_reader.hpp"
#include "logfmt/header.hpp"
#include "logfmt/record_writer.hpp"
#include "warning_capture.hpp"
#include "written_log.hpp"

using namespace computeprof;
using namespace computeprof::records;
using namespace computeprof::logfmt;

namespace {

ColumnLayout layout_for(std::string_view text, config::Api api = config::Api::cuda) {
  test::WarningCapture warnings;
  auto cfg = config::parse_profile_config(text, "cfg");
  REQUIRE(warnings.lines().empty());
  return select_columns(cfg, api);
}

Record sample_kernel() {
  Record r;
  r.kind = RecordKind::kernel;
  r.method = "_Z6vecAddPKfS0_Pfi";
  r.gputime_ns = 7424;
  r.cputime_ns = 17288;
  r.grid = {2, 1, 1};
  r.block = {32, 8, 8};
  r.dynamic_smem = 256;
  r.static_smem = 1024;
  r.registers = 18;
  r.occupancy = 0.5;
  r.stream_id = 3;
  r.cache_config_requested = 1;
  r.cache_config_executed = 2;
  return r;
}

Record sample_copy() {
  Record r;
  r.kind = RecordKind::memcpy;
  r.method = "memcpyHtoDasync";
  r.gputime_ns = 5280;
  r.cputime_ns = 6000;
  r.stream_id = 3;
  r.transfer_bytes = 4096;
  r.transfer_dir = TransferDir::host_to_device;
  r.host_mem_type = HostMemType::page_locked;
  return r;
}

constexpr std::string_view kAll =
    "gridsize\nthreadblocksize\ndynsmemperblock\nstasmemperblock\nregperthread\nstreamid\n"
    "cacheconfigexecuted\ncacheconfigrequested\nmemtransfersize\nmemtransferdir\nmemtransferhostmemtype\n";

}  // namespace

TEST_CASE("key-value: grouped keys, and pairs that do not apply are left out", "[writer]") {
  auto layout = layout_for(kAll);
  std::string out;
  test::append_kvp_line(out, sample_kernel(), layout);
  test::append_kvp_line(out, sample_copy(), layout);
  CHECK(out ==
        "method=[ _Z6vecAddPKfS0_Pfi ] gputime=[ 7.424 ] cputime=[ 17.288 ] gridsize=[ 2, 1 ] "
        "threadblocksize=[ 32, 8, 8 ] dynsmemperblock=[ 256 ] stasmemperblock=[ 1024 ] regperthread=[ 18 ] "
        "occupancy=[ 0.500 ] streamid=[ 3 ] cacheconfigexecuted=[ 2 ] cacheconfigrequested=[ 1 ] \n"
        "method=[ memcpyHtoDasync ] gputime=[ 5.280 ] cputime=[ 6.000 ] streamid=[ 3 ] "
        "memtransfersize=[ 4096 ] memtransferdir=[ 0 ] memtransferhostmemtype=[ 1 ] \n");
}

TEST_CASE("key-value: gridsize3d and OpenCL group names", "[writer]") {
  std::string out;
  Record k = sample_kernel();
  k.grid = {4, 3, 2};
  test::append_kvp_line(out, k, layout_for("gridsize3d\nthreadblocksize\n"));
  test::append_kvp_line(out, k, layout_for("gridsize\nthreadblocksize\n", config::Api::opencl));
  CHECK(out ==
        "method=[ _Z6vecAddPKfS0_Pfi ] gputime=[ 7.424 ] cputime=[ 17.288 ] gridsize3d=[ 4, 3, 2 ] "
        "threadblocksize=[ 32, 8, 8 ] occupancy=[ 0.500 ] \n"
        "method=[ _Z6vecAddPKfS0_Pfi ] gputime=[ 7.424 ] cputime=[ 17.288 ] ndrangesize=[ 4, 3 ] "
        "workgroupsize=[ 32, 8, 8 ] occupancy=[ 0.500 ] \n");
}

TEST_CASE("memsets carry a size but no direction or host memory type", "[writer]") {
  Record m;
  m.kind = RecordKind::memset;
  m.method = "memset";
  m.gputime_ns = 1500;
  m.cputime_ns = 2500;
  m.transfer_bytes = 1 << 20;
  auto layout = layout_for(kAll);
  std::string kvp, csv;
  test::append_kvp_line(kvp, m, layout);
  test::append_csv_line(csv, m, layout);
  CHECK(kvp == "method=[ memset ] gputime=[ 1.500 ] cputime=[ 2.500 ] streamid=[ 0 ] memtransfersize=[ 1048576 ] \n");
  CHECK(csv == "memset,1.500,2.500,,,,,,,,,,0,,,1048576,,\n");
}

TEST_CASE("graph launches carry times and a stream, no launch shape and no size", "[writer]") {
  Record g;
  g.kind = RecordKind::graph;
  g.method = "graph";
  g.gputime_ns = 12000;
  g.cputime_ns = 15000;
  g.stream_id = 7;
  g.transfer_bytes = 99;  // not a copy: never written
  auto layout = layout_for(kAll);
  std::string kvp, csv;
  test::append_kvp_line(kvp, g, layout);
  test::append_csv_line(csv, g, layout);
  CHECK(kvp == "method=[ graph ] gputime=[ 12.000 ] cputime=[ 15.000 ] streamid=[ 7 ] \n");
  CHECK(csv == "graph,12.000,15.000,,,,,,,,,,7,,,,,\n");
}

TEST_CASE("a host-to-host copy has direction 4", "[writer]") {
  Record c;
  c.kind = RecordKind::memcpy;
  c.method = "memcpyHtoH";
  c.transfer_bytes = 64;
  c.transfer_dir = TransferDir::host_to_host;
  c.host_mem_type = HostMemType::pageable;
  std::string kvp;
  test::append_kvp_line(kvp, c, layout_for("memtransferdir\nmemtransfersize\n"));
  CHECK(kvp == "method=[ memcpyHtoH ] gputime=[ 0.000 ] cputime=[ 0.000 ] memtransfersize=[ 64 ] memtransferdir=[ 4 ] \n");
}

TEST_CASE("a copy without a host side has no host memory type", "[writer]") {
  Record d = sample_copy();
  d.method = "memcpyDtoD";
  d.transfer_dir = TransferDir::device_to_device;
  d.host_mem_type.reset();
  std::string out;
  test::append_kvp_line(out, d, layout_for("memtransferdir\nmemtransferhostmemtype\n"));
  CHECK(out == "method=[ memcpyDtoD ] gputime=[ 5.280 ] cputime=[ 6.000 ] memtransferdir=[ 2 ] \n");
}

TEST_CASE("counters: values, n/a in key-value, empty in CSV, never a silent 0", "[writer]") {
  auto layout = layout_for("inst_executed\ngld_64b\n");
  Record k = sample_kernel();
  CounterValues counters;
  counters.values[*config::find_legacy_counter("inst_executed")] = CounterValue::of(123456);
  counters.values[*config::find_legacy_counter("gld_64b")] = CounterValue::unavailable_value();
  k.counter_state = CounterState::measured;
  k.counters = &counters;
  std::string kvp, csv;
  test::append_kvp_line(kvp, k, layout);
  test::append_csv_line(csv, k, layout);
  CHECK(kvp ==
        "method=[ _Z6vecAddPKfS0_Pfi ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] "
        "inst_executed=[ 123456 ] gld_64b=[ n/a ] \n");
  CHECK(csv == "_Z6vecAddPKfS0_Pfi,7.424,17.288,0.500,123456,\n");
}

TEST_CASE("every column writes its own field of the record, key-value and CSV", "[writer]") {
  // Each field holds a value no other field holds: a column that wrote another's field
  // would show.
  auto layout = layout_for(std::string(kAll) + "gpustarttimestamp\ngpuendtimestamp\ntimestamp\ngridsize3d\ncallstack\n"
                                               "inst_executed\ngld_64b\n");
  Record k;
  k.kind = RecordKind::kernel;
  k.method = "k";
  k.gpu_start_ns = 0x0123456789abcdef;
  k.gpu_end_ns = 0xfedcba9876543210;
  k.timestamp_ns = 1'000'001;
  k.gputime_ns = 2'000'002;
  k.cputime_ns = 3'000'003;
  k.grid = {11, 12, 13};
  k.block = {21, 22, 23};
  k.dynamic_smem = 31;
  k.static_smem = 32;
  k.registers = 33;
  k.occupancy = 0.25F;
  k.stream_id = 34;
  k.cache_config_executed = 5;
  k.cache_config_requested = 6;
  k.stack_id = 35;
  CounterValues counters;
  counters.values[*config::find_legacy_counter("inst_executed")] = CounterValue::of(41);
  counters.values[*config::find_legacy_counter("gld_64b")] = CounterValue::of(42);
  k.counter_state = CounterState::measured;
  k.counters = &counters;
  Record c;
  c.kind = RecordKind::memcpy;
  c.method = "c";
  c.gpu_start_ns = 0x1000000000000001;
  c.gpu_end_ns = 0x2000000000000002;
  c.timestamp_ns = 4'000'004;
  c.gputime_ns = 5'000'005;
  c.cputime_ns = 6'000'006;
  c.stream_id = 51;
  c.transfer_bytes = 52;
  c.transfer_dir = TransferDir::peer;
  c.host_mem_type = HostMemType::page_locked;
  c.stack_id = 53;
  std::string kvp, csv;
  test::append_kvp_line(kvp, k, layout);
  test::append_kvp_line(kvp, c, layout);
  test::append_csv_line(csv, k, layout);
  test::append_csv_line(csv, c, layout);
  CHECK(kvp ==
        "gpustarttimestamp=[ 0123456789abcdef ] gpuendtimestamp=[ fedcba9876543210 ] timestamp=[ 1000.001 ] "
        "method=[ k ] gputime=[ 2000.002 ] cputime=[ 3000.003 ] gridsize3d=[ 11, 12, 13 ] "
        "threadblocksize=[ 21, 22, 23 ] dynsmemperblock=[ 31 ] stasmemperblock=[ 32 ] regperthread=[ 33 ] "
        "occupancy=[ 0.250 ] streamid=[ 34 ] cacheconfigexecuted=[ 5 ] cacheconfigrequested=[ 6 ] "
        "inst_executed=[ 41 ] gld_64b=[ 42 ] callstackid=[ 35 ] \n"
        "gpustarttimestamp=[ 1000000000000001 ] gpuendtimestamp=[ 2000000000000002 ] timestamp=[ 4000.004 ] "
        "method=[ c ] gputime=[ 5000.005 ] cputime=[ 6000.006 ] streamid=[ 51 ] memtransfersize=[ 52 ] "
        "memtransferdir=[ 3 ] memtransferhostmemtype=[ 1 ] callstackid=[ 53 ] \n");
  CHECK(column_line(layout) ==
        "gpustarttimestamp,gpuendtimestamp,timestamp,method,gputime,cputime,gridsizeX,gridsizeY,gridsizeZ,"
        "threadblocksizeX,threadblocksizeY,threadblocksizeZ,dynsmemperblock,stasmemperblock,regperthread,occupancy,"
        "streamid,cacheconfigexecuted,cacheconfigrequested,inst_executed,gld_64b,memtransfersize,memtransferdir,"
        "memtransferhostmemtype,callstackid");
  CHECK(csv ==
        "0123456789abcdef,fedcba9876543210,1000.001,k,2000.002,3000.003,11,12,13,21,22,23,31,32,33,0.250,34,5,6,"
        "41,42,,,,35\n"
        "1000000000000001,2000000000000002,4000.004,c,5000.005,6000.006,,,,,,,,,,,51,,,,,52,3,1,53\n");

  // OpenCL's localblocksize, and a 2D grid as one pair.
  Record cl = k;
  cl.local_block_size = 61;
  std::string opencl;
  test::append_kvp_line(opencl, cl, layout_for("gridsize\nlocalblocksize\n", config::Api::opencl));
  test::append_csv_line(opencl, cl, layout_for("gridsize\nlocalblocksize\n", config::Api::opencl));
  CHECK(opencl ==
        "method=[ k ] gputime=[ 2000.002 ] cputime=[ 3000.003 ] ndrangesize=[ 11, 12 ] localblocksize=[ 61 ] "
        "occupancy=[ 0.250 ] \n"
        "k,2000.002,3000.003,11,12,61,0.250\n");
}

TEST_CASE("CSV: runs of empty fields of every length up to every counter", "[writer][csv]") {
  // A copy skips the counters between streamid and memtransfersize, a graph launch skips
  // them to the end of the line: runs of 1 to 46 commas, shorter and longer than one
  // step's text.
  std::string text = "streamid\nmemtransfersize\n";
  Record g;
  g.kind = RecordKind::graph;
  g.method = "graph";
  g.stream_id = 7;
  for (std::size_t n = 0; n <= config::kLegacyCounterCount; ++n) {
    const auto layout = layout_for(text);
    std::string csv;
    test::append_csv_line(csv, sample_copy(), layout);
    test::append_csv_line(csv, g, layout);
    const std::string skipped(n, ',');
    INFO(n << " counters");
    CHECK(csv == "memcpyHtoDasync,5.280,6.000,,3" + skipped + ",4096\n" + "graph,0.000,0.000,,7" + skipped + ",\n");
    if (n < config::kLegacyCounterCount) text.append(config::legacy_counters()[n].name).push_back('\n');
  }
  CHECK(config::kLegacyCounterCount > kLineText);
}

TEST_CASE("integers of every length are written as std::to_chars writes them", "[writer]") {
  const auto layout = layout_for("streamid\n");
  std::vector<std::uint64_t> values = {0, std::numeric_limits<std::uint32_t>::max(),
                                       std::uint64_t{std::numeric_limits<std::uint32_t>::max()} + 1,
                                       std::numeric_limits<std::uint64_t>::max()};
  for (std::uint64_t power = 1; power <= std::numeric_limits<std::uint64_t>::max() / 10; power *= 10) {
    for (std::uint64_t v : {power * 10 - 1, power * 10, power * 10 + 1, power * 4 + 2}) values.push_back(v);
  }
  for (std::uint64_t v : values) {
    Record r = sample_copy();
    r.stream_id = v;
    std::string csv;
    test::append_csv_line(csv, r, layout);
    char digits[24];
    const std::string expected(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
    CHECK(csv == "memcpyHtoDasync,5.280,6.000,," + expected + "\n");
  }
}

TEST_CASE("times are exact to the nanosecond", "[writer]") {
  auto layout = layout_for("timestamp\n");
  Record k = sample_kernel();
  k.timestamp_ns = 0;
  k.gputime_ns = 999;
  k.cputime_ns = 12345678901234ULL;
  std::string out;
  test::append_csv_line(out, k, layout);
  CHECK(out == "0.000,_Z6vecAddPKfS0_Pfi,0.999,12345678901.234,0.500\n");
}

TEST_CASE("CSV: every line has as many fields as the column line", "[writer][csv]") {
  auto layout = layout_for(std::string(kAll) + "gpustarttimestamp\ngpuendtimestamp\ntimestamp\ngridsize3d\n"
                                               "inst_executed\nprof_trigger_01\n");
  std::string text = column_line(layout) + "\n";
  Record k = sample_kernel();
  k.method = "void scale<float, 3>(float*, int)";
  CounterValues counters;
  counters.values[*config::find_legacy_counter("inst_executed")] = CounterValue::of(7);
  counters.values[*config::find_legacy_counter("prof_trigger_01")] = CounterValue::unavailable_value();
  k.counter_state = CounterState::measured;
  k.counters = &counters;
  Record m;
  m.kind = RecordKind::memset;
  m.method = "memset";
  test::append_csv_line(text, k, layout);
  test::append_csv_line(text, sample_copy(), layout);
  test::append_csv_line(text, m, layout);
  auto rows = test::read_csv(text);
  REQUIRE(rows.size() == 4);
  for (const auto& row : rows) CHECK(row.size() == layout.columns.size());
  CHECK(rows[1][3] == "void scale<float, 3>(float*, int)");
}

TEST_CASE("CSV: names with commas, quotes and line breaks round-trip", "[writer][csv]") {
  auto layout = layout_for("");
  const std::string names[] = {
      "void foo<int, 2>(int const*, float)",
      "kernel \"quoted\"",
      "a,\"b\",c",
      "line\nbreak",
      "plain_name",
  };
  std::string text;
  for (const auto& name : names) {
    Record k = sample_kernel();
    k.method = name;
    test::append_csv_line(text, k, layout);
  }
  auto rows = test::read_csv(text);
  REQUIRE(rows.size() == std::size(names));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    REQUIRE(rows[i].size() == 4);
    CHECK(rows[i][0] == names[i]);
    CHECK(rows[i][1] == "7.424");
  }
  std::string quoted;
  Record k = sample_kernel();
  k.method = "a,\"b\"";
  test::append_csv_line(quoted, k, layout);
  CHECK(quoted == "\"a,\"\"b\"\"\",7.424,17.288,0.500\n");
}

TEST_CASE("header: CSV line, TIMESTAMPFACTOR only with GPU timestamps, dropped counters", "[writer][header]") {
  HeaderInfo info;
  info.device = 1;
  info.device_name = "NVIDIA H100 80GB HBM3";
  info.context = 3;
  info.timestamp_factor = 0xabc;
  std::string kvp;
  write_header(kvp, info, layout_for("gpuendtimestamp\n"));
  CHECK(kvp ==
        "# CUDA_PROFILE_LOG_VERSION 2.0\n"
        "# CUDA_DEVICE 1 NVIDIA H100 80GB HBM3\n"
        "# CUDA_CONTEXT 3\n"
        "# TIMESTAMPFACTOR abc\n"
        "gpuendtimestamp,method,gputime,cputime,occupancy\n");

  info.format = config::LogFormat::csv;
  info.counters_dropped = true;
  std::string csv;
  write_header(csv, info, layout_for("timestamp\n"));
  CHECK(csv ==
        "# CUDA_PROFILE_LOG_VERSION 2.0\n"
        "# CUDA_DEVICE 1 NVIDIA H100 80GB HBM3\n"
        "# CUDA_CONTEXT 3\n"
        "# CUDA_PROFILE_CSV 1\n"
        "# WARNING: profiler counters are not collected with conckerneltrace; counters ignored\n"
        "timestamp,method,gputime,cputime,occupancy\n");
}

TEST_CASE("counters that could not be collected read n/a in key-value, empty in CSV, a record without counters "
          "has no counter keys",
          "[writer]") {
  auto layout = layout_for("inst_executed\ngld_request\n");
  Record k = sample_kernel();
  k.counter_state = CounterState::unavailable;
  std::string kvp, csv;
  test::append_kvp_line(kvp, k, layout);
  test::append_csv_line(csv, k, layout);
  CHECK(kvp ==
        "method=[ _Z6vecAddPKfS0_Pfi ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] "
        "gld_request=[ n/a ] inst_executed=[ n/a ] \n");
  CHECK(csv == "_Z6vecAddPKfS0_Pfi,7.424,17.288,0.500,,\n");
  Record plain = sample_kernel();
  std::string none;
  test::append_kvp_line(none, plain, layout);
  CHECK(none == "method=[ _Z6vecAddPKfS0_Pfi ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] \n");
}

TEST_CASE("KVP: line breaks in names are escaped, so each record is one line", "[writer][kvp]") {
  auto layout = layout_for("");
  std::string text;
  for (std::string_view name : {"line\nbreak", "cr\r\nlf", "back\\slash\\n", "plain_name"}) {
    Record k = sample_kernel();
    k.method = name;
    test::append_kvp_line(text, k, layout);
  }
  CHECK(text ==
        "method=[ line\\nbreak ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] \n"
        "method=[ cr\\r\\nlf ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] \n"
        "method=[ back\\\\slash\\\\n ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] \n"
        "method=[ plain_name ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] \n");
  std::string field;
  Record k = sample_kernel();
  k.method = "a\nb\\";
  test::append_kvp_line(field, k, layout);
  CHECK(field == "method=[ a\\nb\\\\ ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] \n");
}

namespace {

// A reader of docs/format.md's words for key-value method names, written from them: the
// text between the line's first "method=[ " and its last " ] gputime=[ ", in which \n,
// \r and \\ stand for a line feed, a carriage return and a backslash.
std::string documented_method(std::string_view line) {
  constexpr std::string_view kStart = "method=[ ";
  constexpr std::string_view kEnd = " ] gputime=[ ";
  const std::size_t start = line.find(kStart);
  const std::size_t end = line.rfind(kEnd);
  REQUIRE(start != std::string_view::npos);
  REQUIRE(end != std::string_view::npos);
  REQUIRE(end >= start + kStart.size());
  const std::string_view text = line.substr(start + kStart.size(), end - start - kStart.size());
  std::string name;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      name.push_back(text[i]);
      continue;
    }
    REQUIRE(i + 1 < text.size());
    const char c = text[++i];
    REQUIRE((c == 'n' || c == 'r' || c == '\\'));
    name.push_back(c == 'n' ? '\n' : c == 'r' ? '\r' : '\\');
  }
  return name;
}

}  // namespace

TEST_CASE("KVP: a reader of the documented form gets every method name back, control characters included",
          "[writer][kvp]") {
  auto layout = layout_for(std::string("timestamp\ngpustarttimestamp\ngpuendtimestamp\n") + std::string(kAll));
  std::vector<std::string> names;
  for (int byte = 1; byte < 256; ++byte) {
    names.emplace_back(1, static_cast<char>(byte));
    names.push_back("a" + std::string(1, static_cast<char>(byte)) + "\\n" + std::string(1, static_cast<char>(byte)));
  }
  for (const char* tricky : {"\\", "\\\\", "x\\", "\\n", "\\\n", "\r\n", "\n\n\r", " ] gputime=[ 1.000 ] ",
                             "method=[ x ] ", "a ] b", "\t\v\f\x1b[0m", "void f<\n>(int)\\r", " ", "=[ ] "}) {
    names.emplace_back(tricky);
  }
  for (const auto& name : names) {
    Record k = sample_kernel();
    k.method = name;
    std::string line;
    test::append_kvp_line(line, k, layout);
    REQUIRE(line.ends_with(" \n"));
    const std::string_view body(line.data(), line.size() - 1);
    // One line per record.
    CHECK(body.find('\n') == std::string_view::npos);
    CHECK(body.find('\r') == std::string_view::npos);
    CHECK(documented_method(body) == name);
  }
}

TEST_CASE("KVP escaping leaves CSV as it was: RFC 4180 quoting", "[writer][csv]") {
  auto layout = layout_for("");
  Record k = sample_kernel();
  k.method = "line\nbreak\\n";
  std::string out;
  test::append_csv_line(out, k, layout);
  CHECK(out == "\"line\nbreak\\n\",7.424,17.288,0.500\n");
}

namespace {

// What printf's "%.3f" writes for the float's exact value, as std::to_chars does.
std::string printf_fixed3(float value) {
  char digits[64];
  const auto end = std::to_chars(digits, digits + sizeof digits, static_cast<double>(value), std::chars_format::fixed, 3).ptr;
  return std::string(digits, end);
}

std::string written_occupancy(const ColumnLayout& layout, float value) {
  Record r = sample_kernel();
  r.occupancy = value;
  std::string line;
  test::append_kvp_line(line, r, layout);
  const auto start = line.find("occupancy=[ ") + 12;
  return line.substr(start, line.find(" ]", start) - start);
}

}  // namespace

TEST_CASE("occupancy is rounded as printf rounds the float's exact value, ties to even", "[writer]") {
  const ColumnLayout layout = layout_for("");  // default columns: occupancy among them
  std::vector<float> values = {0.0F, 1.0F, 0.9995F, 0.99949998F, 0.0005F, 0.00049999F, 1e-30F, 1e-45F,
                               std::numeric_limits<float>::denorm_min(), std::nextafter(1.0F, 0.0F),
                               1.5F, 2.0F, 123.4567F, 1e10F, -0.25F, -0.0F};
  // Exact ties at the third decimal: (2k+1)/16 ends in ...5 at the fourth.
  for (int k = 0; k < 8; ++k) values.push_back(static_cast<float>(2 * k + 1) / 16.0F);
  // Every ratio of warps a GPU can have, and a sweep of the interval.
  for (int d = 1; d <= 128; ++d) {
    for (int n = 0; n <= d; ++n) values.push_back(static_cast<float>(n) / static_cast<float>(d));
  }
  for (std::uint32_t bits = 0x3a000000; bits < 0x3f800000; bits += 997) {
    float v;
    std::memcpy(&v, &bits, sizeof v);
    values.push_back(v);
  }
  std::size_t mismatches = 0;
  for (float v : values) {
    if (written_occupancy(layout, v) != printf_fixed3(v)) {
      ++mismatches;
      UNSCOPED_INFO(v << ": wrote " << written_occupancy(layout, v) << ", printf " << printf_fixed3(v));
    }
  }
  CHECK(values.size() > 20000);
  CHECK(mismatches == 0);
  CHECK(written_occupancy(layout, 0.0625F) == "0.062");
  CHECK(written_occupancy(layout, 0.1875F) == "0.188");
}

TEST_CASE("a LineWriter's lines are those of a writer of their own, occupancies it wrote before and new ones alike",
          "[writer]") {
  for (auto format : {config::LogFormat::kvp, config::LogFormat::csv}) {
    const ColumnLayout layout = layout_for("");
    LineWriter lines(layout, format);
    // Values that share an entry of its memo, large floats it does not keep, each written
    // more than once, interleaved, and records without an occupancy between them.
    std::vector<float> values = {0.5F, 1.0F, 0.75F, 1e10F, -0.0F, 0.0F, 0.333F, 1e-45F, -0.25F, 123.4567F};
    for (int n = 0; n <= 64; ++n) values.push_back(static_cast<float>(n) / 64.0F);
    std::string written, expected;
    for (int round = 0; round < 3; ++round) {
      for (float v : values) {
        Record r = sample_kernel();
        r.occupancy = v;
        if (round == 1) r.occupancy.reset();
        test::append_line(expected, r, layout, format);
        test::append_line(written, lines, r);
      }
    }
    CHECK(written == expected);
  }
}

TEST_CASE("a plain name of every length is written whole, and nothing of what follows it in memory", "[writer]") {
  const ColumnLayout layout = layout_for("");
  const std::string text = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopq";
  for (std::size_t n = 0; n <= text.size(); ++n) {
    Record r = sample_kernel();
    r.method = std::string_view(text).substr(0, n);
    r.method_is_plain = true;
    std::string kvp, csv;
    test::append_kvp_line(kvp, r, layout);
    test::append_csv_line(csv, r, layout);
    CHECK(kvp == "method=[ " + text.substr(0, n) + " ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] \n");
    CHECK(csv == text.substr(0, n) + ",7.424,17.288,0.500\n");
  }
}

TEST_CASE("callstack adds a callstackid column, last, for every kind of record", "[writer]") {
  const ColumnLayout layout = layout_for("callstack\nmemtransfersize\n");
  CHECK(column_line(layout) == "method,gputime,cputime,occupancy,memtransfersize,callstackid");
  Record kernel = sample_kernel();
  kernel.stack_id = 3;
  Record copy;
  copy.kind = RecordKind::memcpy;
  copy.method = "memcpyHtoD";
  copy.gputime_ns = 1000;
  copy.cputime_ns = 2000;
  copy.transfer_bytes = 40960;
  std::string kvp;
  test::append_kvp_line(kvp, kernel, layout);
  test::append_kvp_line(kvp, copy, layout);
  CHECK(kvp ==
        "method=[ _Z6vecAddPKfS0_Pfi ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] callstackid=[ 3 ] \n"
        "method=[ memcpyHtoD ] gputime=[ 1.000 ] cputime=[ 2.000 ] memtransfersize=[ 40960 ] callstackid=[ 0 ] \n");
  std::string csv;
  test::append_csv_line(csv, kernel, layout);
  CHECK(csv == "_Z6vecAddPKfS0_Pfi,7.424,17.288,0.500,,3\n");
  CHECK(column_line(layout_for("memtransfersize\n")) == "method,gputime,cputime,occupancy,memtransfersize");
}

TEST_CASE("the longest line of every column fits the room the writers reserve for it", "[writer]") {
  std::string text = "timestamp\ngpustarttimestamp\ngpuendtimestamp\ngridsize3d\nthreadblocksize\nlocalblocksize\ndynsmemperblock\n"
                     "stasmemperblock\nregperthread\nstreamid\ncacheconfigexecuted\ncacheconfigrequested\ncallstack\n";
  for (const auto& counter : config::legacy_counters()) text.append(counter.name).push_back('\n');
  test::WarningCapture warnings;
  auto cfg = config::parse_profile_config(text, "cfg");
  REQUIRE(warnings.lines().empty());
  const ColumnLayout layout = select_columns(cfg, config::Api::opencl);
  constexpr auto u64 = std::numeric_limits<std::uint64_t>::max();
  constexpr auto u32 = std::numeric_limits<std::uint32_t>::max();
  CounterValues counters;
  counters.values.fill(CounterValue::of(u64));
  Record k;
  k.kind = RecordKind::kernel;
  const std::string line_breaks(300, '\n');
  k.method = line_breaks;
  k.gpu_start_ns = k.gpu_end_ns = k.timestamp_ns = k.gputime_ns = k.cputime_ns = u64;
  k.grid = k.block = {u32, u32, u32};
  k.local_block_size = k.dynamic_smem = k.static_smem = k.registers = u32;
  k.occupancy = -std::numeric_limits<float>::max();
  k.stream_id = u64;
  k.cache_config_executed = k.cache_config_requested = 255;
  k.stack_id = u32;
  k.counter_state = CounterState::measured;
  k.counters = &counters;
  const std::string micros = "18446744073709551.615";
  const std::string u32s = std::to_string(u32);
  std::string expected = "gpustarttimestamp=[ ffffffffffffffff ] gpuendtimestamp=[ ffffffffffffffff ] timestamp=[ " +
                         micros + " ] method=[ ";
  for (int i = 0; i < 300; ++i) expected += "\\n";
  expected += " ] gputime=[ " + micros + " ] cputime=[ " + micros + " ] ndrangesize3d=[ " + u32s + ", " + u32s + ", " +
              u32s + " ] workgroupsize=[ " + u32s + ", " + u32s + ", " + u32s + " ] ";
  for (const char* key : {"localblocksize", "dynsmemperblock", "stapmemperworkgroup", "regperworkitem"}) {
    expected += std::string(key) + "=[ " + u32s + " ] ";
  }
  expected += "occupancy=[ -340282346638528859811704183484516925440.000 ] ";
  expected += "streamid=[ " + std::to_string(u64) + " ] cacheconfigexecuted=[ 255 ] cacheconfigrequested=[ 255 ] ";
  for (const ColumnSpec& spec : layout.columns) {
    if (spec.column == Column::counter) expected += std::string(column_name(spec, layout.api)) + "=[ " + std::to_string(u64) + " ] ";
  }
  expected += "callstackid=[ " + u32s + " ] \n";
  std::string kvp = "before ";
  test::append_kvp_line(kvp, k, layout);
  CHECK(kvp == "before " + expected);
  CHECK(layout.columns.size() == 21 + config::kLegacyCounterCount);
  std::string csv;
  const std::string quotes(300, '"');
  k.method = quotes;
  test::append_csv_line(csv, k, layout);
  std::string expected_csv = "ffffffffffffffff,ffffffffffffffff," + micros + ",\"" + std::string(600, '"') + "\"," + micros +
                             "," + micros;
  for (int i = 0; i < 10; ++i) expected_csv += "," + u32s;
  expected_csv += ",-340282346638528859811704183484516925440.000";
  expected_csv += "," + std::to_string(u64) + ",255,255";
  for (std::size_t i = 0; i < config::kLegacyCounterCount; ++i) expected_csv += "," + std::to_string(u64);
  expected_csv += "," + u32s + "\n";
  CHECK(csv == expected_csv);
}

TEST_CASE("a name is plain unless it holds a character a log escapes or quotes", "[writer]") {
  CHECK(is_plain_name("_Z6vecAddPKfS0_Pfi"));
  CHECK(is_plain_name("void add<float>(float const*, int)") == false);  // the comma
  for (std::string_view bad : {"a\nb", "a\rb", "a\\b", "a,b", "a\"b"}) CHECK_FALSE(is_plain_name(bad));
}

TEST_CASE("a record whose producer checked its name plain is written as one that was not", "[writer]") {
  const auto layout = layout_for("");
  Record checked = sample_kernel();
  checked.method_is_plain = true;
  std::string kvp, csv, kvp_scanned, csv_scanned;
  test::append_kvp_line(kvp, checked, layout);
  test::append_csv_line(csv, checked, layout);
  test::append_kvp_line(kvp_scanned, sample_kernel(), layout);
  test::append_csv_line(csv_scanned, sample_kernel(), layout);
  CHECK(kvp == "method=[ _Z6vecAddPKfS0_Pfi ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] \n");
  CHECK(kvp == kvp_scanned);
  CHECK(csv == "_Z6vecAddPKfS0_Pfi,7.424,17.288,0.500\n");
  CHECK(csv == csv_scanned);
}

TEST_CASE("the writer takes the producer's word: a name checked plain is not scanned again", "[writer]") {
  const auto layout = layout_for("");
  Record r = sample_kernel();
  r.method = "a,b";
  r.method_is_plain = true;
  std::string kvp, csv;
  test::append_kvp_line(kvp, r, layout);
  test::append_csv_line(csv, r, layout);
  CHECK(csv == "a,b,7.424,17.288,0.500\n");  // not quoted: nothing looked
  r.method = "a\\b";
  test::append_kvp_line(kvp, r, layout);
  CHECK(kvp ==
        "method=[ a,b ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] \n"
        "method=[ a\\b ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.500 ] \n");
}
