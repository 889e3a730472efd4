// CUPTI activity records tied to the shim's records (shim/activity_matcher.hpp): the
// operation and its activities in either order, graph nodes, the fallbacks and what is
// let go.
#include <cstdint>
#include <cstring>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "catch.hpp"

#include "shim/activity/activity_matcher.hpp"
#include "shim/activity/activity_records.hpp"

using namespace computeprof::shim;
using computeprof::records::CopyKind;
using computeprof::records::MemorySide;
using computeprof::records::Record;
using computeprof::records::RecordKind;
using computeprof::records::TransferDir;

namespace {

// Never dereferenced by the matcher.
const ProfiledContext* const kContextA = reinterpret_cast<const ProfiledContext*>(0x1000);
const ProfiledContext* const kContextB = reinterpret_cast<const ProfiledContext*>(0x2000);

ExpectedOperation launch(std::uint64_t external_id, const ProfiledContext* context = kContextA) {
  ExpectedOperation e;
  e.external_id = external_id;
  e.context = context;
  e.record.method = "_Z4spiny";
  e.record.cputime_ns = 7'000;
  e.record.timestamp_ns = 1'000;
  e.record.stream_id = 3;
  // Serialized: the shim waited for it, and its GPU times, until an activity gives
  // them, are the wait's end and no gputime (what is written when no activity comes).
  e.record.gpu_start_ns = 900'000;
  e.record.gpu_end_ns = 900'000;
  e.record.gputime_ns = 0;
  e.waited = true;
  return e;
}

// CUPTI's callback told the call's correlation id: the operation carries it.
ExpectedOperation tagged(std::uint64_t external_id, std::uint32_t correlation, const ProfiledContext* context = kContextA) {
  ExpectedOperation e = launch(external_id, context);
  e.correlation_id = correlation;
  return e;
}

GpuActivity kernel(std::uint32_t correlation, std::uint64_t start, std::uint64_t end) {
  GpuActivity a;
  a.correlation_id = correlation;
  a.kind = RecordKind::kernel;
  a.start_ns = start;
  a.end_ns = end;
  a.name = "_Z4spiny";
  return a;
}

// The records the matcher handed on, in the order it handed them.
class Collected final : public ReadySink {
 public:
  void take(const ProfiledContext* context, const Record& record, GpuTimesFrom times) override {
    records_.push_back({context, record, times});
  }
  std::size_t size() const { return records_.size(); }
  bool empty() const { return records_.empty(); }
  const ReadyRecord& operator[](std::size_t i) const { return records_.at(i); }
  void clear() { records_.clear(); }

 private:
  std::vector<ReadyRecord> records_;
};

// What read_activity_record handed on: nothing (monostate) or a GPU activity.
using ActivityRecord = std::variant<std::monostate, GpuActivity>;

// As CUPTI hands records over: bytes in a buffer it wrote.
template <typename CuptiRecord>
ActivityRecord read_bytes_of(const CuptiRecord& record) {
  alignas(8) unsigned char buffer[sizeof(CuptiRecord)];
  std::memcpy(buffer, &record, sizeof record);
  ActivityRecord read;
  int calls = 0;
  read_activity_record(*reinterpret_cast<const CUpti_Activity*>(buffer), [&](const GpuActivity& a) {
    read = a;
    ++calls;
  });
  CHECK(calls == (std::holds_alternative<std::monostate>(read) ? 0 : 1));
  return read;
}

}  // namespace

TEST_CASE("an operation gets its activity's times whether it or its activity comes first", "[activity]") {
  for (const bool activity_first : {false, true}) {
    INFO("activity first: " << activity_first);
    ActivityMatcher m;
    Collected out;
    if (activity_first) m.add(kernel(7, 1'000'000, 1'250'000), 10, out);
    m.add(kernel(8, 2'000'000, 2'500'000), 10, out);  // another call's, never tagged here
    CHECK(out.empty());
    m.expect(tagged(42, 7), 10, out);
    if (!activity_first) {
      CHECK(out.empty());
      m.add(kernel(7, 1'000'000, 1'250'000), 10, out);
    }
    REQUIRE(out.size() == 1);
    const ReadyRecord& r = out[0];
    CHECK(r.context == kContextA);
    CHECK(r.times == GpuTimesFrom::activity);
    CHECK(r.record.method == "_Z4spiny");
    CHECK(r.record.gpu_start_ns == 1'000'000);
    CHECK(r.record.gpu_end_ns == 1'250'000);
    CHECK(r.record.gputime_ns == 250'000);
    CHECK(r.record.cputime_ns == 7'000);
    CHECK(r.record.stream_id == 3);
    // The untagged activity is let go after its rounds; nothing else is left.
    CHECK(m.waiting());
    for (int round = 0; round <= ActivityMatcher::kUntaggedRounds; ++round) m.end_round(20, out);
    CHECK(out.size() == 1);
    CHECK_FALSE(m.waiting());
  }
}

TEST_CASE("an operation whose correlation id is unknown is written without GPU times once overdue", "[activity]") {
  ActivityMatcher m;
  Collected out;
  m.expect(tagged(42, 0), 0, out);  // CUPTI's callback did not come
  m.add(kernel(7, 1'000'000, 1'250'000), 0, out);
  CHECK(out.empty());
  m.end_round(ActivityMatcher::kOverdueNs + 1, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].times == GpuTimesFrom::unknown);
  CHECK(out[0].record.gputime_ns == 0);
}

TEST_CASE("activities of other operations are never taken", "[activity]") {
  ActivityMatcher m;
  Collected out;
  m.expect(tagged(1, 10), 0, out);
  m.expect(tagged(2, 20, kContextB), 0, out);
  m.add(kernel(20, 5'000, 6'000), 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].context == kContextB);
  CHECK(out[0].record.gputime_ns == 1'000);
  m.add(kernel(99, 1, 2), 0, out);  // untagged work: the program's own, or CUPTI's
  CHECK(out.size() == 1);
  CHECK(m.expecting(kContextA));
  CHECK_FALSE(m.expecting(kContextB));
  m.add(kernel(10, 3'000, 3'100), 0, out);
  REQUIRE(out.size() == 2);
  CHECK(out[1].context == kContextA);
  CHECK(out[1].record.gputime_ns == 100);
}

TEST_CASE("an operation waited for with no activity is written without GPU times once overdue", "[activity]") {
  ActivityMatcher m;
  Collected out;
  m.expect(tagged(5, 50), 1'000, out);
  m.end_round(1'000 + ActivityMatcher::kOverdueNs - 1, out);
  CHECK(out.empty());
  m.end_round(1'000 + ActivityMatcher::kOverdueNs, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].times == GpuTimesFrom::unknown);
  CHECK(out[0].record.gpu_start_ns == 900'000);
  CHECK(out[0].record.gputime_ns == 0);
  CHECK_FALSE(m.waiting());
  // A late activity finds nothing to complete.
  m.add(kernel(50, 1, 2), 0, out);
  CHECK(out.size() == 1);
}

TEST_CASE("settling a context writes its operations, the others keep waiting", "[activity]") {
  ActivityMatcher m;
  Collected out;
  m.expect(launch(1, kContextA), 0, out);
  m.expect(launch(2, kContextB), 0, out);
  m.settle(kContextA, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].context == kContextA);
  CHECK(out[0].times == GpuTimesFrom::unknown);
  CHECK(m.expecting(kContextB));
  m.settle(nullptr, out);
  REQUIRE(out.size() == 2);
  CHECK(out[1].context == kContextB);
  CHECK_FALSE(m.expecting(nullptr));
}

TEST_CASE("a graph launch becomes one record per node, late nodes included while it lingers", "[activity]") {
  ActivityMatcher m;
  Collected out;
  ExpectedOperation g = tagged(9, 90);
  g.record.kind = RecordKind::graph;
  g.record.method = "graphLaunch";
  GpuActivity early = kernel(90, 500, 700);  // a node whose record came before the launch's
  early.graph_node_id = 3;
  m.add(early, 0, out);
  m.expect(g, 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].record.gputime_ns == 200);
  out.clear();
  GpuActivity k2 = kernel(90, 3'000, 4'000);
  k2.name = "_Z6secondv";
  k2.grid = {4, 1, 1};
  k2.block = {128, 1, 1};
  k2.registers = 32;
  k2.graph_node_id = 2;
  GpuActivity copy;
  copy.correlation_id = 90;
  copy.kind = RecordKind::memcpy;
  copy.start_ns = 1'000;
  copy.end_ns = 2'000;
  copy.bytes = 4096;
  copy.source = MemorySide::pinned_host;
  copy.destination = MemorySide::device;
  copy.graph_node_id = 1;
  m.add(k2, 100, out);
  m.add(copy, 100, out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].record.method == "_Z6secondv");
  CHECK(out[0].record.kind == RecordKind::kernel);
  CHECK(out[0].record.grid.x == 4);
  CHECK(out[0].record.block.x == 128);
  CHECK(out[0].record.registers == 32);
  CHECK(out[0].record.gputime_ns == 1'000);
  CHECK(out[0].record.cputime_ns == 7'000);
  CHECK(out[0].record.stream_id == 3);
  CHECK_FALSE(out[0].record.occupancy.has_value());
  CHECK(out[1].record.method == "memcpyHtoDasync");
  CHECK(out[1].record.kind == RecordKind::memcpy);
  CHECK(out[1].record.transfer_dir == TransferDir::host_to_device);
  CHECK(out[1].record.transfer_bytes == 4096);
  // A node in a later buffer, within the linger time.
  GpuActivity set;
  set.correlation_id = 90;
  set.kind = RecordKind::memset;
  set.start_ns = 5'000;
  set.end_ns = 5'500;
  set.bytes = 64;
  m.add(set, 100 + ActivityMatcher::kGraphLingerNs - 1, out);
  REQUIRE(out.size() == 3);
  CHECK(out[2].record.method == "memset");
  CHECK(out[2].record.transfer_bytes == 64);
  m.end_round(100 + ActivityMatcher::kGraphLingerNs, out);
  CHECK_FALSE(m.expecting(nullptr));
  m.settle(nullptr, out);
  CHECK(out.size() == 3);  // a matched graph launch is not written again
}

TEST_CASE("a graph launch with no node activity is one graphLaunch record, not a warning", "[activity]") {
  ActivityMatcher m;
  Collected out;
  ExpectedOperation g = launch(9);
  g.record.kind = RecordKind::graph;
  g.record.method = "graphLaunch";
  m.expect(g, 0, out);
  m.settle(nullptr, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].record.method == "graphLaunch");
  CHECK(out[0].times == GpuTimesFrom::unknown);
}

TEST_CASE("activities no operation takes are let go after a few rounds", "[activity]") {
  ActivityMatcher m;
  Collected out;
  m.add(kernel(1, 1, 2), 0, out);
  for (int i = 0; i < ActivityMatcher::kUntaggedRounds; ++i) m.end_round(1'000, out);
  CHECK(m.waiting());
  m.end_round(1'000, out);
  CHECK_FALSE(m.waiting());
  CHECK(out.empty());
}

TEST_CASE("CUPTI records are read by kind, records of other kinds are passed over", "[activity]") {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.correlationId = 12;
  k.start = 100;
  k.end = 350;
  k.gridX = 8;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.registersPerThread = 40;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 2048;
  k.graphNodeId = 5;
  k.graphId = 2;
  k.name = "_Z3fooi";
  const auto kr = read_bytes_of(k);
  REQUIRE(std::holds_alternative<GpuActivity>(kr));
  const auto& a = std::get<GpuActivity>(kr);
  CHECK(a.correlation_id == 12);
  CHECK(a.kind == RecordKind::kernel);
  CHECK(a.end_ns - a.start_ns == 250);
  CHECK(a.grid.x == 8);
  CHECK(a.grid.y == 2);
  CHECK(a.block.x == 256);
  CHECK(a.registers == 40);
  CHECK(a.static_smem == 1024);
  CHECK(a.dynamic_smem == 2048);
  CHECK(a.graph_node_id == 5);
  CHECK(std::string(a.name) == "_Z3fooi");

  CUpti_ActivityMemcpy6 c{};
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  c.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  c.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  c.bytes = 1 << 20;
  c.correlationId = 13;
  const auto cr = read_bytes_of(c);
  REQUIRE(std::holds_alternative<GpuActivity>(cr));
  const CopyKind ck = copy_kind_of(std::get<GpuActivity>(cr));
  CHECK(ck.method == "memcpyDtoHasync");
  CHECK(ck.dir == TransferDir::device_to_host);
  c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  c.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  CHECK(copy_kind_of(std::get<GpuActivity>(read_bytes_of(c))).method ==
        "memcpyPtoPasync");

  CUpti_ActivityMemset4 s{};
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 64;
  s.correlationId = 14;
  const auto sr = read_bytes_of(s);
  REQUIRE(std::holds_alternative<GpuActivity>(sr));
  CHECK(std::get<GpuActivity>(sr).kind == RecordKind::memset);
  CHECK(std::get<GpuActivity>(sr).bytes == 64);

  CUpti_ActivityExternalCorrelation e{};
  e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  e.externalId = 0xabc;
  e.correlationId = 12;
  CHECK(std::holds_alternative<std::monostate>(read_bytes_of(e)));

  CUpti_ActivityAPI api{};
  api.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  CHECK(std::holds_alternative<std::monostate>(read_bytes_of(api)));
}

TEST_CASE("an activity's times are read in place, as its whole record gives them", "[activity]") {
  const auto times_of = [](const auto& cupti) {
    alignas(8) unsigned char buffer[sizeof cupti];
    std::memcpy(buffer, &cupti, sizeof cupti);
    ActivityTimes t;
    const bool read = read_activity_times(*reinterpret_cast<const CUpti_Activity*>(buffer), t);
    return std::pair{read, t};
  };
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.correlationId = 12;
  k.start = 100;
  k.end = 350;
  auto [read, t] = times_of(k);
  CHECK(read);
  CHECK(t.correlation_id == 12);
  CHECK(t.kind == RecordKind::kernel);
  CHECK(t.start_ns == 100);
  CHECK(t.end_ns == 350);
  CHECK_FALSE(t.graph_node);
  k.graphNodeId = 5;  // a graph launch's node: read whole
  CHECK(times_of(k).second.graph_node);

  CUpti_ActivityMemcpy6 c{};
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  c.correlationId = 13;
  c.start = 7;
  c.end = 9;
  std::tie(read, t) = times_of(c);
  CHECK(read);
  CHECK(t.correlation_id == 13);
  CHECK(t.kind == RecordKind::memcpy);
  CHECK(t.end_ns - t.start_ns == 2);

  CUpti_ActivityMemset4 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.correlationId = 14;
  std::tie(read, t) = times_of(m);
  CHECK(read);
  CHECK(t.kind == RecordKind::memset);

  CUpti_ActivityAPI api{};
  api.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  CHECK_FALSE(times_of(api).first);
}

TEST_CASE("an activity no operation took is let go after its rounds, a younger one stays for its operation",
          "[activity]") {
  ActivityMatcher m;
  Collected out;
  m.add(kernel(7, 1'000, 1'100), 0, out);  // round 0
  m.end_round(0, out);
  m.end_round(0, out);
  m.add(kernel(8, 2'000, 2'300), 0, out);  // round 2
  for (int round = 2; round <= ActivityMatcher::kUntaggedRounds; ++round) m.end_round(0, out);
  // The first is let go now; the second is kUntaggedRounds younger.
  m.expect(tagged(1, 7), 0, out);
  CHECK(out.empty());
  m.expect(tagged(2, 8), 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].record.gputime_ns == 300);
  m.settle(nullptr, out);
  REQUIRE(out.size() == 2);
  CHECK(out[1].times == GpuTimesFrom::unknown);
  for (int round = 0; round <= ActivityMatcher::kUntaggedRounds; ++round) m.end_round(0, out);
  CHECK_FALSE(m.waiting());
}

TEST_CASE("serialized: records come out in the order their operations were expected", "[activity]") {
  ActivityMatcher m(true);
  Collected out;
  m.expect(tagged(1, 10), 0, out);
  m.expect(tagged(2, 20), 0, out);
  m.expect(tagged(3, 30), 0, out);
  // The third and second are matched first: held until the first is out.
  m.add(kernel(30, 5'000, 6'000), 0, out);
  m.add(kernel(20, 3'000, 4'000), 0, out);
  CHECK(out.empty());
  m.add(kernel(10, 1'000, 2'000), 0, out);
  REQUIRE(out.size() == 3);
  CHECK(out[0].record.gpu_start_ns == 1'000);
  CHECK(out[1].record.gpu_start_ns == 3'000);
  CHECK(out[2].record.gpu_start_ns == 5'000);
  CHECK_FALSE(m.waiting());
}

TEST_CASE("an operation whose activity came first completes at once, in order behind unfinished ones",
          "[activity]") {
  // Each collector round delivers its activities before it takes the operations queued
  // before them: that operation is never stored, its record gets its times in the
  // caller's copy.
  for (const bool in_order : {false, true}) {
    INFO("in order " << in_order);
    ActivityMatcher m(in_order);
    Collected out;
    m.add(kernel(10, 1'000, 2'000), 0, out);
    ExpectedOperation first = tagged(1, 10);
    m.expect(first, 0, out);
    REQUIRE(out.size() == 1);
    CHECK(first.record.gpu_start_ns == 1'000);
    CHECK(first.record.gputime_ns == 1'000);
    CHECK(out[0].record.gputime_ns == 1'000);
    CHECK_FALSE(m.waiting());
    // The next operation's activity has not come; the one after it has.
    m.expect(tagged(2, 20), 0, out);
    m.add(kernel(30, 5'000, 6'000), 0, out);
    m.expect(tagged(3, 30), 0, out);
    if (in_order) {
      CHECK(out.size() == 1);  // held behind the second
    } else {
      REQUIRE(out.size() == 2);
      CHECK(out[1].record.gpu_start_ns == 5'000);
    }
    m.add(kernel(20, 3'000, 4'000), 0, out);
    REQUIRE(out.size() == 3);
    CHECK(out[1].record.gpu_start_ns == (in_order ? 3'000 : 5'000));
    CHECK(out[2].record.gpu_start_ns == (in_order ? 5'000 : 3'000));
    CHECK_FALSE(m.waiting());
  }
}

TEST_CASE("activities that come in bursts before their operations reuse their places", "[activity]") {
  // A round delivers several activities before their operations: each burst's places are
  // freed as its operations take them, and the next burst takes them again.
  for (const bool in_order : {false, true}) {
    INFO("in order " << in_order);
    ActivityMatcher m(in_order);
    Collected out;
    constexpr std::uint32_t kBursts = 1'000;
    constexpr std::uint32_t kBurst = 5;
    for (std::uint32_t b = 0; b < kBursts; ++b) {
      for (std::uint32_t i = 0; i < kBurst; ++i) {
        const std::uint32_t id = 100 + b * kBurst + i;
        m.add(kernel(id, 10 * id, 10 * id + 3), 0, out);
      }
      for (std::uint32_t i = 0; i < kBurst; ++i) {
        const std::uint32_t id = 100 + b * kBurst + i;
        m.expect(tagged(id, id), 0, out);
      }
      m.end_round(b, out);
    }
    REQUIRE(out.size() == kBursts * kBurst);
    for (std::size_t n = 0; n < out.size(); ++n) {
      const std::uint64_t id = 100 + n;
      CHECK(out[n].record.gpu_start_ns == 10 * id);
      CHECK(out[n].record.gputime_ns == 3);
    }
    CHECK_FALSE(m.waiting());
    CHECK(m.places().arrivals == kBurst);
    CHECK(m.places().operations == 0);
  }
}

TEST_CASE("serialized: an overdue operation comes out without GPU times and frees those behind it",
          "[activity]") {
  ActivityMatcher m(true);
  Collected out;
  m.expect(tagged(1, 10), 0, out);
  m.expect(tagged(2, 20), 10, out);
  m.add(kernel(20, 3'000, 4'000), 10, out);
  m.end_round(ActivityMatcher::kOverdueNs - 1, out);
  CHECK(out.empty());
  m.end_round(ActivityMatcher::kOverdueNs, out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].times == GpuTimesFrom::unknown);
  CHECK(out[0].record.gputime_ns == 0);
  CHECK(out[1].times == GpuTimesFrom::activity);
  CHECK(out[1].record.gputime_ns == 1'000);
}

TEST_CASE("serialized: settling a context writes its records now, whatever other contexts wait for",
          "[activity]") {
  ActivityMatcher m(true);
  Collected out;
  m.expect(tagged(1, 10, kContextA), 0, out);
  m.expect(tagged(2, 20, kContextB), 0, out);
  m.expect(tagged(3, 30, kContextB), 0, out);
  m.add(kernel(20, 3'000, 4'000), 0, out);
  CHECK(out.empty());
  m.settle(kContextB, out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].context == kContextB);
  CHECK(out[0].times == GpuTimesFrom::activity);
  CHECK(out[1].context == kContextB);
  CHECK(out[1].times == GpuTimesFrom::unknown);
  out.clear();
  m.add(kernel(10, 1'000, 2'000), 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].context == kContextA);
  CHECK_FALSE(m.waiting());
}

TEST_CASE("conckerneltrace: an operation not waited for is never overdue, settled, its GPU times are unknown",
          "[activity]") {
  ActivityMatcher m;
  Collected out;
  ExpectedOperation running = launch(4);
  running.waited = false;
  running.record.gputime_ns = 0;
  m.expect(std::move(running), 0, out);
  m.end_round(10 * ActivityMatcher::kOverdueNs, out);
  CHECK(out.empty());
  CHECK(m.expecting(kContextA));
  m.settle(nullptr, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].times == GpuTimesFrom::unknown);
  CHECK(out[0].record.gputime_ns == 0);
}

TEST_CASE("two operations tagged with one correlation id: the later takes its activity, the earlier falls back",
          "[activity]") {
  ActivityMatcher m;
  Collected out;
  m.expect(tagged(9, 90), 0, out);
  m.expect(tagged(10, 90), 0, out);  // a repeated id: no CUPTI gives one, nothing is guessed
  m.add(kernel(90, 1'000, 1'300), 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].times == GpuTimesFrom::activity);
  CHECK(out[0].record.gputime_ns == 300);
  m.end_round(ActivityMatcher::kOverdueNs, out);
  REQUIRE(out.size() == 2);
  CHECK(out[1].times == GpuTimesFrom::unknown);
  CHECK(out[1].record.gputime_ns == 0);
  CHECK_FALSE(m.waiting());
}

TEST_CASE("10,000 operations whose pieces interleave each get their own activity's times", "[activity]") {
  // Places of operations and correlations are reused all along: no record may take
  // another's times, none may be lost. Serialized (in order, waited for) and
  // conckerneltrace (neither), and unordered operations that were waited for.
  for (const auto& [in_order, waited] : {std::pair{true, true}, std::pair{false, false}, std::pair{false, true}}) {
    INFO("in order " << in_order << ", waited " << waited);
    ActivityMatcher m(in_order);
    Collected out;
    constexpr std::uint64_t kOperations = 10'000;
    constexpr std::uint64_t kLag = 37;  // activities trail their calls by this many operations
    for (std::uint64_t i = 0; i < kOperations + 2 * kLag; ++i) {
      if (i < kOperations) {
        ExpectedOperation op = launch(1'000 + i);
        op.waited = waited;
        op.record.correlation_id = i;
        op.correlation_id = static_cast<std::uint32_t>(50 + i);
        // Every third operation's activity comes before it is expected.
        if (i % 3 == 0) m.add(kernel(static_cast<std::uint32_t>(50 + i), 10 * i, 10 * i + i % 7 + 1), 0, out);
        m.expect(op, 0, out);
      }
      if (i >= kLag && i - kLag < kOperations) {
        const std::uint64_t j = i - kLag;
        // Activities of pairs of operations come in swapped order.
        const std::uint64_t k = j % 2 == 0 ? (j + 1 < kOperations ? j + 1 : j) : j - 1;
        if (k % 3 != 0) m.add(kernel(static_cast<std::uint32_t>(50 + k), 10 * k, 10 * k + k % 7 + 1), 0, out);
      }
      if (i % 500 == 0) m.end_round(i, out);
    }
    REQUIRE(out.size() == kOperations);
    std::vector<bool> seen(kOperations);
    for (std::size_t n = 0; n < out.size(); ++n) {
      const std::uint64_t i = out[n].record.correlation_id;
      REQUIRE(i < kOperations);
      CHECK_FALSE(seen[i]);
      seen[i] = true;
      CHECK(out[n].record.gpu_start_ns == 10 * i);
      CHECK(out[n].record.gputime_ns == i % 7 + 1);
      if (in_order) CHECK(i == n);
    }
    CHECK_FALSE(m.waiting());
    // Freed places were reused: the arrays hold what was outstanding at once, not what
    // passed through.
    const ActivityMatcher::Places places = m.places();
    INFO(places.operations << " " << places.arrivals << " " << places.correlations);
    CHECK(places.operations <= kLag);
    CHECK(places.arrivals <= 2);
    CHECK(places.correlations <= 2);
  }
}

TEST_CASE("a late activity of an operation given up never completes the operation that reused its place",
          "[activity]") {
  ActivityMatcher m;
  Collected out;
  m.expect(tagged(9, 90), 0, out);
  m.end_round(ActivityMatcher::kOverdueNs, out);  // given up: no GPU times
  REQUIRE(out.size() == 1);
  CHECK(out[0].times == GpuTimesFrom::unknown);
  m.expect(tagged(10, 100), 0, out);  // in the place operation 9 had
  m.add(kernel(90, 1'000, 1'300), 0, out);
  CHECK(out.size() == 1);
  m.add(kernel(100, 7'000, 7'070), 0, out);
  REQUIRE(out.size() == 2);
  CHECK(out[1].times == GpuTimesFrom::activity);
  CHECK(out[1].record.gputime_ns == 70);
}

TEST_CASE("an operation with several activities spans the earliest start to the latest end", "[activity]") {
  ActivityMatcher m;
  Collected out;
  m.add(kernel(7, 2'000, 2'500), 0, out);
  m.add(kernel(7, 1'000, 1'400), 0, out);
  m.add(kernel(7, 1'800, 3'000), 0, out);
  m.expect(tagged(42, 7), 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].record.gpu_start_ns == 1'000);
  CHECK(out[0].record.gpu_end_ns == 3'000);
  CHECK(out[0].record.gputime_ns == 2'000);
  // The place is reused by a call with one activity: nothing of the earlier ones stays.
  m.add(kernel(8, 5'000, 5'100), 0, out);
  m.expect(tagged(43, 8), 0, out);
  REQUIRE(out.size() == 2);
  CHECK(out[1].record.gpu_start_ns == 5'000);
  CHECK(out[1].record.gputime_ns == 100);
  CHECK_FALSE(m.waiting());
  // A further activity of a completed call is work of nothing the matcher expects.
  m.add(kernel(8, 6'000, 6'100), 0, out);
  for (int i = 0; i <= ActivityMatcher::kUntaggedRounds; ++i) m.end_round(0, out);
  CHECK_FALSE(m.waiting());
  CHECK(out.size() == 2);
}

