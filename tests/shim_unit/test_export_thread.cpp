// An export on a thread of its own: what it is given reaches it whole and in order, its
// batches written on its own thread from copies, and a flush point waits for them.
#include <pthread.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "shim/output/export_thread.hpp"

using namespace computeprof::shim;
using computeprof::records::Record;

namespace {

// Every call the export gets, as lines, and whether it came on the thread that made
// the ExportThread.
struct Calls {
  std::mutex mutex;  // the test reads while the export's thread may write
  std::vector<std::string> lines;
  std::vector<bool> on_caller;
  pthread_t caller = pthread_self();

  std::vector<std::string> seen() {
    std::lock_guard lock(mutex);
    return lines;
  }
};

class RecordingExport final : public RecordSink {
 public:
  RecordingExport(Calls& calls, std::chrono::milliseconds slow_flush) : calls_(calls), slow_flush_(slow_flush) {}
  void begin() override { say("begin"); }
  void write(const ProfiledContext&, const Record& record) override {
    std::string line = "write " + std::string(record.method);
    if (record.counters) line += " counter " + std::to_string(record.counters->values[0].value);
    say(line);
  }
  void write_range(const computeprof::records::RangeEvent& event) override {
    say("range " + std::to_string(event.range_id));
  }
  void flush() override {
    std::this_thread::sleep_for(slow_flush_);
    say("flush");
  }
  void checkpoint() override { say("checkpoint"); }
  void end() override { say("end"); }
  void abandon() override { say("abandon"); }

 private:
  void say(const std::string& what) {
    std::lock_guard lock(calls_.mutex);
    calls_.lines.push_back(what);
    calls_.on_caller.push_back(pthread_equal(pthread_self(), calls_.caller) != 0);
  }
  Calls& calls_;
  std::chrono::milliseconds slow_flush_;
};

Record named(const char* method) {
  Record r;
  r.method = method;
  return r;
}

computeprof::records::RangeEvent range(std::uint64_t id) {
  computeprof::records::RangeEvent e;
  e.range_id = id;
  return e;
}

}  // namespace

TEST_CASE("an export's batches are written on its own thread, from copies, and a checkpoint waits for them",
          "[export_thread]") {
  Calls calls;
  ExportThread lane(std::make_unique<RecordingExport>(calls, std::chrono::milliseconds(50)));
  ProfiledContext context{{1, 0, "gpu", {}, {}, {}}, nullptr};
  lane.begin();
  {
    // The pipeline frees a record and its counters once it has written it: the export
    // must not need them after.
    Record a = named("a");
    auto counters = std::make_unique<computeprof::records::CounterValues>();
    counters->values[0] = computeprof::records::CounterValue::of(42);
    a.counters = counters.get();
    a.counter_state = computeprof::records::CounterState::measured;
    lane.write(context, a);
    lane.write_range(range(7));
    lane.write(context, named("b"));
  }
  lane.flush();
  lane.checkpoint();
  CHECK(calls.seen() == std::vector<std::string>{"begin", "write a counter 42", "range 7", "write b", "flush",
                                                 "checkpoint"});
  CHECK(calls.on_caller == std::vector<bool>{true, false, false, false, false, true});
  lane.end();
  CHECK(calls.seen().back() == "end");
  CHECK(calls.on_caller.back());
}

TEST_CASE("while its thread writes a batch, the next one gathers and goes at a later flush", "[export_thread]") {
  Calls calls;
  ExportThread lane(std::make_unique<RecordingExport>(calls, std::chrono::milliseconds(200)));
  ProfiledContext context{{1, 0, "gpu", {}, {}, {}}, nullptr};
  lane.begin();
  lane.write(context, named("a"));
  const auto before = std::chrono::steady_clock::now();
  lane.flush();
  // The thread is busy with "a" for 200 ms: this flush returns at once, "b" stays queued.
  lane.write(context, named("b"));
  lane.flush();
  CHECK(std::chrono::steady_clock::now() - before < std::chrono::milliseconds(150));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(calls.seen() == std::vector<std::string>{"begin", "write a", "flush"});
  lane.flush();
  lane.end();
  CHECK(calls.seen() == std::vector<std::string>{"begin", "write a", "flush", "write b", "flush", "end"});
}

TEST_CASE("a full queue waits for the thread: none lost, none repeated, in order", "[export_thread]") {
  Calls calls;
  ExportThread lane(std::make_unique<RecordingExport>(calls, std::chrono::milliseconds(0)));
  ProfiledContext context{{1, 0, "gpu", {}, {}, {}}, nullptr};
  const std::size_t n = 3 * ExportThread::kMostQueued + 5;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < n; ++i) names.push_back(std::to_string(i));
  lane.begin();
  std::vector<std::string> expected{"begin"};
  for (std::size_t i = 0; i < n; ++i) {
    lane.write(context, named(names[i].c_str()));
    expected.push_back("write " + names[i]);
    if (i % 1000 == 999) lane.flush();
  }
  lane.end();
  // The flushes land wherever the thread was idle: compared without them.
  std::vector<std::string> seen = calls.seen();
  std::erase(seen, "flush");
  expected.push_back("end");
  CHECK(seen == expected);
}

TEST_CASE("memory events wait for what was queued before them", "[export_thread]") {
  Calls calls;
  ExportThread lane(std::make_unique<RecordingExport>(calls, std::chrono::milliseconds(30)));
  ProfiledContext context{{1, 0, "gpu", {}, {}, {}}, nullptr};
  lane.begin();
  lane.write(context, named("a"));
  lane.flush();
  lane.write(context, named("b"));
  lane.write_memory({}, computeprof::records::MemoryLedger{});
  lane.end();
  // RecordingExport has no write_memory of its own: the order of the rest is the check.
  CHECK(calls.seen() == std::vector<std::string>{"begin", "write a", "flush", "write b", "end"});
  CHECK(calls.on_caller == std::vector<bool>{true, false, false, true, true});
}

TEST_CASE("in a forked child an export lets go of its output and of its parent's thread", "[export_thread]") {
  Calls calls;
  auto lane = std::make_unique<ExportThread>(std::make_unique<RecordingExport>(calls, std::chrono::milliseconds(0)));
  lane->begin();
  ProfiledContext context{{1, 0, "gpu", {}, {}, {}}, nullptr};
  lane->write(context, named("a"));
  lane->abandon();
  lane.reset();  // nothing written, nothing waited for: the thread is taken to be the parent's
  CHECK(calls.seen() == std::vector<std::string>{"begin", "abandon"});
}
