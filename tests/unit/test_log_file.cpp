#include "catch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "logfmt/log_file.hpp"
#include "warning_capture.hpp"

using namespace computeprof;
namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("a log file is truncated, buffered and written on flush and close", "[logfile]") {
  fs::path p = fs::temp_directory_path() / ("computeprof-logfile-" + std::to_string(::getpid()) + ".log");
  std::ofstream(p) << "old contents that must go\n";
  mode_t old_mask = ::umask(022);
  {
    logfmt::LogFile file;
    REQUIRE(file.open(p.string()));
    file.append("line 1\n");
    CHECK(slurp(p).empty());
    file.flush();
    CHECK(slurp(p) == "line 1\n");
    file.append("line 2\n");
  }
  ::umask(old_mask);
  CHECK(slurp(p) == "line 1\nline 2\n");
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  fs::remove(p);
}

TEST_CASE("a log that cannot be opened is one warning naming path and reason", "[logfile]") {
  test::WarningCapture warnings;
  logfmt::LogFile file;
  CHECK_FALSE(file.open("/nonexistent-dir/compute_profile.log"));
  file.append("ignored\n");
  file.flush();
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] ==
        "cannot open log '/nonexistent-dir/compute_profile.log': No such file or directory; this context is not logged");
}

TEST_CASE("a log path with a line break is echoed escaped", "[logfile]") {
  test::WarningCapture warnings;
  logfmt::LogFile file;
  CHECK_FALSE(file.open("/nonexistent-dir/a\ncomputeprof: b.log"));
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] ==
        "cannot open log '/nonexistent-dir/a\\ncomputeprof: b.log': No such file or directory; this context is not "
        "logged");
}

TEST_CASE("a write error is reported once", "[logfile]") {
  test::WarningCapture warnings;
  logfmt::LogFile file;
  REQUIRE(file.open("/dev/full"));
  file.append("a\n");
  file.flush();
  file.append("b\n");
  file.flush();
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] == "cannot write log '/dev/full': No space left on device; records are lost");
}

TEST_CASE("large output is written through as it grows", "[logfile]") {
  fs::path p = fs::temp_directory_path() / ("computeprof-big-" + std::to_string(::getpid()) + ".log");
  logfmt::LogFile file;
  REQUIRE(file.open(p.string()));
  std::string line(100, 'x');
  line.push_back('\n');
  for (int i = 0; i < 2000; ++i) file.append(line);
  CHECK(fs::file_size(p) >= 64 * 1024);
  file.close();
  CHECK(fs::file_size(p) == 2000 * 101);
  fs::remove(p);
}
