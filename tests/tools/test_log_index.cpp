#include "catch.hpp"

#include <string>
#include <vector>

#include "tools/log_index.hpp"

using computeprof::tools::log_report_lines;
using Lines = std::vector<std::string>;

namespace {

const Lines kNoLog{"no log written (the application made no CUDA or OpenCL calls while profiling was on)"};

}  // namespace

TEST_CASE("an empty index means no log", "[log_index]") {
  CHECK(log_report_lines("") == kNoLog);
  CHECK(log_report_lines("\n\n") == kNoLog);
}

TEST_CASE("each logged path is reported once, in first mention order", "[log_index]") {
  CHECK(log_report_lines("/w/compute_profile_0.log\n/w/compute_profile_1.log\n/w/compute_profile_0.log\n") ==
        Lines{"log written to /w/compute_profile_0.log", "log written to /w/compute_profile_1.log"});
}

TEST_CASE("a last line without its newline still counts", "[log_index]") {
  CHECK(log_report_lines("/w/a.log\n/w/b.log") == Lines{"log written to /w/a.log", "log written to /w/b.log"});
}
