// Bad config files never stop the application: each is one clear warning and the
// documented defaults.
#include "catch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "config/profile_config.hpp"
#include "config/report.hpp"
#include "warning_capture.hpp"

using namespace computeprof::config;
using computeprof::test::WarningCapture;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/computeprof-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path write(const std::string& name, const std::string& bytes) const {
    fs::path p = path / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

bool is_default(const ProfileConfig& c) {
  return c.options.none() && c.counters.none() && c.enable_on_start && !c.log_format;
}

}  // namespace

TEST_CASE("a missing config file is one warning and the defaults", "[config][input]") {
  WarningCapture warnings;
  auto cfg = load_profile_config("/nonexistent/computeprof.cfg");
  CHECK(is_default(cfg));
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] ==
        "config file '/nonexistent/computeprof.cfg': No such file or directory; using defaults");
}

TEST_CASE("warnings call the config file by the name given for it", "[config][input]") {
  WarningCapture warnings;
  CHECK(is_default(load_profile_config("/nonexistent/copy.cfg", "mine.cfg")));
  TempDir dir;
  const auto file = dir.path / "copy.cfg";
  std::ofstream(file) << "gridsize\nbogus\n";
  CHECK(load_profile_config(file.string(), "mine.cfg").has(computeprof::config::Option::gridsize));
  CHECK(warnings.lines() == std::vector<std::string>{
                                "config file 'mine.cfg': No such file or directory; using defaults",
                                "mine.cfg:2: unknown name 'bogus', skipped"});
}

TEST_CASE("a directory as config file is one warning", "[config][input]") {
  TempDir dir;
  WarningCapture warnings;
  auto cfg = load_profile_config(dir.path.string());
  CHECK(is_default(cfg));
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] == "config file '" + dir.path.string() + "': is a directory; using defaults");
}

TEST_CASE("a FIFO or device as config file is one warning, without blocking", "[config][input]") {
  TempDir dir;
  fs::path fifo = dir.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  WarningCapture warnings;
  CHECK(is_default(load_profile_config(fifo.string())));
  CHECK(is_default(load_profile_config("/dev/zero")));
  REQUIRE(warnings.lines().size() == 2);
  CHECK(warnings.lines()[0] == "config file '" + fifo.string() + "': not a regular file; using defaults");
  CHECK(warnings.lines()[1] == "config file '/dev/zero': not a regular file; using defaults");
}

TEST_CASE("an unreadable config file is one warning", "[config][input]") {
  TempDir dir;
  fs::path file = dir.write("secret.cfg", "gridsize\n");
  ::chmod(file.c_str(), 0);
  ::chmod(dir.path.c_str(), 0755);
  // Root reads anything: check as an unprivileged user in a child process.
  int pipefd[2];
  REQUIRE(::pipe(pipefd) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(pipefd[0]);
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
    std::string report;
    set_warning_sink([](std::string_view line, void* user) { static_cast<std::string*>(user)->append(line); },
                     &report);
    bool defaults = is_default(load_profile_config(file.string()));
    report = (defaults ? "default|" : "changed|") + report;
    (void)!::write(pipefd[1], report.data(), report.size());
    ::_exit(0);
  }
  ::close(pipefd[1]);
  std::string report;
  char buf[512];
  for (ssize_t n; (n = ::read(pipefd[0], buf, sizeof buf)) > 0;) report.append(buf, static_cast<size_t>(n));
  ::close(pipefd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(report == "default|config file '" + file.string() + "': Permission denied; using defaults");
}

TEST_CASE("binary garbage is one warning", "[config][input]") {
  TempDir dir;
  std::string garbage;
  std::mt19937 rng(42);
  for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>(rng() & 0xff));
  garbage[0] = 'g';
  garbage[1] = 0;
  fs::path with_nul = dir.write("nul.bin", garbage);
  fs::path latin1 = dir.write("latin1.cfg", "gridsize\ngr\xe9\x64size\n");
  WarningCapture warnings;
  CHECK(is_default(load_profile_config(with_nul.string())));
  CHECK(is_default(load_profile_config(latin1.string())));
  REQUIRE(warnings.lines().size() == 2);
  CHECK(warnings.lines()[0] ==
        with_nul.string() + ": binary content (byte 0x00 at offset 1), config ignored; using defaults");
  CHECK(warnings.lines()[1] ==
        latin1.string() + ": binary content (byte 0xe9 at offset 11), config ignored; using defaults");
}

TEST_CASE("a 10 MB single line is one warning, the other lines still count", "[config][input]") {
  TempDir dir;
  std::string text(10 << 20, 'x');
  text += "\ngridsize\n";
  fs::path file = dir.write("long.cfg", text);
  WarningCapture warnings;
  auto cfg = load_profile_config(file.string());
  CHECK(cfg.has(Option::gridsize));
  CHECK(cfg.options.count() == 1);
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] == file.string() + ":1: line of 10485760 bytes is too long for a name, skipped");
}

TEST_CASE("100k lines parse quickly and quietly", "[config][input]") {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 100000; ++i) text += (i % 3 == 0) ? "# comment\n" : (i % 3 == 1 ? "gridsize\n" : "inst_executed\n");
  fs::path file = dir.write("many.cfg", text);
  WarningCapture warnings;
  auto start = std::chrono::steady_clock::now();
  auto cfg = load_profile_config(file.string());
  auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(warnings.lines().empty());
  CHECK(cfg.has(Option::gridsize));
  CHECK(cfg.counters.count() == 1);
  CHECK(elapsed < std::chrono::seconds(2));
}

TEST_CASE("100k unknown names give a bounded number of lines", "[config][input]") {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "bogus" + std::to_string(i) + "\n";
  fs::path file = dir.write("bogus.cfg", text);
  WarningCapture warnings;
  CHECK(is_default(load_profile_config(file.string())));
  REQUIRE(warnings.lines().size() == 9);
  CHECK(warnings.lines()[0] == file.string() + ":1: unknown name 'bogus0', skipped");
  CHECK(warnings.lines()[7] == file.string() + ":8: unknown name 'bogus7', skipped");
  CHECK(warnings.lines()[8] == file.string() + ": 99992 more problems not shown");
}

TEST_CASE("an empty config file is quiet", "[config][input]") {
  TempDir dir;
  fs::path file = dir.write("empty.cfg", "");
  WarningCapture warnings;
  CHECK(is_default(load_profile_config(file.string())));
  CHECK(warnings.lines().empty());
}

TEST_CASE("a config path with a line break is echoed escaped", "[config][input]") {
  WarningCapture warnings;
  CHECK(is_default(load_profile_config("/nonexistent/a\ncomputeprof: b.cfg")));
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] ==
        "config file '/nonexistent/a\\ncomputeprof: b.cfg': No such file or directory; using defaults");
}
