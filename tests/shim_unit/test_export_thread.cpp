// An export on a thread of its own: what it is given reaches it whole and in order, its
// batches on its own thread, and settle returns only once they are written.
#include <pthread.h>

#include <atomic>
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

// Every call the export gets, as "<call>" lines, and whether it came on the thread
// that made the ExportThread.
struct Calls {
  std::mutex mutex;  // only for the test's own reading while the export's thread runs
  std::vector<std::string> lines;
  std::vector<bool> on_caller;
  pthread_t caller = pthread_self();
};

class RecordingExport final : public RecordSink {
 public:
  RecordingExport(Calls& calls, std::chrono::milliseconds slow_flush) : calls_(calls), slow_flush_(slow_flush) {}
  void begin() override { say("begin"); }
  void write(const ProfiledContext&, const Record& record) override { say("write " + std::string(record.method)); }
  void write_range(const computeprof::records::RangeEvent&) override { say("range"); }
  void flush() override {
    std::this_thread::sleep_for(slow_flush_);
    say("flush");
  }
  void checkpoint() override { say("checkpoint"); }
  void poll() override { say("poll"); }
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

}  // namespace

TEST_CASE("an export's batches are written on its own thread, and settle waits for them", "[export_thread]") {
  Calls calls;
  ExportThread lane(std::make_unique<RecordingExport>(calls, std::chrono::milliseconds(50)));
  ProfiledContext context{1, 0, "gpu", {}, {}, nullptr, {}};
  const Record a = named("a"), b = named("b"), c = named("c");
  lane.begin();
  lane.write(context, a);
  lane.write(context, b);
  lane.flush();
  lane.settle();
  // Settled: the batch and the export's flush are done, however slow the flush.
  {
    std::lock_guard lock(calls.mutex);
    CHECK(calls.lines == std::vector<std::string>{"begin", "write a", "write b", "flush"});
    CHECK(calls.on_caller == std::vector<bool>{true, false, false, false});
  }
  lane.write(context, c);
  lane.flush();
  lane.settle();
  lane.end();
  CHECK(calls.lines == std::vector<std::string>{"begin", "write a", "write b", "flush", "write c", "flush", "end"});
  CHECK(calls.on_caller == std::vector<bool>{true, false, false, false, false, false, true});
}

TEST_CASE("what an export is given between flushes reaches it in the order given", "[export_thread]") {
  Calls calls;
  ExportThread lane(std::make_unique<RecordingExport>(calls, std::chrono::milliseconds(0)));
  ProfiledContext context{1, 0, "gpu", {}, {}, nullptr, {}};
  const Record a = named("a"), b = named("b"), c = named("c");
  lane.begin();
  lane.write(context, a);
  lane.write_range({});
  lane.write(context, b);
  lane.flush();
  // Not settled yet: the next call waits for the thread, then comes after its batch.
  lane.checkpoint();
  lane.write(context, c);
  lane.poll();
  lane.end();
  CHECK(calls.lines == std::vector<std::string>{"begin", "write a", "range", "write b", "flush", "checkpoint", "write c",
                                                "poll", "end"});
  // The records written before a range, and those after a poll, by the caller: the
  // export's thread only runs what a flush hands it.
  CHECK(calls.on_caller == std::vector<bool>{true, true, true, false, false, true, true, true, true});
}

TEST_CASE("a flush not settled is waited for by the next write, and by the export's end", "[export_thread]") {
  Calls calls;
  ExportThread lane(std::make_unique<RecordingExport>(calls, std::chrono::milliseconds(30)));
  ProfiledContext context{1, 0, "gpu", {}, {}, nullptr, {}};
  const Record a = named("a"), b = named("b");
  lane.begin();
  lane.write(context, a);
  lane.flush();
  lane.write(context, b);
  lane.flush();
  lane.end();
  CHECK(calls.lines == std::vector<std::string>{"begin", "write a", "flush", "write b", "flush", "end"});
}

TEST_CASE("many batches from a writer reach the export whole, none lost or repeated", "[export_thread]") {
  Calls calls;
  ExportThread lane(std::make_unique<RecordingExport>(calls, std::chrono::milliseconds(0)));
  ProfiledContext context{1, 0, "gpu", {}, {}, nullptr, {}};
  std::vector<std::string> names;
  for (int i = 0; i < 1000; ++i) names.push_back(std::to_string(i));
  std::vector<Record> records(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) records[i].method = names[i];
  lane.begin();
  std::vector<std::string> expected{"begin"};
  for (std::size_t i = 0; i < records.size(); ++i) {
    lane.write(context, records[i]);
    expected.push_back("write " + names[i]);
    // Batches of 1 to 7 records, settled or not before the next.
    if (i % 7 == i % 3) {
      lane.flush();
      expected.push_back("flush");
      if (i % 2 == 0) lane.settle();
    }
  }
  lane.end();
  expected.push_back("end");
  CHECK(calls.lines == expected);
}

TEST_CASE("in a forked child an export lets go of its output and of its parent's thread", "[export_thread]") {
  Calls calls;
  auto lane = std::make_unique<ExportThread>(std::make_unique<RecordingExport>(calls, std::chrono::milliseconds(0)));
  lane->begin();
  lane->abandon();
  lane.reset();  // nothing waited for: the thread is taken to be the parent's
  CHECK(calls.lines == std::vector<std::string>{"begin", "abandon"});
}
