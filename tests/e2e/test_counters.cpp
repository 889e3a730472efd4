// Counters where they cannot be collected (no GPU here): the columns stay, every value
// reads n/a (empty in CSV), and the reason is one line on stderr. With counters, GPU
// times come from event pairs, which is said once too.
#include <string>
#include <vector>

#include "catch.hpp"

#include "e2e_support.hpp"

using namespace e2e;

namespace {

const char* const kCounterConfig = "inst_executed\ngld_request\ngld_64b\nsm_cta_launched\n";
const char* const kEventTimesLine =
    "computeprof: counters are configured: GPU times come from event pairs, CUPTI's activity records are not used";

RunOptions vector_add_with_counters(bool csv) {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.argv = {VECTOR_ADD_PATH};
  o.env["COMPUTE_PROFILE"] = "1";
  o.env["COMPUTE_PROFILE_CONFIG"] = write_config(o.directory, kCounterConfig);
  if (csv) o.env["COMPUTE_PROFILE_CSV"] = "1";
  return o;
}

std::vector<std::string> stderr_lines(const std::string& err) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < err.size()) {
    const std::size_t end = err.find('\n', at);
    lines.push_back(err.substr(at, end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return lines;
}

}  // namespace

TEST_CASE("counters without CUPTI keep their columns and read n/a with one line of reason", "[e2e][counters]") {
  for (const bool csv : {false, true}) {
    auto o = vector_add_with_counters(csv);
    o.env["COMPUTEPROF_CUPTI_LIBRARY"] = o.directory + "/no-such-libcupti.so";
    const auto r = run(o);
    INFO((csv ? "CSV " : "KVP ") << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(stderr_lines(r.err) ==
          std::vector<std::string>{
              kEventTimesLine,
              "computeprof: counter gld_64b has no equivalent on today's GPUs; its column reads n/a",
              "computeprof: counters unavailable: libcupti.so.13 not found: " + o.directory +
                  "/no-such-libcupti.so: cannot open shared object file: No such file or directory; tracing goes on, "
                  "counter columns read n/a"});
    const auto log = read_log(o.directory + "/compute_profile.log");
    CHECK(log.column_line == "method,gputime,cputime,occupancy,gld_request,sm_cta_launched,inst_executed,gld_64b");
    REQUIRE(log.records.size() == 5);
    REQUIRE(log.kernels() == 2);
    for (const auto& record : log.records) {
      const bool kernel = record.at("method").starts_with("_Z");
      for (const char* counter : {"gld_request", "sm_cta_launched", "inst_executed", "gld_64b"}) {
        INFO(record.at("method") << " " << counter);
        if (csv) {
          CHECK(record.at(counter).empty());
        } else if (kernel) {
          CHECK(record.at(counter) == "n/a");
        } else {
          CHECK(record.count(counter) == 0);
        }
      }
    }
  }
}

TEST_CASE("counters on a driver CUPTI cannot profile read n/a and say why once", "[e2e][counters]") {
  auto o = vector_add_with_counters(false);
  o.env["COMPUTEPROF_CUPTI_LIBRARY"] = std::nullopt;  // the toolkit's libcupti, on the simulated driver
  const auto r = run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto lines = stderr_lines(r.err);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == kEventTimesLine);
  CHECK(lines[1] == "computeprof: counter gld_64b has no equivalent on today's GPUs; its column reads n/a");
  CHECK(lines[2].starts_with("computeprof: counters unavailable: cuptiProfilerInitialize: CUPTI_ERROR_"));
  const auto log = read_log(o.directory + "/compute_profile.log");
  for (const auto& record : log.with_method("_Z4spiny")) CHECK(record.at("inst_executed") == "n/a");
}

TEST_CASE("setting counters up is not cputime of the launch that does it", "[e2e][counters]") {
  auto o = vector_add_with_counters(false);
  o.env["COMPUTEPROF_CUPTI_LIBRARY"] = SLOW_LOADING_LIBRARY_PATH;  // 200 ms to load, then refused
  const auto r = run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("computeprof: counters unavailable: ") != std::string::npos);
  const auto log = read_log(o.directory + "/compute_profile.log");
  REQUIRE(log.count("_Z6vecAddPKfS0_Pfi") == 1);
  CHECK(micros_to_ns(log.with_method("_Z6vecAddPKfS0_Pfi")[0].at("cputime")) < 100'000'000);
}
