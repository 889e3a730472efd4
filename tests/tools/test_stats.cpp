// computeprof stats: nvprof's table from logs of both formats and from an exported
// database, every file added into one table; a file that cannot be read is told with
// its name and line, and then no table is printed; a run file's GPU idle table; API calls
// from run files, both databases and JSON traces.
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "catch.hpp"
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "config/report.hpp"
#include "records/range_table.hpp"
#include "runfile/run_encoder.hpp"
#include "runfile/run_header.hpp"
#include "scratch_directory.hpp"
#include "tools/rank_names.hpp"
#include "tools/stats.hpp"
#include "tools/stats_input.hpp"

using computeprof::tools::print_stats;
using Strings = std::vector<std::string>;

namespace {

// What print_stats printed, warned and returned.
struct StatsRun {
  int status = 0;
  std::string table;
  Strings warnings;
};

StatsRun run_stats(const computeprof::tools::StatsOptions& options) {
  StatsRun run;
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  computeprof::config::set_warning_sink(
      [](std::string_view line, void* user) { static_cast<Strings*>(user)->emplace_back(line); }, &run.warnings);
  run.status = print_stats(options, out);
  computeprof::config::set_warning_sink(nullptr, nullptr);
  std::rewind(out);
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, out)) > 0;) run.table.append(buffer, n);
  std::fclose(out);
  return run;
}

StatsRun run_stats(const Strings& paths) {
  computeprof::tools::StatsOptions options;
  options.files = paths;
  return run_stats(options);
}

std::string write_file(const ScratchDirectory& dir, const std::string& name, std::string_view text) {
  const std::string path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// A database made with SQLite's C API from `sql`.
std::string write_database(const ScratchDirectory& dir, const std::string& name, const std::string& sql) {
  const std::string path = dir / name;
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* error = nullptr;
  const int status = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  INFO((error != nullptr ? error : ""));
  sqlite3_free(error);
  sqlite3_close(db);
  REQUIRE(status == SQLITE_OK);
  return path;
}

// One run's operations, split over two ranks' logs as the shim writes them: rank 0 a
// key-value log with GPU timestamps, rank 1 a CSV log. The graph launch timed as a
// whole is no GPU activity of the table.
constexpr std::string_view kRank0KeyValueLog =
    "# CUDA_PROFILE_LOG_VERSION 2.0\n"
    "# CUDA_DEVICE 0 NVIDIA H100 80GB HBM3\n"
    "# CUDA_CONTEXT 1\n"
    "# TIMESTAMPFACTOR 17d5b4a1c0e00000\n"
    "gpustarttimestamp,method,gputime,cputime,occupancy,streamid\n"
    "gpustarttimestamp=[ 17d5b4a1c0e10000 ] method=[ _Z4spiny ] gputime=[ 30000.000 ] cputime=[ 30012.500 ] "
    "occupancy=[ 1.000 ] streamid=[ 7 ] \n"
    "gpustarttimestamp=[ 17d5b4a1c2c00000 ] method=[ memcpyHtoD ] gputime=[ 4.350 ] cputime=[ 9.000 ] "
    "streamid=[ 7 ] \n"
    "gpustarttimestamp=[ 17d5b4a1c2d00000 ] method=[ memset ] gputime=[ 0.992 ] cputime=[ 3.000 ] "
    "streamid=[ 7 ] \n";

constexpr std::string_view kRank1CsvLog =
    "# CUDA_PROFILE_LOG_VERSION 2.0\n"
    "# CUDA_DEVICE 1 NVIDIA H100 80GB HBM3\n"
    "# CUDA_CONTEXT 1\n"
    "# CUDA_PROFILE_CSV 1\n"
    "method,gputime,cputime,occupancy\n"
    "_Z4spiny,20000.000,20010.000,1.000\n"
    "memcpyHtoDasync,5.147,7.000,\n"
    "_Z5scaleIfLi3EEvPfi,3.000,4.000,0.500\n"
    "graphLaunch,1000.000,1001.000,\n";

// The same operations as an export: only the columns stats reads (docs/format.md,
// "SQLite database"); copyKind 1 is nsys's host to device.
constexpr std::string_view kExportSql =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, mangledName INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "copyKind INTEGER NOT NULL);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL);"
    "INSERT INTO StringIds VALUES (1, '_Z4spiny'), (2, '_Z5scaleIfLi3EEvPfi');"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 30001000, 1), (40000000, 60000000, 1), "
    "(60001000, 60004000, 2);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (30002000, 30006350, 1), (60005000, 60010147, 1);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (30007000, 30007992);";

const std::string kRunTable =
    "Profiling result:\n"
    "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
    " GPU activities:   99.97%  50.000ms         2  25.000ms  20.000ms  30.000ms  spin(unsigned long long)\n"
    "                    0.02%  9.4970us         2  4.7480us  4.3500us  5.1470us  [CUDA memcpy HtoD]\n"
    "                    0.01%  3.0000us         1  3.0000us  3.0000us  3.0000us  void scale<float, 3>(float*, int)\n"
    "                    0.00%     992ns         1     992ns     992ns     992ns  [CUDA memset]\n";

}  // namespace

TEST_CASE("stats adds a key-value log and a CSV log into one table", "[stats]") {
  const ScratchDirectory dir;
  const StatsRun run =
      run_stats({write_file(dir, "rank0.log", kRank0KeyValueLog), write_file(dir, "rank1.csv", kRank1CsvLog)});
  CHECK(run.warnings.empty());
  CHECK(run.status == 0);
  CHECK(run.table == kRunTable);
}

TEST_CASE("stats gives a database the table of the same run's logs", "[stats]") {
  const ScratchDirectory dir;
  const StatsRun run = run_stats({write_database(dir, "run.sqlite", std::string(kExportSql))});
  CHECK(run.warnings.empty());
  CHECK(run.status == 0);
  CHECK(run.table == kRunTable);
}

TEST_CASE("stats tells every file it cannot read and prints no table", "[stats]") {
  const ScratchDirectory dir;
  const std::string good = write_file(dir, "good.log", kRank0KeyValueLog);
  const std::string missing = dir / "missing.log";
  const std::string bad_log = write_file(dir, "bad.csv",
                                         "# CUDA_PROFILE_LOG_VERSION 2.0\n# CUDA_PROFILE_CSV 1\nmethod,gputime\n"
                                         "_Z4spiny,1.000\n_Z4spiny,1.5\n");
  const std::string no_memsets = write_database(dir, "old.sqlite",
                                                "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                                                "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, mangledName);"
                                                "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, copyKind);");
  const std::string unified_copy = write_database(
      dir, "uvm.sqlite",
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, mangledName);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, copyKind);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (0, 10, 11);");
  const StatsRun run = run_stats({good, missing, bad_log, no_memsets, unified_copy});
  CHECK(run.status == 1);
  CHECK(run.table.empty());
  CHECK(run.warnings == Strings{
                           "cannot read '" + missing + "': No such file or directory",
                           bad_log + ":5: gputime '1.5' is not microseconds with three decimals",
                           no_memsets + ": no such table: CUPTI_ACTIVITY_KIND_MEMSET",
                           unified_copy + ": CUPTI_ACTIVITY_KIND_MEMCPY: a row whose name or copyKind is not one "
                                          "computeprof writes",
                       });
}

namespace {

// A CSV log of `spins` spins of `spin_us` and `adds` vecAdds of `add_us`.
std::string rank_log(int spins, int spin_us, int adds, int add_us) {
  std::string log = "# CUDA_PROFILE_LOG_VERSION 2.0\n# CUDA_PROFILE_CSV 1\nmethod,gputime\n";
  for (int i = 0; i < spins; ++i) log += "_Z4spiny," + std::to_string(spin_us) + ".000\n";
  for (int i = 0; i < adds; ++i) log += "_Z6vecAddPKfS0_Pfi," + std::to_string(add_us) + ".000\n";
  return log;
}

computeprof::tools::StatsOptions ranks_of(const Strings& files) {
  computeprof::tools::StatsOptions options;
  options.mode = computeprof::tools::StatsOptions::Mode::ranks;
  options.files = files;
  return options;
}

}  // namespace

TEST_CASE("stats --ranks: the straggler's kernels that make its difference, largest first", "[stats]") {
  const ScratchDirectory dir;
  Strings files;
  // Rank 2: its vecAdds 3 us longer each (4 of them: 12 us), its spins 1 us (2: 2 us);
  // rank 3 misses a vecAdd.
  for (int rank = 0; rank < 5; ++rank) {
    const std::string log = rank == 2 ? rank_log(2, 11, 4, 8) : rank_log(2, 10, rank == 3 ? 3 : 4, 5);
    files.push_back(write_file(dir, "job.rank" + std::to_string(rank) + ".csv", log));
  }
  const StatsRun run = run_stats(ranks_of(files));
  CHECK(run.warnings.empty());
  CHECK(run.status == 0);
  CHECK(run.table ==
        "Ranks (5):\n"
        "Rank  Files  GPU time  vs median\n"
        "0         1  40.000us     +0.00%\n"
        "1         1  40.000us     +0.00%\n"
        "2         1  54.000us    +35.00%\n"
        "3         1  35.000us    -12.50%\n"
        "4         1  40.000us     +0.00%\n"
        "GPU activities by rank:\n"
        "Calls min  Calls median  Calls max  Time min  Time median  Time max      CV  Slowest  Name\n"
        "        3             4          4  15.000us     20.000us  32.000us  26.37%  2        "
        "vecAdd(float const*, float const*, float*, int)\n"
        "        2             2          2  20.000us     20.000us  22.000us   3.92%  2        spin(unsigned long long)\n"
        "Stragglers (GPU time more than 10% above the median rank's 40.000us):\n"
        "Rank  GPU time  vs median  Kernel time  Kernel median  Difference  Name\n"
        "2     54.000us    +35.00%     32.000us       20.000us    12.000us  vecAdd(float const*, float const*, float*, int)\n"
        "2     54.000us    +35.00%     22.000us       20.000us    2.0000us  spin(unsigned long long)\n");
}

TEST_CASE("stats --ranks: a malformed file is one warning, the other files are still counted", "[stats]") {
  const ScratchDirectory dir;
  const std::string good0 = write_file(dir, "rank0.csv", rank_log(1, 10, 0, 0));
  const std::string bad = write_file(dir, "rank1.csv", rank_log(1, 10, 0, 0) + "_Z4spiny,oops\n");
  const std::string good2 = write_file(dir, "rank2.csv", rank_log(1, 30, 0, 0));
  const StatsRun run = run_stats(ranks_of({good0, bad, good2}));
  CHECK(run.status == 1);
  CHECK(run.warnings == Strings{bad + ":5: gputime 'oops' is not microseconds with three decimals"});
  CHECK(run.table.starts_with("Ranks (2):\n"
                              "Rank  Files  GPU time  vs median\n"
                              "0         1  10.000us     +0.00%\n"
                              "2         1  30.000us   +200.00%\n"));
}

TEST_CASE("stats --ranks: a rank's files add up, a rank is its recorded number, its name's, or its file", "[stats]") {
  using computeprof::tools::name_ranks;
  using computeprof::tools::RankName;
  using Recorded = std::vector<std::optional<std::uint64_t>>;
  // "rank" and its number, in any case, with at most one separator.
  CHECK(name_ranks({"/a/RANK_7.log", "out.rank-12.csv", "rank=3", "x/rank5"}, Recorded(4)) ==
        std::vector<RankName>{{7, ""}, {12, ""}, {3, ""}, {5, ""}});
  // Names alike but for one run of digits (%q{OMPI_COMM_WORLD_RANK}): that run.
  CHECK(name_ranks({"d/host1_run_0.log", "d/host1_run_10.log", "e/host1_run_2.log"}, Recorded(3)) ==
        std::vector<RankName>{{0, ""}, {10, ""}, {2, ""}});
  // Two runs that differ (a %p besides), other text, a single file: the file.
  CHECK(name_ranks({"p100_0.log", "p200_1.log"}, Recorded(2)) ==
        std::vector<RankName>{{std::nullopt, "p100_0.log"}, {std::nullopt, "p200_1.log"}});
  CHECK(name_ranks({"a_0.log", "b_1.csv"}, Recorded(2)) ==
        std::vector<RankName>{{std::nullopt, "a_0.log"}, {std::nullopt, "b_1.csv"}});
  CHECK(name_ranks({"run_3.log"}, Recorded(1)) == std::vector<RankName>{{std::nullopt, "run_3.log"}});
  // What a file records comes first.
  CHECK(name_ranks({"rank_3.json", "rank_4.json"}, Recorded{9, std::nullopt}) ==
        std::vector<RankName>{{9, ""}, {4, ""}});

  const ScratchDirectory dir;
  const StatsRun run = run_stats(ranks_of({write_file(dir, "rank1_device0.csv", rank_log(1, 10, 0, 0)),
                                           write_file(dir, "rank1_device1.csv", rank_log(1, 10, 0, 0)),
                                           write_file(dir, "other.csv", rank_log(1, 20, 0, 0))}));
  CHECK(run.status == 0);
  const std::string other = dir / "other.csv";
  CHECK(run.table.starts_with(fmt::format("Ranks (2):\n"
                                          "{:<{}}  Files  GPU time  vs median\n"
                                          "{:<{}}      2  20.000us     +0.00%\n"
                                          "{}      1  20.000us     +0.00%\n",
                                          "Rank", other.size(), "1", other.size(), other)));
}

TEST_CASE("stats: SQLite's message quoting a database's own schema is one escaped line", "[stats]") {
  const ScratchDirectory dir;
  // An index row whose name holds a line break and whose table does not exist: SQLite's
  // message quotes the name (the fuzzer found such a file).
  const std::string path = write_database(
      dir, "orphan.sqlite",
      "CREATE TABLE t (a); PRAGMA writable_schema=ON;"
      "INSERT INTO sqlite_master VALUES ('index', 'bad\nname', 'missing', 2, 'CREATE INDEX x ON missing(a)');");
  computeprof::tools::StatsInput input;
  CHECK(computeprof::tools::read_stats_input(path, input) ==
        path + ": malformed database schema (bad\\nname) - no such table: main.missing");
}

TEST_CASE("stats reads a database read-only: one a killed process left with its journal is refused", "[stats]") {
  const ScratchDirectory dir;
  const std::string path = write_database(dir, "killed.sqlite", std::string(kExportSql));
  // A child writes a transaction larger than its page cache, so that pages reach the
  // file and the journal holds what they were, then dies without committing.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) _exit(1);
    sqlite3_exec(db, "PRAGMA journal_mode=TRUNCATE; PRAGMA cache_size=10; BEGIN", nullptr, nullptr, nullptr);
    for (int i = 0; i < 20000; ++i) {
      sqlite3_exec(db, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (0, 1)", nullptr, nullptr, nullptr);
    }
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  const std::string journal = path + "-journal";
  std::ifstream journal_file(journal, std::ios::binary | std::ios::ate);
  REQUIRE(journal_file.tellg() > 0);
  const auto before = std::ifstream(path, std::ios::binary | std::ios::ate).tellg();

  const StatsRun run = run_stats({path});
  CHECK(run.status == 1);
  CHECK(run.warnings == Strings{path + ": its journal (left by a process killed while writing it) must be rolled "
                                       "back before it is read: open it once with sqlite3"});
  // Nothing was written: the file and its journal are as the child left them.
  CHECK(std::ifstream(path, std::ios::binary | std::ios::ate).tellg() == before);
  CHECK(std::ifstream(journal, std::ios::binary | std::ios::ate).tellg() == journal_file.tellg());
}

TEST_CASE("stats --ranks: NVTX ranges by rank from databases, as CSV", "[stats]") {
  const ScratchDirectory dir;
  // Each rank: range "step" around both spins, "forward" around the first only; rank 1's
  // first spin is 30 ms longer. The coefficients of variation of (a, a, b): the standard
  // deviation sqrt(2/9) (b - a) over the mean (2a + b) / 3, 14142135.6 ns over 10030000
  // and over 10020000 ns.
  const auto database = [&](const std::string& name, int first_spin_end) {
    return write_database(
        dir, name,
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, mangledName, correlationId);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, copyKind, correlationId);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start, end, correlationId);"
        "CREATE TABLE NVTX_EVENTS (start, end, eventType, text, domainId);"
        "CREATE TABLE COMPUTEPROF_NVTX_RANGES (correlationId, pathId);"
        "INSERT INTO StringIds VALUES (1, '_Z4spiny'), (2, 'step/forward'), (3, 'step');"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, " + std::to_string(first_spin_end) +
            ", 1, 1), (0, 10000, 1, 2);"
            "INSERT INTO NVTX_EVENTS VALUES (0, 90000000, 59, 'step', NULL), (0, 60000000, 59, 'forward', NULL);"
            "INSERT INTO COMPUTEPROF_NVTX_RANGES VALUES (1, 2), (2, 3);");
  };
  computeprof::tools::StatsOptions options = ranks_of(
      {database("rank_0.sqlite", 20000), database("rank_1.sqlite", 30020000), database("rank_2.sqlite", 20000)});
  options.format = computeprof::reports::TableFormat::csv;
  const StatsRun run = run_stats(options);
  CHECK(run.warnings.empty());
  CHECK(run.status == 0);
  CHECK(run.table ==
        "rank,files,time_ns,over_median_percent\n"
        "0,1,30000,0.00\n"
        "1,1,30030000,100000.00\n"
        "2,1,30000,0.00\n"
        "\n"
        "calls_min,calls_median,calls_max,time_min_ns,time_median_ns,time_max_ns,time_cv,slowest_rank,name\n"
        "2,2,2,30000,30000,30030000,1.409984,1,spin(unsigned long long)\n"
        "\n"
        "calls_min,calls_median,calls_max,time_min_ns,time_median_ns,time_max_ns,time_cv,slowest_rank,name\n"
        "1,1,1,30000,30000,30030000,1.409984,1,step\n"
        "1,1,1,20000,20000,30020000,1.411391,1,forward\n"
        "\n"
        "rank,rank_time_ns,over_median_percent,time_ns,median_ns,difference_ns,name\n"
        "1,30030000,100000.00,30030000,30000,30000000,spin(unsigned long long)\n");
}

namespace {

// A run file of known waits (times in us from the context's origin): thread 100 on device
// 0 launches a 2 ms kernel and synchronizes its stream 15 us past its end, sleeps,
// launches a 1 ms kernel, records an event and synchronizes it 10 us past the kernel's
// end, copies from pageable memory (500 us of its call before the GPU starts it), then
// launches a kernel whose 20 us launch outlasts the 10 us gap before it. Thread 200 on
// device 1 runs two kernels 2 ms apart and calls nothing; device 2 runs one kernel.
std::string idle_run_file() {
  constexpr std::uint64_t origin = 1'700'000'000'000'000'000ULL;
  const auto us = [](std::uint64_t n) { return n * 1'000; };
  computeprof::records::RangeTable ranges;
  computeprof::runfile::RunEncoder encoder(ranges, nullptr);
  computeprof::runfile::RunHeader header;
  header.pid = 77;
  header.program = "waits";
  std::string file = computeprof::runfile::encode_header(header);
  computeprof::records::ContextInfo device0, device1, device2;
  device0.number = 1;
  device1.number = 2;
  device1.device = 1;
  device2.number = 3;
  device2.device = 2;
  device0.origin = device1.origin = device2.origin = {0, origin};
  const auto operation = [&](const computeprof::records::ContextInfo& context, std::uint32_t thread,
                             std::uint64_t call_start, std::uint64_t call_end, std::uint64_t gpu_start,
                             std::uint64_t gpu_end, bool pageable_copy) {
    computeprof::records::Record r;
    r.kind = pageable_copy ? computeprof::records::RecordKind::memcpy : computeprof::records::RecordKind::kernel;
    r.method = pageable_copy ? "memcpyHtoD" : "_Z4spiny";
    r.api = pageable_copy ? "cuMemcpyHtoD_v2" : "cuLaunchKernel";
    if (pageable_copy) r.host_mem_type = computeprof::records::HostMemType::pageable;
    r.timestamp_ns = us(call_start);
    r.cputime_ns = us(call_end - call_start);
    r.gpu_start_ns = origin + us(gpu_start);
    r.gpu_end_ns = origin + us(gpu_end);
    r.gputime_ns = us(gpu_end - gpu_start);
    r.thread_id = thread;
    encoder.operation(context, r);
  };
  const auto call = [&](std::string_view name, computeprof::records::ApiCallKind kind, std::uint64_t start,
                        std::uint64_t end) {
    computeprof::records::ApiCall c;
    c.name = name;
    c.kind = kind;
    c.start_ns = origin + us(start);
    c.end_ns = origin + us(end);
    c.thread_id = 100;
    c.context = 1;
    encoder.api_call(c);
  };
  using Kind = computeprof::records::ApiCallKind;
  operation(device0, 100, 0, 10, 20, 2'020, false);
  call("cuStreamSynchronize", Kind::stream_synchronize, 10, 2'035);
  operation(device0, 100, 7'030, 7'040, 7'050, 8'050, false);
  call("cuEventRecord", Kind::event_record, 7'050, 7'055);
  call("cuEventSynchronize", Kind::event_synchronize, 7'055, 8'060);
  operation(device0, 100, 8'060, 9'060, 8'560, 9'060, true);
  operation(device0, 100, 9'060, 9'080, 9'070, 9'170, false);
  operation(device1, 200, 0, 10, 0, 1'000, false);
  operation(device1, 200, 2'990, 3'000, 3'000, 4'000, false);
  operation(device2, 300, 0, 10, 0, 1'000, false);
  encoder.end();
  file += encoder.take_chunk();
  return file;
}

}  // namespace

TEST_CASE("stats: a run file's GPU idle table puts each known wait down to its cause, exactly", "[stats][gpu_idle]") {
  const ScratchDirectory dir;
  computeprof::tools::StatsOptions options;
  options.files = {write_file(dir, "waits.cprof", idle_run_file())};
  // Device 0: gaps of 5030 us (15 synchronizing, the rest the sleep's), 510 us (10
  // synchronizing, 500 in the pageable copy's call) and 10 us (launch-bound).
  const StatsRun text = run_stats(options);
  CHECK(text.warnings.empty());
  CHECK(text.status == 0);
  const std::size_t idle = text.table.find("GPU idle (device 0)");
  REQUIRE(idle != std::string::npos);
  CHECK(text.table.substr(idle) ==
        "GPU idle (device 0): 60.66% of 9.1500ms, 3 gaps\n"
        "Cause                Time(%)      Time   Gaps  Detail\n"
        "host (no CUDA call)   90.36%  5.0150ms      1\n"
        "pageable copy          9.01%  500.00us      1\n"
        "synchronization        0.45%  25.000us      2  cuStreamSynchronize (thread 100)\n"
        "launch-bound           0.18%  10.000us      1\n"
        "GPU idle (device 1): 50.00% of 4.0000ms, 1 gap\n"
        "Cause                Time(%)      Time   Gaps  Detail\n"
        "host (no CUDA call)  100.00%  2.0000ms      1\n"
        "GPU idle (device 2): 0.00% of 1.0000ms, 0 gaps\n");

  options.format = computeprof::reports::TableFormat::csv;
  const StatsRun csv = run_stats(options);
  CHECK(csv.status == 0);
  const std::size_t table = csv.table.find("device,");
  REQUIRE(table != std::string::npos);
  CHECK(csv.table.substr(table) ==
        "device,span_ns,idle_ns,idle_percent,gaps,cause,time_percent,time_ns,cause_gaps,detail\n"
        "0,9150000,5550000,60.66,3,host (no CUDA call),90.36,5015000,1,\n"
        "0,9150000,5550000,60.66,3,pageable copy,9.01,500000,1,\n"
        "0,9150000,5550000,60.66,3,synchronization,0.45,25000,2,cuStreamSynchronize (thread 100)\n"
        "0,9150000,5550000,60.66,3,launch-bound,0.18,10000,1,\n"
        "1,4000000,2000000,50.00,1,host (no CUDA call),100.00,2000000,1,\n"
        "2,1000000,0,0.00,0,,,,,\n");

  options.format = computeprof::reports::TableFormat::json;
  const StatsRun json = run_stats(options);
  CHECK(json.status == 0);
  const std::size_t member = json.table.find("\"gpu_idle\":");
  REQUIRE(member != std::string::npos);
  CHECK(json.table.substr(member).starts_with(
      "\"gpu_idle\":[\n"
      "{\"device\":0,\"span_ns\":9150000,\"idle_ns\":5550000,\"idle_percent\":60.66,\"gaps\":3,"
      "\"cause\":\"host (no CUDA call)\",\"time_percent\":90.36,\"time_ns\":5015000,\"cause_gaps\":1,"
      "\"detail\":\"\"}"));
}

namespace {

// A run file whose thread launches two kernels (calls of 10 and 30 us), a graph of two
// kernel nodes (one call of 50 us), copies (a call of 200 us), synchronizes its stream
// twice (1 ms; 500 us, failing with 700) and records an event (2 us). Every kernel runs
// 100 us, the copy 50 us.
std::string api_run_file() {
  constexpr std::uint64_t origin = 1'700'000'000'000'000'000ULL;
  const auto us = [](std::uint64_t n) { return n * 1'000; };
  computeprof::records::RangeTable ranges;
  computeprof::runfile::RunEncoder encoder(ranges, nullptr);
  computeprof::runfile::RunHeader header;
  header.pid = 78;
  header.program = "calls";
  std::string file = computeprof::runfile::encode_header(header);
  computeprof::records::ContextInfo device0;
  device0.number = 1;
  device0.origin = {0, origin};
  std::uint64_t at = 0;  // us: each call after the one before
  const auto operation = [&](std::string_view api, std::uint64_t correlation, std::uint64_t call_us, bool copy) {
    computeprof::records::Record r;
    r.kind = copy ? computeprof::records::RecordKind::memcpy : computeprof::records::RecordKind::kernel;
    r.method = copy ? "memcpyHtoD" : "_Z4spiny";
    r.api = api;
    r.correlation_id = correlation;
    r.timestamp_ns = us(at);
    r.cputime_ns = us(call_us);
    r.gpu_start_ns = origin + us(at + call_us);
    r.gputime_ns = us(copy ? 50 : 100);
    r.gpu_end_ns = r.gpu_start_ns + r.gputime_ns;
    r.thread_id = 100;
    encoder.operation(device0, r);
  };
  const auto call = [&](std::string_view name, computeprof::records::ApiCallKind kind, std::uint64_t correlation,
                        std::uint64_t call_us, std::int32_t result) {
    computeprof::records::ApiCall c;
    c.name = name;
    c.kind = kind;
    c.correlation_id = correlation;
    c.start_ns = origin + us(at);
    c.end_ns = c.start_ns + us(call_us);
    c.result = result;
    c.thread_id = 100;
    c.context = 1;
    encoder.api_call(c);
    at += call_us;
  };
  using Kind = computeprof::records::ApiCallKind;
  operation("cuLaunchKernel", 1, 10, false);
  at += 200;
  operation("cuLaunchKernel", 2, 30, false);
  at += 200;
  operation("cuGraphLaunch", 3, 50, false);
  operation("cuGraphLaunch", 3, 50, false);
  at += 200;
  operation("cuMemcpyHtoD_v2", 4, 200, true);
  at += 300;
  call("cuStreamSynchronize", Kind::stream_synchronize, 5, 1'000, 0);
  call("cuStreamSynchronize", Kind::stream_synchronize, 6, 500, 700);
  call("cuEventRecord", Kind::event_record, 7, 2, 0);
  encoder.end();
  file += encoder.take_chunk();
  return file;
}

const std::string kCallsGpuActivities =
    "Profiling result:\n"
    "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
    " GPU activities:   88.89%  400.00us         4  100.00us  100.00us  100.00us  spin(unsigned long long)\n"
    "                   11.11%  50.000us         1  50.000us  50.000us  50.000us  [CUDA memcpy HtoD]\n";

}  // namespace

TEST_CASE("stats: a run file's API calls, traced and those that made operations, in nvprof's table and as CSV and JSON",
          "[stats][api_calls]") {
  const ScratchDirectory dir;
  computeprof::tools::StatsOptions options;
  options.files = {write_file(dir, "calls.cprof", api_run_file())};
  const StatsRun text = run_stats(options);
  CHECK(text.warnings.empty());
  CHECK(text.status == 0);
  // The idle table follows: the run traced calls.
  const std::size_t idle = text.table.find("GPU idle (device 0)");
  REQUIRE(idle != std::string::npos);
  CHECK(text.table.substr(0, idle) ==
        kCallsGpuActivities +
            "      API calls:   83.71%  1.5000ms         2  750.00us  500.00us  1.0000ms  cuStreamSynchronize\n"
            "                   11.16%  200.00us         1  200.00us  200.00us  200.00us  cuMemcpyHtoD_v2\n"
            "                    2.79%  50.000us         1  50.000us  50.000us  50.000us  cuGraphLaunch\n"
            "                    2.23%  40.000us         2  20.000us  10.000us  30.000us  cuLaunchKernel\n"
            "                    0.11%  2.0000us         1  2.0000us  2.0000us  2.0000us  cuEventRecord\n");

  options.format = computeprof::reports::TableFormat::csv;
  const StatsRun csv = run_stats(options);
  CHECK(csv.status == 0);
  const std::size_t table = csv.table.find("\n\ntime_percent,");
  REQUIRE(table != std::string::npos);
  CHECK(csv.table.substr(table + 2, csv.table.find("\n\n", table + 2) - table - 1) ==
        "time_percent,time_ns,calls,avg_ns,min_ns,max_ns,errors,name\n"
        "83.71,1500000,2,750000,500000,1000000,1,cuStreamSynchronize\n"
        "11.16,200000,1,200000,200000,200000,0,cuMemcpyHtoD_v2\n"
        "2.79,50000,1,50000,50000,50000,0,cuGraphLaunch\n"
        "2.23,40000,2,20000,10000,30000,0,cuLaunchKernel\n"
        "0.11,2000,1,2000,2000,2000,0,cuEventRecord\n");

  options.format = computeprof::reports::TableFormat::json;
  const StatsRun json = run_stats(options);
  CHECK(json.status == 0);
  const std::size_t member = json.table.find("\"api_calls\":");
  REQUIRE(member != std::string::npos);
  CHECK(json.table.substr(member, json.table.find(']', member) + 1 - member) ==
        "\"api_calls\":[\n"
        "{\"time_percent\":83.71,\"time_ns\":1500000,\"calls\":2,\"avg_ns\":750000,\"min_ns\":500000,"
        "\"max_ns\":1000000,\"errors\":1,\"name\":\"cuStreamSynchronize\"},\n"
        "{\"time_percent\":11.16,\"time_ns\":200000,\"calls\":1,\"avg_ns\":200000,\"min_ns\":200000,"
        "\"max_ns\":200000,\"errors\":0,\"name\":\"cuMemcpyHtoD_v2\"},\n"
        "{\"time_percent\":2.79,\"time_ns\":50000,\"calls\":1,\"avg_ns\":50000,\"min_ns\":50000,"
        "\"max_ns\":50000,\"errors\":0,\"name\":\"cuGraphLaunch\"},\n"
        "{\"time_percent\":2.23,\"time_ns\":40000,\"calls\":2,\"avg_ns\":20000,\"min_ns\":10000,"
        "\"max_ns\":30000,\"errors\":0,\"name\":\"cuLaunchKernel\"},\n"
        "{\"time_percent\":0.11,\"time_ns\":2000,\"calls\":1,\"avg_ns\":2000,\"min_ns\":2000,"
        "\"max_ns\":2000,\"errors\":0,\"name\":\"cuEventRecord\"}]");
}

TEST_CASE("stats: the same calls from an nsys-shaped and an nvprof database, and none from a log",
          "[stats][api_calls]") {
  const ScratchDirectory dir;
  // The run file's operations and calls (api_run_file) as the exports write them: a
  // call row per correlation id, the failed synchronization's returnValue.
  const std::string nsys = write_database(
      dir, "calls.sqlite",
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, mangledName);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, copyKind);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start, end);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start, end, nameId, returnValue);"
      "INSERT INTO StringIds VALUES (1, '_Z4spiny'), (2, 'cuLaunchKernel'), (3, 'cuGraphLaunch'), "
      "(4, 'cuMemcpyHtoD_v2'), (5, 'cuStreamSynchronize'), (6, 'cuEventRecord');"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10000, 110000, 1), (240000, 340000, 1), "
      "(490000, 590000, 1), (490000, 590000, 1);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (940000, 990000, 1);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (0, 10000, 2, 0), (210000, 240000, 2, 0), "
      "(440000, 490000, 3, 0), (740000, 940000, 4, 0), (1240000, 2240000, 5, 0), (2240000, 2740000, 5, 700), "
      "(2740000, 2742000, 6, 0);");
  const StatsRun from_nsys = run_stats({nsys});
  CHECK(from_nsys.warnings.empty());
  CHECK(from_nsys.table ==
        kCallsGpuActivities +
            "      API calls:   83.71%  1.5000ms         2  750.00us  500.00us  1.0000ms  cuStreamSynchronize\n"
            "                   11.16%  200.00us         1  200.00us  200.00us  200.00us  cuMemcpyHtoD_v2\n"
            "                    2.79%  50.000us         1  50.000us  50.000us  50.000us  cuGraphLaunch\n"
            "                    2.23%  40.000us         2  20.000us  10.000us  30.000us  cuLaunchKernel\n"
            "                    0.11%  2.0000us         1  2.0000us  2.0000us  2.0000us  cuEventRecord\n");

  // nvprof's: DRIVER rows by CUPTI's callback ids (307 cuLaunchKernel, 514 cuGraphLaunch,
  // 276 cuMemcpyHtoD_v2, 126 cuStreamSynchronize, 119 cuEventRecord), named as nvprof
  // printed them; a RUNTIME row (131 cudaStreamSynchronize) adds its own.
  const std::string nvprof = write_database(
      dir, "calls.nvvp",
      "CREATE TABLE StringTable (_id_ INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (start, end, name);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, copyKind);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY2 (start, end, copyKind);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start, end);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (cbid, start, end, returnValue);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER (cbid, start, end, returnValue);"
      "INSERT INTO StringTable VALUES (1, '_Z4spiny');"
      "INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL VALUES (10000, 110000, 1), (240000, 340000, 1), "
      "(490000, 590000, 1), (490000, 590000, 1);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (940000, 990000, 1);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER VALUES (307, 0, 10000, 0), (307, 210000, 240000, 0), "
      "(514, 440000, 490000, 0), (276, 740000, 940000, 0), (126, 1240000, 2240000, 0), (126, 2240000, 2740000, 700), "
      "(119, 2740000, 2742000, 0);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (131, 3000000, 3000500, 0);");
  const StatsRun from_nvprof = run_stats({nvprof});
  CHECK(from_nvprof.warnings.empty());
  CHECK(from_nvprof.table ==
        kCallsGpuActivities +
            "      API calls:   83.68%  1.5000ms         2  750.00us  500.00us  1.0000ms  cuStreamSynchronize\n"
            "                   11.16%  200.00us         1  200.00us  200.00us  200.00us  cuMemcpyHtoD\n"
            "                    2.79%  50.000us         1  50.000us  50.000us  50.000us  cuGraphLaunch\n"
            "                    2.23%  40.000us         2  20.000us  10.000us  30.000us  cuLaunchKernel\n"
            "                    0.11%  2.0000us         1  2.0000us  2.0000us  2.0000us  cuEventRecord\n"
            "                    0.03%     500ns         1     500ns     500ns     500ns  cudaStreamSynchronize\n");

  // A call whose callback id computeprof does not write is the database's one warning.
  const std::string unknown = write_database(
      dir, "unknown.nvvp",
      "CREATE TABLE StringTable (_id_ INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (start, end, name);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start, end, copyKind);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY2 (start, end, copyKind);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start, end);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (cbid, start, end, returnValue);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER (cbid, start, end, returnValue);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER VALUES (99999, 0, 10, 0);");
  const StatsRun from_unknown = run_stats({unknown});
  CHECK(from_unknown.status == 1);
  CHECK(from_unknown.warnings ==
        Strings{unknown + ": CUPTI_ACTIVITY_KIND_DRIVER: a row whose name is not one computeprof writes"});

  // A log holds no call: no API rows.
  const StatsRun from_log = run_stats({write_file(dir, "rank0.log", kRank0KeyValueLog)});
  CHECK(from_log.table.find("API calls") == std::string::npos);
}

TEST_CASE("stats: a JSON trace's calls, its host events and traced calls, failed where their result is not 0",
          "[stats][api_calls]") {
  const ScratchDirectory dir;
  // As the trace writes them: a launch's host event beside its kernel, a traced call's
  // complete event with its result; a runtime call in its own category.
  const std::string trace = write_file(
      dir, "calls.json",
      "{\"traceEvents\":[\n"
      "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\",\"pid\":1,\"tid\":2,\"ts\":10.000,"
      "\"dur\":12.345,\"args\":{\"correlation\":1}},\n"
      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"spin\",\"pid\":3,\"tid\":7,\"ts\":30.000,\"dur\":100.000,"
      "\"args\":{\"method\":\"_Z4spiny\",\"correlation\":1}},\n"
      "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuStreamSynchronize\",\"pid\":1,\"tid\":2,\"ts\":23.000,"
      "\"dur\":107.001,\"args\":{\"correlation\":2,\"result\":0,\"kind\":\"stream_synchronize\"}},\n"
      "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuStreamSynchronize\",\"pid\":1,\"tid\":2,\"ts\":131.000,"
      "\"dur\":0.999,\"args\":{\"correlation\":3,\"result\":400,\"kind\":\"stream_synchronize\"}},\n"
      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"pid\":1,\"tid\":2,\"ts\":140.000,"
      "\"dur\":2.000,\"args\":{\"correlation\":4,\"result\":0}}\n"
      "]}\n");
  computeprof::tools::StatsOptions options;
  options.files = {trace};
  options.format = computeprof::reports::TableFormat::csv;
  const StatsRun csv = run_stats(options);
  CHECK(csv.warnings.empty());
  CHECK(csv.status == 0);
  CHECK(csv.table ==
        "time_percent,time_ns,calls,avg_ns,min_ns,max_ns,name\n"
        "100.00,100000,1,100000,100000,100000,spin(unsigned long long)\n"
        "\n"
        "time_percent,time_ns,calls,avg_ns,min_ns,max_ns,errors,name\n"
        "88.27,108000,2,54000,999,107001,1,cuStreamSynchronize\n"
        "10.09,12345,1,12345,12345,12345,0,cuLaunchKernel\n"
        "1.63,2000,1,2000,2000,2000,0,cudaDeviceSynchronize\n");
}
