// flightrecorder (docs/format.md, "Flight recorder"): what a dump holds is exactly the
// window that ends at it; each dump makes new numbered files and never takes a file it
// did not make; the window stays within its bound.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "catch.hpp"
#include "config/report.hpp"
#include "records/range_table.hpp"
#include "shim/output/flight_recorder.hpp"

using namespace computeprof;
using namespace computeprof::shim;

namespace {

constexpr std::uint64_t kSecond = 1'000'000'000;
// A wall-clock time well after 1970, so that a window never reaches back before 0.
constexpr std::uint64_t kT0 = 1'800'000'000 * kSecond;

// What the export sinks of each dump got, one dump per entry: its log template, then
// "op <method> <gpu end>" and "range <name id>" lines, "end" last.
struct Dumps {
  std::vector<std::vector<std::string>> calls;
};

class ListingSink final : public RecordSink {
 public:
  ListingSink(std::vector<std::string>& calls) : calls_(calls) {}
  void begin() override {}
  void write(const ProfiledContext&, const records::Record& r) override {
    calls_.push_back("op " + std::string(r.method) + " " + std::to_string((r.gpu_end_ns - kT0) / 1'000'000));
  }
  void write_range(const records::RangeEvent& e) override {
    calls_.push_back("range " + std::to_string(static_cast<int>(e.kind)) + " " + std::to_string(e.name));
  }
  void write_api_call(const records::ApiCall& c) override {
    calls_.push_back("call " + std::string(c.name) + " " + std::to_string((c.end_ns - kT0) / 1'000'000));
  }
  void flush() override {}
  void end() override { calls_.push_back("end"); }
  void abandon() override {}

 private:
  std::vector<std::string>& calls_;
};

struct Directory {
  std::string path;
  Directory() {
    char name[] = "/tmp/computeprof-flight-XXXXXX";
    REQUIRE(mkdtemp(name));
    path = name;
  }
};

FlightRecorder recorder_into(Dumps& dumps, const std::string& directory, std::uint64_t window_ns,
                             std::size_t max_window_mib = FlightRecorder::kMaxWindowMiB) {
  return FlightRecorder(
      window_ns, directory + "/run.log", "",
      [&dumps](const std::string& log_template) {
        dumps.calls.push_back({log_template});
        SinkList sinks;
        sinks.push_back(std::make_unique<ListingSink>(dumps.calls.back()));
        return sinks;
      },
      [](const std::string& log_template) {
        // As the exports' own: the log template's extension replaced.
        return std::vector<std::string>{log_template.substr(0, log_template.size() - 4) + ".json"};
      },
      max_window_mib);
}

records::Record kernel_ending_at_ms(std::uint64_t ms) {
  records::Record r;
  r.method = "_Z4spiny";
  r.gpu_start_ns = kT0 + ms * 1'000'000 - 1000;
  r.gpu_end_ns = kT0 + ms * 1'000'000;
  return r;
}

bool exists(const std::string& path) {
  struct stat st{};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

TEST_CASE("flightrecorder: a dump holds exactly what ended within the window before it", "[exports][flight]") {
  Directory d;
  Dumps dumps;
  ProfiledContext context{{1, 0, "gpu", config::Api::cuda, {}, {}}, nullptr};
  const auto early = static_cast<int>(records::range_table().intern_name("flight early"));
  const auto late = static_cast<int>(records::range_table().intern_name("flight late"));
  const auto worker = static_cast<int>(records::range_table().intern_name("flight worker"));
  {
    FlightRecorder recorder = recorder_into(dumps, d.path, 2 * kSecond);
    // Kernels ending every 100 ms from 0 to 5000 ms; a mark at 500 ms and one at 4500 ms.
    records::RangeEvent early_mark;
    early_mark.start_wall_ns = early_mark.end_wall_ns = kT0 + 500'000'000;
    early_mark.name = static_cast<records::RangeNameId>(early);
    records::RangeEvent late_mark = early_mark;
    late_mark.start_wall_ns = late_mark.end_wall_ns = kT0 + 4'500'000'000;
    late_mark.name = static_cast<records::RangeNameId>(late);
    records::RangeEvent thread_name;
    thread_name.kind = records::RangeEventKind::thread_name;
    thread_name.name = static_cast<records::RangeNameId>(worker);
    recorder.write_range(thread_name);
    // A synchronization ending at 1000 ms and one at 4800 ms.
    records::ApiCall sync;
    sync.name = "cuStreamSynchronize";
    sync.kind = records::ApiCallKind::stream_synchronize;
    for (std::uint64_t ms = 0; ms <= 5000; ms += 100) {
      recorder.write(context, kernel_ending_at_ms(ms));
      if (ms == 500) recorder.write_range(early_mark);
      if (ms == 4500) recorder.write_range(late_mark);
      if (ms == 1000 || ms == 4800) {
        sync.start_ns = kT0 + ms * 1'000'000 - 50'000;
        sync.end_ns = kT0 + ms * 1'000'000;
        recorder.write_api_call(sync);
      }
    }
    // The window that ends at 5050 ms begins at 3050 ms: the kernels of 3100 to 5000 ms.
    REQUIRE(recorder.dump(kT0 + 5'050'000'000) == 1);
    // A later dump: the kernels of 4000 to 5000 ms, and the late mark still.
    REQUIRE(recorder.dump(kT0 + 6'000'000'000) == 2);
  }
  // The thread's name first, then the window in the order it was recorded: the early
  // mark and synchronization left out.
  const auto window = [&](const std::string& log, std::uint64_t from_ms) {
    std::vector<std::string> calls{log, "range 39 " + std::to_string(worker)};
    for (std::uint64_t ms = from_ms; ms <= 5000; ms += 100) {
      calls.push_back("op _Z4spiny " + std::to_string(ms));
      if (ms == 4500) calls.push_back("range 34 " + std::to_string(late));
      if (ms == 4800) calls.push_back("call cuStreamSynchronize 4800");
    }
    calls.push_back("end");
    return calls;
  };
  REQUIRE(dumps.calls.size() == 2);
  CHECK(dumps.calls[0] == window(d.path + "/run.1.log", 3100));
  CHECK(dumps.calls[1] == window(d.path + "/run.2.log", 4000));
  // Each dump made its file before its sinks opened it.
  CHECK(exists(d.path + "/run.1.json"));
  CHECK(exists(d.path + "/run.2.json"));
}

TEST_CASE("flightrecordertrigger: the trigger asks for the records submitted before it, then the dump holds them",
          "[exports][flight]") {
  Directory d;
  Dumps dumps;
  ProfiledContext context{{1, 0, "gpu", config::Api::cuda, {}, {}}, nullptr};
  const std::string trigger = d.path + "/dump-now";
  {
    FlightRecorder recorder(
        3600 * kSecond, d.path + "/run.log", trigger,
        [&dumps](const std::string& log_template) {
          dumps.calls.push_back({log_template});
          SinkList sinks;
          sinks.push_back(std::make_unique<ListingSink>(dumps.calls.back()));
          return sinks;
        },
        [](const std::string& log_template) {
          return std::vector<std::string>{log_template.substr(0, log_template.size() - 4) + ".json"};
        });
    recorder.write(context, kernel_ending_at_ms(1));
    CHECK(recorder.poll() == RecordSink::PollNeed::nothing);
    const int fd = ::open(trigger.c_str(), O_WRONLY | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    ::close(fd);
    // Looked for at most every 100 ms.
    usleep(110'000);
    // Seen: nothing dumped yet, the rings drained first; the kernel the program made
    // before it arrives with that drain.
    CHECK(recorder.poll() == RecordSink::PollNeed::drain_first);
    CHECK(dumps.calls.empty());
    CHECK(exists(trigger));
    recorder.write(context, kernel_ending_at_ms(2));
    CHECK(recorder.poll() == RecordSink::PollNeed::nothing);
    CHECK(!exists(trigger));
  }
  CHECK(dumps.calls ==
        std::vector<std::vector<std::string>>{{d.path + "/run.1.log", "op _Z4spiny 1", "op _Z4spiny 2", "end"}});
}

TEST_CASE("flightrecorder: at exit the window goes to the exports' own files", "[exports][flight]") {
  Directory d;
  Dumps dumps;
  ProfiledContext context{{1, 0, "gpu", config::Api::cuda, {}, {}}, nullptr};
  {
    FlightRecorder recorder = recorder_into(dumps, d.path, 3600 * kSecond);
    recorder.write(context, kernel_ending_at_ms(1));
    recorder.write(context, kernel_ending_at_ms(2));
    recorder.end();
    recorder.end();
  }
  CHECK(dumps.calls == std::vector<std::vector<std::string>>{{d.path + "/run.log", "op _Z4spiny 1", "op _Z4spiny 2", "end"}});
}

TEST_CASE("flightrecorder: a dump never takes a file it did not make, nor a symbolic link's", "[exports][flight]") {
  Directory d;
  Dumps dumps;
  // Someone else's file at dump 1's name, a symbolic link at dump 2's.
  const int fd = ::open((d.path + "/run.1.json").c_str(), O_WRONLY | O_CREAT, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, "theirs", 6) == 6);
  ::close(fd);
  REQUIRE(::symlink((d.path + "/target").c_str(), (d.path + "/run.2.json").c_str()) == 0);
  {
    FlightRecorder recorder = recorder_into(dumps, d.path, kSecond);
    CHECK(recorder.dump(kT0) == 3);
    CHECK(recorder.dump(kT0) == 4);
  }
  REQUIRE(dumps.calls.size() == 2);
  CHECK(dumps.calls[0].front() == d.path + "/run.3.log");
  CHECK(dumps.calls[1].front() == d.path + "/run.4.log");
  struct stat st{};
  REQUIRE(::stat((d.path + "/run.1.json").c_str(), &st) == 0);
  CHECK(st.st_size == 6);
  CHECK(!exists(d.path + "/target"));
}

TEST_CASE("flightrecorder: the window holds at most its bound of bytes, the oldest dropped and counted",
          "[exports][flight]") {
  Directory d;
  Dumps dumps;
  ProfiledContext context{{1, 0, "gpu", config::Api::cuda, {}, {}}, nullptr};
  std::vector<std::string> warnings;
  config::set_warning_sink(
      [](std::string_view line, void* lines) { static_cast<std::vector<std::string>*>(lines)->emplace_back(line); },
      &warnings);
  // 1 MiB of run-file records holds about 90,000 such kernels: 300,000 overflow it.
  const std::size_t kernels = 300'000;
  {
    FlightRecorder recorder = recorder_into(dumps, d.path, 3600 * kSecond, 1);
    for (std::size_t i = 0; i < kernels; ++i) {
      recorder.write(context, kernel_ending_at_ms(i));
      REQUIRE(recorder.window_bytes() <= std::size_t{1} << 20);
    }
    REQUIRE(recorder.dump(kT0 + 1000 * kSecond) == 1);
  }
  config::set_warning_sink(nullptr, nullptr);
  REQUIRE(dumps.calls.size() == 1);
  // The template, the newest operations in order, the end.
  const std::vector<std::string>& calls = dumps.calls[0];
  const std::size_t kept = calls.size() - 2;
  const std::size_t dropped = kernels - kept;
  CHECK(kept > 60'000);
  CHECK(kept < 100'000);
  for (std::size_t i = 0; i < kept; ++i) {
    if (calls[i + 1] != "op _Z4spiny " + std::to_string(dropped + i)) FAIL("operation " << i << ": " << calls[i + 1]);
  }
  CHECK(warnings == std::vector<std::string>{fmt::format("flightrecorder: the window held at most 1 MiB of records; {} "
                                                         "older operations, 0 older NVTX events and 0 older API "
                                                         "calls were left out",
                                                         dropped)});
}
