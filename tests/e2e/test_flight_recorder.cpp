// flightrecorder (docs/format.md, "Flight recorder"): the exports hold the last SECONDS,
// cut where the simulated driver's exact clock says; the trigger file gives numbered
// dumps and is removed, a symbolic link there is ignored; memory stays flat.
#include <string>
#include <string_view>
#include <vector>

#include "catch.hpp"

#include "database_query.hpp"
#include "e2e_support.hpp"

using namespace e2e;

namespace {

std::size_t kernels_in_trace(const std::string& path) { return count_of(read_file(path), "\"cat\":\"kernel\""); }

std::string kernels_in_database(const std::string& path) {
  const auto rows = query(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  return rows.empty() ? "" : rows.front();
}

}  // namespace

TEST_CASE("flightrecorder: the exports at exit hold the last SECONDS only, the log every record",
          "[e2e][exports][flight]") {
  // 5 kernels, 1.5 s without any, 3 kernels: a window of 1 s holds the last 3.
  auto o = profiling("export json,sqlite,nvprof\nflightrecorder 1\n");
  const auto r = run_client("linked", "flight-window", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(read_log(o.directory + "/compute_profile.log").records.size() == 8);
  CHECK(kernels_in_trace(o.directory + "/compute_profile.json") == 3);
  CHECK(kernels_in_database(o.directory + "/compute_profile.sqlite") == "3");
  CHECK(query(o.directory + "/compute_profile.nvvp", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL") ==
        std::vector<std::string>{"3"});
  CHECK(r.err == "computeprof: writing compute_profile.json, compute_profile.sqlite, compute_profile.nvvp from "
                 "'compute_profile.cprof'\n");
}

TEST_CASE("flightrecordertrigger: each appearance of the file is a numbered dump, the file removed, a symbolic link "
          "ignored",
          "[e2e][exports][flight]") {
  auto o = profiling();
  const std::string trigger = o.directory + "/dump-now";
  o.env["COMPUTE_PROFILE_CONFIG"] =
      write_config(o.directory, "export json,sqlite\nflightrecorder 60\nflightrecordertrigger " + trigger + "\n");
  o.env["FLIGHT_TRIGGER"] = trigger;
  const auto r = run_client("linked", "flight-trigger", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "symbolic link left\ntrigger 1 taken\ntrigger 2 taken\ntrigger 3 taken\ntrigger 4 taken\nPASS\n");
  // Each dump, and the window at exit, says what it writes.
  CHECK(r.err == "computeprof: flightrecordertrigger '" + trigger +
                     "' is a symbolic link, not followed; ignored\n"
                     "computeprof: writing compute_profile.1.json, compute_profile.1.sqlite from 'compute_profile.1.cprof'\n"
                     "computeprof: writing compute_profile.2.json, compute_profile.2.sqlite from 'compute_profile.2.cprof'\n"
                     "computeprof: writing compute_profile.3.json, compute_profile.3.sqlite from 'compute_profile.3.cprof'\n"
                     "computeprof: writing compute_profile.4.json, compute_profile.4.sqlite from 'compute_profile.4.cprof'\n"
                     "computeprof: writing compute_profile.json, compute_profile.sqlite from 'compute_profile.cprof'\n");
  CHECK(!file_exists(o.directory + "/elsewhere"));
  // Dump 1 after 4 kernels, each next after 2 more (every kernel the program made
  // before the trigger, however far the activity collector's next round was), the
  // exports' own files at exit.
  for (int dump = 1; dump <= 4; ++dump) {
    INFO("dump " << dump);
    const std::string stem = o.directory + "/compute_profile." + std::to_string(dump);
    CHECK(kernels_in_trace(stem + ".json") == 2u + 2u * static_cast<unsigned>(dump));
    CHECK(kernels_in_database(stem + ".sqlite") == std::to_string(2 + 2 * dump));
  }
  CHECK(kernels_in_trace(o.directory + "/compute_profile.json") == 10);
  CHECK(!file_exists(o.directory + "/compute_profile.5.json"));
  CHECK(!file_exists(trigger));
}

TEST_CASE("flightrecorder: resident memory after 20,000 launches and after 80,000 more is the same within 4 MiB",
          "[e2e][exports][flight]") {
  // A window of 0.05 s holds at most 2,500 of these kernels of 20 us on one stream: the
  // rings stop growing within the first part. Unbounded, the second part's 80,000
  // records would take 15 MiB more.
  auto o = profiling("export json\nflightrecorder 0.05\n");
  o.env["FLIGHT_LAUNCHES"] = "20000";
  // Times from event pairs: CUPTI's activity buffers, as many as the load of the machine
  // leaves in flight, would be measured with the window.
  o.env["COMPUTEPROF_CUPTI_LIBRARY"] = std::nullopt;
  // Under AddressSanitizer, freed memory waits in its quarantine, resident: without it,
  // what is freed is used again, as without the sanitizer.
  if (!std::string_view(SANITIZER_PRELOAD).empty()) {
    o.env["ASAN_OPTIONS"] = "quarantine_size_mb=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0";
  }
  o.timeout_seconds = 300;
  const auto r = run_client("dlsym", "flight-memory", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const long first = std::stol(printed_value(r.out, "resident after part 1:"));
  const long second = std::stol(printed_value(r.out, "resident after part 2:"));
  CHECK(second - first < 4 * 1024);
}
