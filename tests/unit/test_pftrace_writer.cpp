// The Perfetto trace writer's file: a whole trace after every write-through, and the
// export limit as the JSON trace applies it.
#include <filesystem>
#include <string>
#include <vector>

#include "catch.hpp"
#include "export_test_support.hpp"
#include "pftrace_check.hpp"
#include "config/report.hpp"
#include "exports/pftrace_writer.hpp"

using namespace computeprof;
using namespace computeprof::exports;

namespace {

records::Record launch(std::uint64_t correlation) {
  records::Record r;
  r.method = "_Z4spiny";
  r.api = "cuLaunchKernel";
  r.correlation_id = correlation;
  r.timestamp_ns = correlation * 1'000;
  r.cputime_ns = 500;
  r.gpu_start_ns = 1'700'000'000'000'000'000ULL + correlation * 1'000 + 200;
  r.gputime_ns = 700;
  return r;
}

}  // namespace

TEST_CASE("pftrace: a whole trace after every write-through, each launch a call, a kernel and a flow",
          "[exports][pftrace]") {
  char directory[] = "/tmp/computeprof-pftrace-XXXXXX";
  REQUIRE(mkdtemp(directory));
  test::ExportRun run(std::string(directory) + "/trace.log");
  run.facts.clocks = {1'700'000'000'000'000'000ULL, 5'000};
  const std::string path = std::string(directory) + "/trace.pftrace";
  const records::ContextInfo context{1, 0, "gpu", config::Api::cuda, {1'000, 1'700'000'000'000'000'000ULL}, {}};
  PftraceWriter writer(run.facts, run);
  writer.begin();
  for (std::uint64_t i = 1; i <= 10; ++i) writer.write(context, launch(i));
  writer.checkpoint();
  const pftrace_check::PftraceSummary first = pftrace_check::check_pftrace(path);
  CHECK(first.problems == std::vector<std::string>{});
  CHECK(first.slices_by_name == std::map<std::string, long>{{"cuLaunchKernel", 10}, {"spin(unsigned long long)", 10}});
  CHECK(first.flows == 10);
  for (std::uint64_t i = 11; i <= 25; ++i) writer.write(context, launch(i));
  writer.end();
  const pftrace_check::PftraceSummary all = pftrace_check::check_pftrace(path);
  CHECK(all.problems == std::vector<std::string>{});
  CHECK(all.slices_by_name == std::map<std::string, long>{{"cuLaunchKernel", 25}, {"spin(unsigned long long)", 25}});
  CHECK(all.flows == 25);
  std::filesystem::remove_all(directory);
}

TEST_CASE("pftrace: exportlimit stops the trace before the first record at or past the limit, one line counts the "
          "rest",
          "[exports][pftrace]") {
  char directory[] = "/tmp/computeprof-pftracelimit-XXXXXX";
  REQUIRE(mkdtemp(directory));
  test::ExportRun run(std::string(directory) + "/trace.log");
  run.facts.export_limit = 4096;
  std::vector<std::string> warnings;
  config::set_warning_sink(test::collect, &warnings);
  {
    PftraceWriter writer(run.facts, run);
    const records::ContextInfo context{1, 0, "gpu", config::Api::cuda, {}, {}};
    writer.begin();
    for (std::uint64_t i = 1; i <= 100; ++i) {
      writer.write(context, launch(i));
      if (i == 1) writer.flush();
    }
    writer.end();
  }
  config::set_warning_sink(nullptr, nullptr);
  const std::string path = std::string(directory) + "/trace.pftrace";
  const pftrace_check::PftraceSummary s = pftrace_check::check_pftrace(path);
  CHECK(s.problems == std::vector<std::string>{});
  const long kept = s.flows;
  REQUIRE(kept > 0);
  REQUIRE(kept < 100);
  CHECK(s.slices_by_name == std::map<std::string, long>{{"cuLaunchKernel", kept}, {"spin(unsigned long long)", kept}});
  // At or past the limit with its last record (four packets of at most 100 bytes here),
  // below it without.
  CHECK(s.bytes >= 4096);
  CHECK(s.bytes < 4096 + 400);
  CHECK(warnings == std::vector<std::string>{"export pftrace '" + path + "' stopped at the export limit of 4096 bytes: " +
                                             std::to_string(100 - kept) + " records left out of it"});
  std::filesystem::remove_all(directory);
}
