#include <signal.h>

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
  CHECK(log_report_lines("", 0) == kNoLog);
  CHECK(log_report_lines("\n\n", 0) == kNoLog);
}

TEST_CASE("each logged path is reported once, in first mention order", "[log_index]") {
  CHECK(log_report_lines("/w/compute_profile_0.log\n/w/compute_profile_1.log\n/w/compute_profile_0.log\n", 0) ==
        Lines{"log written to /w/compute_profile_0.log", "log written to /w/compute_profile_1.log"});
}

TEST_CASE("a last line without its newline still counts", "[log_index]") {
  CHECK(log_report_lines("/w/a.log\n/w/b.log", 0) == Lines{"log written to /w/a.log", "log written to /w/b.log"});
}

TEST_CASE("no log from an application ended by a signal names the signal", "[log_index]") {
  CHECK(log_report_lines("", SIGKILL) ==
        Lines{"no log written (the application was killed by signal 9 (SIGKILL) before any log was written)"});
  CHECK(log_report_lines("\n", SIGSEGV) ==
        Lines{"no log written (the application was killed by signal 11 (SIGSEGV) before any log was written)"});
  // Real-time signals have no name.
  CHECK(log_report_lines("", 40) ==
        Lines{"no log written (the application was killed by signal 40 before any log was written)"});
}

TEST_CASE("logs written before a signal ended the application are reported as usual", "[log_index]") {
  CHECK(log_report_lines("/w/a.log\n", SIGTERM) == Lines{"log written to /w/a.log"});
}

TEST_CASE("a log that could not be opened is why no log was written, whatever ended the application", "[log_index]") {
  const std::string why = "cannot open log '/w/none/a.log': No such file or directory; this context is not logged";
  const Lines expected{"no log written (" + why + ")"};
  CHECK(log_report_lines("!" + why + "\n", 0) == expected);
  CHECK(log_report_lines("!" + why + "\n!" + why + "\n", SIGKILL) == expected);
  const std::string denied = "cannot open log '/w/none/b.log': Permission denied; this context is not logged";
  CHECK(log_report_lines("!" + why + "\n!" + denied, 0) ==
        Lines{"no log written (" + why + ")", "no log written (" + denied + ")"});
}

TEST_CASE("logs written beside one that could not be opened are reported as usual", "[log_index]") {
  CHECK(log_report_lines("!cannot open log '/w/none/a.log': No such file or directory\n/w/b.log\n", 0) ==
        Lines{"log written to /w/b.log"});
}
