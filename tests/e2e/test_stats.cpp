// computeprof stats on what the shim wrote: the log (key-value and CSV) and the database
// of one run give the table the shim printed at its exit (the log without its API rows),
// and the logs of two runs add up; 64 ranks of one job, one of them slowed, give its
// straggler; --compare's exit status.
#include <sys/wait.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"

#include "e2e_support.hpp"

using namespace e2e;

namespace {

// `text` up to its GPU idle table: the summary at exit and a run file's stats have one
// where API calls were traced, a log's and a database's stats none (they hold no call).
std::string before_idle_table(const std::string& text) {
  const std::size_t idle = text.find("GPU idle (device ");
  return idle == std::string::npos ? text : text.substr(0, text.rfind('\n', idle) + 1);
}

// `table` without its API rows (the "API calls:" row and those under it): a log holds no
// call.
std::string without_api_rows(const std::string& table) {
  const std::size_t api = table.find("\n      API calls:");
  if (api == std::string::npos) return table;
  std::size_t end = api + 1;
  do {
    end = table.find('\n', end) + 1;
  } while (end < table.size() && table.compare(end, 16, std::string(16, ' ')) == 0);
  return table.substr(0, api + 1) + table.substr(end);
}

// The shim's summary on stderr without its "==<pid>== " prefix: what stats prints.
std::string summary_without_prefix(const std::string& err) {
  const std::size_t start = err.find("== Profiling result:\n");
  REQUIRE(start != std::string::npos);
  return before_idle_table(err.substr(start + 3));
}

RunResult stats(const std::vector<std::string>& files) {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.preload_shim = false;
  o.argv = {COMPUTEPROF_CLI_PATH, "stats"};
  o.argv.insert(o.argv.end(), files.begin(), files.end());
  return e2e::run(o);
}

// `read_stats_tables.py KIND FILE`'s output: every row of every table as Python read it.
std::string read_back(const std::string& kind, const std::string& path) {
  const CommandOutput r =
      command_output(std::string(PYTHON3_PATH) + " " + READ_STATS_TABLES_PATH + " " + kind + " " + path);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  return r.out;
}

std::string write_output(const std::string& directory, const std::string& name, const std::string& text) {
  const std::string path = directory + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST_CASE("stats: a run's log and database give the table its summary printed", "[e2e][stats]") {
  const bool csv = GENERATE(false, true);
  INFO((csv ? "CSV" : "key-value"));
  auto o = profiling("export sqlite\nsummary\n");
  if (csv) o.env["COMPUTE_PROFILE_CSV"] = "1";
  const auto r = run_client("procaddress", "basic", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string expected = summary_without_prefix(r.err);
  CHECK(expected.find("spin(unsigned long long)") != std::string::npos);
  // The export turned apitrace on: the launches' calls and the traced ones.
  CHECK(expected.find("\n      API calls: ") != std::string::npos);

  const auto from_log = stats({o.directory + "/compute_profile.log"});
  CHECK(from_log.exit_code == 0);
  CHECK(from_log.err.empty());
  CHECK(from_log.out == without_api_rows(expected));
  const auto from_database = stats({o.directory + "/compute_profile.sqlite"});
  CHECK(from_database.exit_code == 0);
  CHECK(from_database.err.empty());
  CHECK(from_database.out == expected);

  // The same table as CSV and JSON, read back by Python's csv and json modules alike.
  std::string read[2];
  for (int k = 0; k < 2; ++k) {
    const std::string kind = k == 0 ? "csv" : "json";
    const auto run = stats({"--format", kind, o.directory + "/compute_profile.sqlite"});
    CHECK(run.exit_code == 0);
    read[k] = read_back(kind, write_output(o.directory, "summary." + kind, run.out));
  }
  CHECK(read[0] == read[1]);
  CHECK(read[0].starts_with("table\n"));
  CHECK(read[0].find(" calls=2 avg_ns=25000000 min_ns=20000000 max_ns=30000000 name='spin(unsigned long long)'\n") !=
        std::string::npos);
}

TEST_CASE("stats: the logs of two runs add up, a missing file fails with its name", "[e2e][stats]") {
  auto o = profiling();
  o.env["COMPUTE_PROFILE_LOG"] = "rank_%q{RANK}.log";
  o.env["RANK"] = "0";
  REQUIRE(run_client("linked", "basic", o).exit_code == 0);
  o.env["RANK"] = "1";
  REQUIRE(run_client("linked", "basic", o).exit_code == 0);
  const auto both = stats({o.directory + "/rank_0.log", o.directory + "/rank_1.log"});
  INFO(both.out << both.err);
  CHECK(both.exit_code == 0);
  // basic makes two spins of 20 and 30 ms: four of them over two runs.
  CHECK(both.out.find("  100.00ms         4  25.000ms  20.000ms  30.000ms  spin(unsigned long long)\n") !=
        std::string::npos);

  const auto missing = stats({o.directory + "/rank_0.log", o.directory + "/rank_9.log"});
  CHECK(missing.exit_code == 1);
  CHECK(missing.out.empty());
  CHECK(missing.err == "computeprof: cannot read '" + o.directory + "/rank_9.log': No such file or directory\n");
}

TEST_CASE("stats: a JSON trace, plain or gzip, gives its database's tables, NVTX ranges too, and its rank from distributedInfo",
          "[e2e][stats]") {
  const std::string format = GENERATE(std::string("json"), std::string("json.gz"));
  INFO(format);
  RunOptions o = profiling("export " + format + ",sqlite\n");
  o.env["RANK"] = "7";
  o.env["WORLD_SIZE"] = "8";
  o.argv = {NVTX_CLIENT_PATH, "ranges"};
  const RunResult r = e2e::run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string trace = o.directory + "/compute_profile." + format;
  const auto from_trace = stats({trace});
  const auto from_database = stats({o.directory + "/compute_profile.sqlite"});
  CHECK(from_trace.exit_code == 0);
  CHECK(from_trace.err.empty());
  CHECK(from_trace.out == from_database.out);
  // Both tables: the client's kernels, copies and memset, and its ranges (start/end too).
  CHECK(from_trace.out.find("  vecAdd(float const*, float const*, float*, int)\n") != std::string::npos);
  CHECK(from_trace.out.find("NVTX ranges:\n") != std::string::npos);
  CHECK(from_trace.out.find("  ProfilerStep#1\n") != std::string::npos);
  CHECK(from_trace.out.find("  async\n") != std::string::npos);

  const auto ranks = stats({"--ranks", "--format", "csv", trace});
  CHECK(ranks.exit_code == 0);
  CHECK(ranks.out.starts_with("rank,files,time_ns,over_median_percent\n7,1,"));
}

TEST_CASE("stats: a run file gives its database's tables, NVTX ranges too, and its rank", "[e2e][stats]") {
  RunOptions o = profiling("export cprof,sqlite\n");
  o.env["RANK"] = "5";
  o.env["WORLD_SIZE"] = "8";
  o.argv = {NVTX_CLIENT_PATH, "ranges"};
  const RunResult r = e2e::run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto from_run = stats({o.directory + "/compute_profile.cprof"});
  const auto from_database = stats({o.directory + "/compute_profile.sqlite"});
  CHECK(from_run.exit_code == 0);
  CHECK(from_run.err.empty());
  CHECK(before_idle_table(from_run.out) == from_database.out);
  CHECK(from_run.out.find("  vecAdd(float const*, float const*, float*, int)\n") != std::string::npos);
  CHECK(from_run.out.find("  ProfilerStep#1\n") != std::string::npos);
  const auto ranks = stats({"--ranks", "--format", "csv", o.directory + "/compute_profile.cprof"});
  CHECK(ranks.exit_code == 0);
  CHECK(ranks.out.starts_with("rank,files,time_ns,over_median_percent\n5,1,"));
}

TEST_CASE("stats: a malformed JSON trace is one error naming the file and where", "[e2e][stats]") {
  const std::string directory = make_scratch_directory();
  const std::string cut = write_output(directory, "cut.json", "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\"");
  const auto run = stats({cut});
  CHECK(run.exit_code == 1);
  CHECK(run.out.empty());
  CHECK(run.err.starts_with("computeprof: " + cut + ": line 1, column "));
  const std::string bad_dur = write_output(
      directory, "dur.json",
      "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":-2}]}");
  const auto bad = stats({bad_dur});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err == "computeprof: " + bad_dur +
                       ": event 1: 'dur' is not a time in microseconds with at most three decimals\n");
}

TEST_CASE("stats --ranks: 64 ranks of one job, one slowed by half: its straggler and every statistic exact",
          "[e2e][stats]") {
  // Each rank runs two spins of N and 2N ns (exact on the simulated driver): N = 100 us,
  // on rank 41 150 us. Logs named by %q{RANK}; even ranks key-value, odd ranks CSV, and
  // every fourth rank's database is given instead of its log.
  constexpr int kRanks = 64;
  constexpr int kSlowRank = 41;
  auto o = profiling();
  o.env["COMPUTE_PROFILE_LOG"] = "rank_%q{RANK}.log";
  const std::string export_config = write_config(o.directory, "export sqlite\n");
  std::vector<std::string> files;
  for (int rank = 0; rank < kRanks; ++rank) {
    auto rank_run = o;
    rank_run.env["RANK"] = std::to_string(rank);
    if (rank % 2 == 1) rank_run.env["COMPUTE_PROFILE_CSV"] = "1";
    const bool database = rank % 4 == 3;
    if (database) rank_run.env["COMPUTE_PROFILE_CONFIG"] = export_config;
    const auto r = run_client("linked", rank == kSlowRank ? "spins-150000" : "spins-100000", rank_run);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    files.push_back(o.directory + "/rank_" + std::to_string(rank) + (database ? ".sqlite" : ".log"));
  }

  std::vector<std::string> args{"--ranks"};
  args.insert(args.end(), files.begin(), files.end());
  const auto text = stats(args);
  INFO(text.out << text.err);
  CHECK(text.exit_code == 0);
  CHECK(text.err.empty());
  // The coefficient of variation of 63 times 300 us and one 450 us, worked out here.
  long double mean = (63.0L * 300000 + 450000) / kRanks;
  long double squares = 63.0L * (300000 - mean) * (300000 - mean) + (450000 - mean) * (450000 - mean);
  const double cv = static_cast<double>(std::sqrt(squares / kRanks) / mean);
  CHECK(text.out.find("GPU activities by rank:\n"
                      "Calls min  Calls median  Calls max  Time min  Time median  Time max     CV  Slowest  Name\n" +
                      fmt::format("        2             2          2  300.00us     300.00us  450.00us  {:.2f}%  41       "
                                  "spin(unsigned long long)\n",
                                  100 * cv)) != std::string::npos);
  CHECK(text.out.find("Stragglers (GPU time more than 10% above the median rank's 300.00us):\n"
                      "Rank  GPU time  vs median  Kernel time  Kernel median  Difference  Name\n"
                      "41    450.00us    +50.00%     450.00us       300.00us    150.00us  spin(unsigned long long)\n") !=
        std::string::npos);

  // Every table read back by Python's csv and json modules, row for row the same.
  std::string expected = "table\n";
  for (int rank = 0; rank < kRanks; ++rank) {
    expected += fmt::format("rank='{}' files=1 time_ns={} over_median_percent={}\n", rank,
                            rank == kSlowRank ? 450000 : 300000, rank == kSlowRank ? "50.0" : "0.0");
  }
  expected += "table\n" +
              fmt::format("calls_min=2 calls_median=2 calls_max=2 time_min_ns=300000 time_median_ns=300000 "
                          "time_max_ns=450000 time_cv={} slowest_rank='41' name='spin(unsigned long long)'\n",
                          std::stod(fmt::format("{:.6f}", cv))) +
              "table\n"
              "rank='41' rank_time_ns=450000 over_median_percent=50.0 time_ns=450000 median_ns=300000 "
              "difference_ns=150000 name='spin(unsigned long long)'\n";
  for (const std::string kind : {"csv", "json"}) {
    std::vector<std::string> formatted{"--format", kind};
    formatted.insert(formatted.end(), args.begin(), args.end());
    const auto run = stats(formatted);
    CHECK(run.exit_code == 0);
    CHECK(read_back(kind, write_output(o.directory, "ranks." + kind, run.out)) == expected);
  }

  // --straggler 60: rank 41's 50 % is no longer one.
  std::vector<std::string> lenient{"--straggler", "60"};
  lenient.insert(lenient.end(), args.begin(), args.end());
  CHECK(stats(lenient).out.ends_with("Stragglers (GPU time more than 60% above the median rank's 300.00us):\nNone.\n"));
}

TEST_CASE("stats --compare: exit status 1 on a 20 % slowdown, 0 on none", "[e2e][stats]") {
  auto o = profiling();
  o.env["COMPUTE_PROFILE_LOG"] = "run_%q{RUN}.log";
  for (const std::string run : {"base", "same", "slower"}) {
    auto r = o;
    r.env["RUN"] = run;
    REQUIRE(run_client("linked", run == "slower" ? "spins-120000" : "spins-100000", r).exit_code == 0);
  }
  const std::string base = o.directory + "/run_base.log";
  const auto same = stats({"--compare", base, "--", o.directory + "/run_same.log"});
  INFO(same.out << same.err);
  CHECK(same.exit_code == 0);
  CHECK(same.out.find(" +0.00%  150.00us  150.00us      +0.00%           spin(unsigned long long)\n") !=
        std::string::npos);
  const auto slower = stats({"--compare", base, "--", o.directory + "/run_slower.log"});
  INFO(slower.out << slower.err);
  CHECK(slower.exit_code == 1);
  CHECK(slower.out.find("+20.00%  150.00us  180.00us     +20.00%  regressed  spin(unsigned long long)\n") !=
        std::string::npos);
  CHECK(stats({"--compare", "--max-regress", "20", base, "--", o.directory + "/run_slower.log"}).exit_code == 0);
  const auto json = stats({"--compare", "--format", "json", base, "--", o.directory + "/run_slower.log"});
  CHECK(json.exit_code == 1);
  CHECK(read_back("json", write_output(o.directory, "compare.json", json.out)) ==
        "table\nshare_percent=100.0 base_calls=2 new_calls=2 base_total_ns=300000 new_total_ns=360000 "
        "total_change_percent=20.0 base_avg_ns=150000 new_avg_ns=180000 avg_change_percent=20.0 "
        "verdict='regressed' name='spin(unsigned long long)'\n");
  // A file that cannot be read: exit status 2, whatever the table says.
  CHECK(stats({"--compare", base, "--", o.directory + "/missing.log"}).exit_code == 2);
}
