#include "catch.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/report.hpp"
#include "logfmt/log_file.hpp"
#include "warning_capture.hpp"

using namespace computeprof;
using logfmt::LogFile;
using logfmt::OpenStatus;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/computeprof-logfile-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path write(const std::string& name, const std::string& bytes) const {
    fs::path p = path / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

std::string read_all(int fd) {
  std::string text;
  char buf[512];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  return text;
}

// Another process with `path` open through a LogFile, as another profiled program
// would have it: it writes `records`, says how its open went ('o' opened), then keeps
// the file open until finish().
class WritingProcess {
 public:
  WritingProcess(const fs::path& path, const std::string& records) {
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    REQUIRE(::pipe(go_) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::close(ready[0]);
      ::close(go_[1]);
      LogFile file;
      char status = file.open(path.string()) ? 'o' : 'x';
      file.append(records);
      file.flush();
      (void)!::write(ready[1], &status, 1);
      char c;
      (void)!::read(go_[0], &c, 1);  // returns at EOF: the test called finish()
      file.close();
      ::_exit(0);
    }
    ::close(ready[1]);
    ::close(go_[0]);
    char status = 0;
    REQUIRE(::read(ready[0], &status, 1) == 1);  // not to EOF: the child keeps its end open
    status_ = std::string(1, status);
    ::close(ready[0]);
  }
  ~WritingProcess() { finish(); }
  const std::string& status() const { return status_; }
  void finish() {
    if (pid_ <= 0) return;
    ::close(go_[1]);
    int wstatus = 0;
    ::waitpid(pid_, &wstatus, 0);
    pid_ = -1;
  }

 private:
  int go_[2] = {-1, -1};
  pid_t pid_ = -1;
  std::string status_;
};

}  // namespace

TEST_CASE("a log file is emptied, buffered and written on flush and close", "[logfile]") {
  TempDir dir;
  fs::path p = dir.write("compute_profile.log", "old contents that must go\n");
  {
    LogFile file;
    REQUIRE(file.open(p.string()).status == OpenStatus::opened);
    CHECK(slurp(p).empty());
    file.append("line 1\n");
    CHECK(slurp(p).empty());
    file.flush();
    CHECK(slurp(p) == "line 1\n");
    file.append("line 2\n");
  }
  CHECK(slurp(p) == "line 1\nline 2\n");
}

TEST_CASE("text written in place keeps what was committed, and only that", "[logfile]") {
  TempDir dir;
  const fs::path p = dir.path / "in_place.log";
  LogFile closed;
  CHECK(closed.room_for(16) == nullptr);
  {
    LogFile file;
    REQUIRE(file.open(p.string()).status == OpenStatus::opened);
    file.append("head\n");
    char* room = file.room_for(100);
    REQUIRE(room != nullptr);
    std::memcpy(room, "kept\nnot kept", 14);
    file.commit(room + 5);
    // Large enough to write through and to grow the buffer: nothing before it is lost.
    const std::string big(70 * 1024, 'x');
    room = file.room_for(big.size() + 1);
    std::memcpy(room, big.data(), big.size());
    room[big.size()] = '\n';
    file.commit(room + big.size() + 1);
    CHECK(slurp(p) == "head\nkept\n" + big + "\n");
    file.append("tail\n");
  }
  CHECK(slurp(p) == "head\nkept\n" + std::string(70 * 1024, 'x') + "\ntail\n");
}

TEST_CASE("a batch written from the caller's memory follows what was buffered, then a tail it replaces", "[logfile]") {
  TempDir dir;
  const fs::path p = dir.path / "batches.json";
  LogFile closed;
  closed.write("nothing: not open");
  LogFile file;
  REQUIRE(file.open(p.string()).status == OpenStatus::opened);
  file.append("[\n");
  file.write("1,\n2");
  CHECK(slurp(p) == "[\n1,\n2");
  file.flush_with_tail("\n]\n");
  CHECK(slurp(p) == "[\n1,\n2\n]\n");
  file.write("");
  file.write(",\n3");
  file.flush_with_tail("\n]\n");
  file.close();
  CHECK(slurp(p) == "[\n1,\n2,\n3\n]\n");
}

TEST_CASE("a snapshot file is replaced whole, longer or shorter than before", "[logfile]") {
  TempDir dir;
  fs::path p = dir.write("run.memory", "");
  LogFile file;
  REQUIRE(file.open(p.string()).status == OpenStatus::opened);
  file.rewrite("first snapshot, rather long\n");
  CHECK(slurp(p) == "first snapshot, rather long\n");
  file.rewrite("second\n");
  CHECK(slurp(p) == "second\n");
  file.rewrite("third, longer than the second\n");
  file.close();
  CHECK(slurp(p) == "third, longer than the second\n");
}

TEST_CASE("a new log has mode 0644 minus umask", "[logfile]") {
  TempDir dir;
  mode_t old_mask = ::umask(022);
  CHECK(LogFile().open((dir.path / "a.log").string()));
  ::umask(077);
  CHECK(LogFile().open((dir.path / "b.log").string()));
  ::umask(old_mask);
  struct stat st {};
  REQUIRE(::stat((dir.path / "a.log").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  REQUIRE(::stat((dir.path / "b.log").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("a log that cannot be opened is one warning naming path and reason", "[logfile]") {
  test::WarningCapture warnings;
  LogFile file;
  auto result = file.open("/nonexistent-dir/compute_profile.log");
  CHECK(result.status == OpenStatus::failed);
  CHECK_FALSE(result);
  CHECK_FALSE(file.is_open());
  file.append("ignored\n");
  file.flush();
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] ==
        "cannot open log '/nonexistent-dir/compute_profile.log': No such file or directory; this context is not logged");
}

TEST_CASE("a log path with a line break is echoed escaped", "[logfile]") {
  test::WarningCapture warnings;
  LogFile file;
  CHECK_FALSE(file.open("/nonexistent-dir/a\ncomputeprof: b.log"));
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] ==
        "cannot open log '/nonexistent-dir/a\\ncomputeprof: b.log': No such file or directory; this context is not "
        "logged");
}

TEST_CASE("a symbolic link is not followed: its target stays as it was", "[logfile]") {
  TempDir dir;
  fs::path target = dir.write("precious", "precious contents\n");
  fs::create_symlink(target, dir.path / "link.log");
  fs::create_symlink(dir.path / "created-through-link", dir.path / "dangling.log");
  test::WarningCapture warnings;
  LogFile file;
  CHECK(file.open((dir.path / "link.log").string()).status == OpenStatus::failed);
  CHECK(file.open((dir.path / "dangling.log").string()).status == OpenStatus::failed);
  CHECK(slurp(target) == "precious contents\n");
  CHECK_FALSE(fs::exists(dir.path / "created-through-link"));
  REQUIRE(warnings.lines().size() == 2);
  CHECK(warnings.lines()[0] == "cannot open log '" + (dir.path / "link.log").string() +
                                   "': is a symbolic link, not followed; this context is not logged");
  CHECK(warnings.lines()[1] == "cannot open log '" + (dir.path / "dangling.log").string() +
                                   "': is a symbolic link, not followed; this context is not logged");
}

TEST_CASE("a FIFO, a directory or a device is refused with one warning each, without blocking", "[logfile]") {
  TempDir dir;
  fs::path fifo = dir.path / "fifo.log";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  test::WarningCapture warnings;
  LogFile file;
  CHECK(file.open(fifo.string()).status == OpenStatus::failed);  // no reader
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  CHECK(file.open(fifo.string()).status == OpenStatus::failed);  // a reader
  ::close(reader);
  CHECK(file.open(dir.path.string()).status == OpenStatus::failed);
  CHECK(file.open("/dev/null").status == OpenStatus::failed);
  CHECK_FALSE(file.is_open());
  REQUIRE(warnings.lines().size() == 4);
  CHECK(warnings.lines()[0] == "cannot open log '" + fifo.string() + "': not a regular file; this context is not logged");
  CHECK(warnings.lines()[1] == "cannot open log '" + fifo.string() + "': not a regular file; this context is not logged");
  CHECK(warnings.lines()[2] ==
        "cannot open log '" + dir.path.string() + "': is a directory; this context is not logged");
  CHECK(warnings.lines()[3] == "cannot open log '/dev/null': not a regular file; this context is not logged");
}

TEST_CASE("a file with a second hard link is refused and left as it was", "[logfile]") {
  TempDir dir;
  fs::path elsewhere = dir.write("elsewhere", "someone's data\n");
  fs::create_hard_link(elsewhere, dir.path / "linked.log");
  test::WarningCapture warnings;
  LogFile file;
  CHECK(file.open((dir.path / "linked.log").string()).status == OpenStatus::failed);
  CHECK(slurp(elsewhere) == "someone's data\n");
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] ==
        "cannot open log '" + (dir.path / "linked.log").string() + "': has 2 hard links; this context is not logged");
}

TEST_CASE("a log another process is writing is reported held and left as it was", "[logfile]") {
  TempDir dir;
  fs::path p = dir.write("shared.log", "stale\n");
  WritingProcess other(p, "the other process's records\n");
  REQUIRE(other.status() == "o");
  test::WarningCapture warnings;
  LogFile file;
  auto result = file.open(p.string());
  CHECK(result.status == OpenStatus::held);
  CHECK_FALSE(result);
  CHECK_FALSE(file.is_open());
  CHECK(slurp(p) == "the other process's records\n");
  CHECK(warnings.lines().empty());
  // Once that process is gone, its lock is too: the file is this process's to empty.
  other.finish();
  CHECK(file.open(p.string()).status == OpenStatus::opened);
  CHECK(slurp(p).empty());
  CHECK(warnings.lines().empty());
}

TEST_CASE("two LogFiles of one process exclude each other until close", "[logfile]") {
  TempDir dir;
  fs::path p = dir.path / "one.log";
  test::WarningCapture warnings;
  LogFile first;
  LogFile second;
  REQUIRE(first.open(p.string()).status == OpenStatus::opened);
  first.append("first\n");
  CHECK(second.open(p.string()).status == OpenStatus::held);
  first.close();
  CHECK(slurp(p) == "first\n");
  CHECK(second.open(p.string()).status == OpenStatus::opened);
  CHECK(slurp(p).empty());
  CHECK(warnings.lines().empty());
}

TEST_CASE("a forked child that abandons the log leaves the parent's lock and records alone", "[logfile]") {
  TempDir dir;
  fs::path p = dir.path / "fork.log";
  LogFile file;
  REQUIRE(file.open(p.string()).status == OpenStatus::opened);
  file.append("parent's record\n");
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    file.abandon();
    ::_exit(0);
  }
  int wstatus = 0;
  REQUIRE(::waitpid(pid, &wstatus, 0) == pid);
  REQUIRE(WIFEXITED(wstatus));
  test::WarningCapture warnings;
  CHECK(LogFile().open(p.string()).status == OpenStatus::held);
  file.close();
  CHECK(slurp(p) == "parent's record\n");
  CHECK(LogFile().open(p.string()).status == OpenStatus::opened);
}

TEST_CASE("a write error is reported once", "[logfile]") {
  TempDir dir;
  fs::path p = dir.path / "full.log";
  // A file size limit of 0 bytes makes every write fail (EFBIG): in a child, which can
  // not raise the limit again.
  int pipefd[2];
  REQUIRE(::pipe(pipefd) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(pipefd[0]);
    std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit none {0, 0};
    if (::setrlimit(RLIMIT_FSIZE, &none) != 0) ::_exit(3);
    std::string report;
    config::set_warning_sink(
        [](std::string_view line, void* user) { static_cast<std::string*>(user)->append(line).push_back('|'); },
        &report);
    LogFile file;
    if (!file.open(p.string())) ::_exit(4);
    file.append("a\n");
    file.flush();
    file.append("b\n");
    file.flush();
    (void)!::write(pipefd[1], report.data(), report.size());
    ::_exit(0);
  }
  ::close(pipefd[1]);
  std::string report = read_all(pipefd[0]);
  ::close(pipefd[0]);
  int wstatus = 0;
  REQUIRE(::waitpid(pid, &wstatus, 0) == pid);
  REQUIRE(WIFEXITED(wstatus));
  REQUIRE(WEXITSTATUS(wstatus) == 0);
  CHECK(report == "cannot write log '" + p.string() + "': File too large; records are lost|");
}

TEST_CASE("large output is written through as it grows", "[logfile]") {
  TempDir dir;
  fs::path p = dir.path / "big.log";
  LogFile file;
  REQUIRE(file.open(p.string()));
  std::string line(100, 'x');
  line.push_back('\n');
  for (int i = 0; i < 2000; ++i) file.append(line);
  CHECK(fs::file_size(p) >= 64 * 1024);
  file.close();
  CHECK(fs::file_size(p) == 2000 * 101);
}
