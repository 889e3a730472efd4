#include "opencl_runs.hpp"

#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"

namespace e2e {

OpenCLRun run_opencl(const std::string& program, std::vector<std::string> args, RunOptions options,
                     const std::string& config) {
  OpenCLRun out;
  out.directory = make_scratch_directory();
  if (!config.empty()) std::ofstream(out.directory + "/profile.cfg") << config;
  options.argv = {program};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.directory = out.directory;
  options.simulated_driver = false;
  options.env["POCL_CACHE_DIR"] = std::string(POCL_CACHE);
  // One PoCL worker thread: the tests beside these (ctest -j2) time their commands.
  options.env["POCL_MAX_PTHREAD_COUNT"] = "1";
  if (!std::string(SANITIZER_PRELOAD).empty()) options.env["LSAN_OPTIONS"] = "suppressions=" LSAN_SUPPRESSIONS;
  out.result = run(options);
  return out;
}

ParsedLog log_of(const OpenCLRun& run, const std::string& name) { return read_log(run.directory + "/" + name); }

void check_times(const ParsedLog& log, bool serialized) {
  for (const Fields& r : log.records) {
    INFO(r.at("method") << " gputime " << r.at("gputime") << " cputime " << r.at("cputime"));
    CHECK(micros_to_ns(r.at("gputime")) > 0);
    if (serialized) CHECK(micros_to_ns(r.at("gputime")) <= micros_to_ns(r.at("cputime")));
  }
}

}  // namespace e2e
