// computeprof stats on what the shim wrote: the log (key-value and CSV) and the database
// of one run give the table the shim printed at its exit, and the logs of two runs add up.
#include <string>
#include <vector>

#include "catch.hpp"

#include "e2e_support.hpp"

using namespace e2e;

namespace {

// The shim's summary on stderr without its "==<pid>== " prefix: what stats prints.
std::string summary_without_prefix(const std::string& err) {
  const std::size_t start = err.find("== Profiling result:\n");
  REQUIRE(start != std::string::npos);
  return err.substr(start + 3);
}

RunResult stats(const std::vector<std::string>& files) {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.preload_shim = false;
  o.argv = {COMPUTEPROF_CLI_PATH, "stats"};
  o.argv.insert(o.argv.end(), files.begin(), files.end());
  return e2e::run(o);
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

  const auto from_log = stats({o.directory + "/compute_profile.log"});
  CHECK(from_log.exit_code == 0);
  CHECK(from_log.err.empty());
  CHECK(from_log.out == expected);
  const auto from_database = stats({o.directory + "/compute_profile.sqlite"});
  CHECK(from_database.exit_code == 0);
  CHECK(from_database.err.empty());
  CHECK(from_database.out == expected);
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
