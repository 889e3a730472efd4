// The run file's encoder and reader (runfile/): what goes in comes back, field by field;
// a file cut or damaged anywhere is read up to the damage and reported at its offset.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "runfile/byte_coding.hpp"
#include "runfile/checksum.hpp"
#include "runfile/format.hpp"
#include "runfile/run_encoder.hpp"
#include "runfile/run_reader.hpp"

#include <fmt/format.h>

// Inside the namespace rather than using it: the file shares a unity batch.
namespace computeprof::runfile {
namespace {

struct Collected : RunVisitor {
  std::vector<std::pair<int, records::Record>> operations;
  std::vector<records::CounterValues> counters;
  std::vector<records::MemoryEvent> memory_events;
  std::vector<records::RangeEvent> ranges;
  std::vector<ProcessFacts> facts_seen;
  std::vector<std::string> methods;
  void operation(const records::ContextInfo& context, const records::Record& record) override {
    operations.emplace_back(context.number, record);
    methods.emplace_back(record.method);
    if (record.counters) counters.push_back(*record.counters);
  }
  void memory(const records::MemoryEvent& event) override { memory_events.push_back(event); }
  void range(const records::RangeEvent& event) override { ranges.push_back(event); }
  void facts(const ProcessFacts& f) override { facts_seen.push_back(f); }
};

RunHeader test_header() {
  RunHeader h;
  h.pid = 4242;
  h.program = "app";
  h.host = "node17";
  h.rank = config::DistributedRank{3, 8};
  h.command_line = {"./app", "--size", "1024"};
  h.wall_ns = 1'700'000'000'123'456'789ULL;
  h.monotonic_ns = 987'654'321;
  h.counters = {0, 7, 44};
  h.export_limit = 1u << 30;
  return h;
}

records::ContextInfo test_context(int number, int device) {
  records::ContextInfo c;
  c.number = number;
  c.device = device;
  c.device_name = "NVIDIA H200";
  c.origin = {5'000, 1'700'000'000'000'000'000ULL};
  c.device_properties.multiprocessors = 132;
  c.device_properties.compute_major = 9;
  c.device_properties.max_grid[2] = 65535;
  c.device_properties.uuid[15] = 0xAB;
  return c;
}

records::Record kernel(std::uint64_t i) {
  static const char kName[] = "_Z6vecAddPKfS0_Pfi";
  records::Record r;
  r.kind = records::RecordKind::kernel;
  r.method = kName;
  r.api = "cuLaunchKernel";
  r.timestamp_ns = 1'000 + i * 2'500;
  r.gpu_start_ns = 1'700'000'000'000'010'000ULL + i * 2'400;
  r.gpu_end_ns = r.gpu_start_ns + 1'800;
  r.gputime_ns = 1'800;
  r.cputime_ns = 2'100 + i % 7;
  r.stream_id = 7;
  r.correlation_id = 100 + i;
  r.grid = {4, 1, 1};
  r.block = {256, 1, 1};
  r.registers = 16;
  r.thread_id = 31337;
  r.occupancy = 0.75f;
  r.method_is_plain = true;
  return r;
}

std::string run_of(std::uint64_t launches, std::vector<std::size_t>* chunk_ends = nullptr,
                   std::vector<std::uint64_t>* operations_at = nullptr, bool end = true,
                   std::uint64_t chunk_operations = 1000) {
  records::RangeTable ranges;
  RunEncoder encoder(ranges, nullptr);
  std::string file = encode_header(test_header());
  const records::ContextInfo context = test_context(1, 0);
  encoder.facts({true, 1'700'000'000'000'000'000ULL, 5'000});
  for (std::uint64_t i = 0; i < launches; ++i) {
    encoder.operation(context, kernel(i));
    if ((i + 1) % chunk_operations == 0) {
      file += encoder.take_chunk();
      if (chunk_ends) chunk_ends->push_back(file.size());
      if (operations_at) operations_at->push_back(i + 1);
    }
  }
  if (end) encoder.end();
  file += encoder.take_chunk();
  if (chunk_ends) chunk_ends->push_back(file.size());
  if (operations_at) operations_at->push_back(launches);
  return file;
}

// A chunk made by hand around `payload`, with its checksum right.
std::string chunk_of(std::string_view payload) {
  std::string chunk(kChunkHeaderBytes, '\0');
  put_u32(chunk.data(), kChunkMagic);
  put_u32(chunk.data() + 4, static_cast<std::uint32_t>(payload.size()));
  put_u64(chunk.data() + 8, payload_checksum(payload));
  return chunk + std::string(payload);
}

std::string record_of(RecordKind kind, std::string_view body) {
  std::string out;
  ByteWriter w(out);
  w.byte(static_cast<std::uint8_t>(kind));
  w.varint(body.size());
  w.bytes(body);
  return out;
}

}  // namespace

TEST_CASE("a run file's header comes back field by field") {
  const std::string file = run_of(0);
  RunReader reader(file);
  REQUIRE(reader.header() != nullptr);
  const RunHeader& h = *reader.header();
  CHECK(h.major == kMajorVersion);
  CHECK(h.minor == kMinorVersion);
  CHECK(h.pid == 4242);
  CHECK(h.program == "app");
  CHECK(h.host == "node17");
  REQUIRE(h.rank.has_value());
  CHECK(h.rank->rank == 3);
  CHECK(h.rank->world_size == 8);
  CHECK(h.command_line == std::vector<std::string>{"./app", "--size", "1024"});
  CHECK(h.wall_ns == 1'700'000'000'123'456'789ULL);
  CHECK(h.monotonic_ns == 987'654'321);
  CHECK(h.counters == std::vector<std::uint16_t>{0, 7, 44});
  CHECK(h.export_limit == 1u << 30);
  Collected seen;
  const ReadSummary summary = reader.read(seen);
  CHECK_FALSE(summary.error);
  CHECK(summary.ended);
  CHECK(summary.operations == 0);
  CHECK(summary.bytes == file.size());
  REQUIRE(seen.facts_seen.size() == 1);
  CHECK(seen.facts_seen[0] == ProcessFacts{true, 1'700'000'000'000'000'000ULL, 5'000});
}

TEST_CASE("every field of every record kind comes back as it was written") {
  records::RangeTable ranges;
  const records::RangeNameId outer = ranges.intern_name("outer");
  const records::RangeNameId inner = ranges.intern_name("inner\x01");  // kept as "inner "
  const records::RangeDomainId domain = ranges.add_domain(ranges.intern_name("mydomain"));
  const records::RangePathId outer_path = ranges.intern_path(0, 0, outer);
  const records::RangePathId inner_path = ranges.intern_path(outer_path, domain, inner);
  std::vector<symbols::Frame> frames(2);
  frames[0] = {"main", "/usr/bin/app", 0x1234, 0x401234, "app.cpp", 42, false};
  frames[1] = {"helper()", "/usr/bin/app", 0x1200, 0x401200, "", 0, true};
  RunEncoder encoder(ranges, [&](std::uint32_t) -> const std::vector<symbols::Frame>& { return frames; });
  std::string file = encode_header(test_header());

  const records::ContextInfo one = test_context(1, 0);
  records::ContextInfo two = test_context(2, 1);
  two.api = config::Api::opencl;
  two.device_name = "pthread-cpu";

  records::Record k = kernel(0);
  k.range_path = inner_path;
  k.stack_id = 5;
  k.counter_state = records::CounterState::measured;
  records::CounterValues values;
  values.values[3] = records::CounterValue::of(123456789);
  values.values[44] = records::CounterValue::unavailable_value();
  k.counters = &values;
  k.dynamic_smem = 1024;
  k.static_smem = 48;
  k.cache_config_requested = 1;
  k.cache_config_executed = 2;
  records::Record copy;
  copy.kind = records::RecordKind::memcpy;
  copy.method = "memcpyHtoD";
  copy.api = "cuMemcpyHtoD_v2";
  copy.timestamp_ns = 500;  // earlier than the kernel: differences are signed
  copy.gpu_start_ns = 10;
  copy.gpu_end_ns = 5;      // before its start: still exact
  copy.gputime_ns = 77;
  copy.cputime_ns = 1;
  copy.correlation_id = 3;
  copy.transfer_bytes = 1ull << 40;
  copy.transfer_dir = records::TransferDir::peer;
  copy.host_mem_type = records::HostMemType::page_locked;
  copy.thread_id = 9;
  records::Record cl = kernel(1);
  cl.local_block_size = 64;
  cl.occupancy.reset();
  cl.method = "opencl_kernel";
  cl.method_is_plain = false;
  records::Record graph = kernel(2);
  graph.kind = records::RecordKind::graph;
  graph.counter_state = records::CounterState::unavailable;

  records::MemoryEvent alloc;
  alloc.api = "cuMemAlloc_v2";
  alloc.start_ns = 100;
  alloc.wall_ns = 150;
  alloc.sequence = 1;
  alloc.address = 0x7f0000000000;
  alloc.bytes = 4096;
  alloc.correlation_id = 12;
  alloc.device = 1;
  alloc.context_id = 2;
  alloc.thread_id = 77;
  alloc.stack_id = 5;
  alloc.kind = records::MemoryKind::pool;
  alloc.pool = 0xdead;
  alloc.pool_reserved = 1 << 20;
  alloc.pool_used = 4096;
  alloc.device_used = 1 << 30;
  alloc.stream_id = 3;
  records::MemoryEvent free = alloc;
  free.operation = records::MemoryOperation::free;
  free.start_ns = 90;  // earlier than the allocation's
  free.sequence = 2;
  free.unknown = true;

  records::RangeEvent push;
  push.kind = records::RangeEventKind::push_pop;
  push.start_wall_ns = 1'000;
  push.end_wall_ns = 9'000;
  push.path = inner_path;
  push.name = inner;
  push.domain = domain;
  push.thread_id = 77;
  push.end_thread_id = 77;
  push.has_color = true;
  push.color = 0xFF00FF00;
  push.payload = records::RangePayloadKind::float64;
  push.payload_bits = 0x400921FB54442D18ULL;
  records::RangeEvent start_end = push;
  start_end.kind = records::RangeEventKind::start_end;
  start_end.range_id = 99;
  start_end.end_thread_id = 78;
  start_end.has_color = false;
  start_end.color = 0;
  start_end.path = 0;
  start_end.category = 4;

  encoder.operation(one, k);
  encoder.operation(two, cl);
  encoder.memory(alloc);
  file += encoder.take_chunk();
  encoder.operation(one, copy);
  encoder.range(push);
  encoder.memory(free);
  encoder.range(start_end);
  encoder.operation(one, graph);
  encoder.end();
  file += encoder.take_chunk();

  RunReader reader(file);
  Collected seen;
  const ReadSummary summary = reader.read(seen);
  CHECK_FALSE(summary.error);
  CHECK(summary.ended);
  CHECK(summary.chunks == 2);
  CHECK(summary.operations == 4);
  CHECK(summary.memory_events == 2);
  CHECK(summary.range_events == 2);
  CHECK(summary.bytes == file.size());

  const auto same_record = [](const records::Record& a, const records::Record& b) {
    CHECK(a.method == b.method);
    CHECK(a.api == b.api);
    CHECK(a.gpu_start_ns == b.gpu_start_ns);
    CHECK(a.gpu_end_ns == b.gpu_end_ns);
    CHECK(a.timestamp_ns == b.timestamp_ns);
    CHECK(a.gputime_ns == b.gputime_ns);
    CHECK(a.cputime_ns == b.cputime_ns);
    CHECK(a.stream_id == b.stream_id);
    CHECK(a.correlation_id == b.correlation_id);
    CHECK(a.transfer_bytes == b.transfer_bytes);
    CHECK(a.grid == b.grid);
    CHECK(a.block == b.block);
    CHECK(a.dynamic_smem == b.dynamic_smem);
    CHECK(a.static_smem == b.static_smem);
    CHECK(a.registers == b.registers);
    CHECK(a.local_block_size == b.local_block_size);
    CHECK(a.thread_id == b.thread_id);
    CHECK(a.stack_id == b.stack_id);
    CHECK(a.range_path == b.range_path);
    CHECK(a.occupancy == b.occupancy);
    CHECK(a.kind == b.kind);
    CHECK(a.cache_config_requested == b.cache_config_requested);
    CHECK(a.cache_config_executed == b.cache_config_executed);
    CHECK(a.counter_state == b.counter_state);
    CHECK(a.transfer_dir == b.transfer_dir);
    CHECK(a.host_mem_type == b.host_mem_type);
    CHECK(a.method_is_plain == b.method_is_plain);
  };
  REQUIRE(seen.operations.size() == 4);
  CHECK(seen.operations[0].first == 1);
  same_record(seen.operations[0].second, k);
  CHECK(seen.operations[1].first == 2);
  same_record(seen.operations[1].second, cl);
  CHECK(seen.operations[2].first == 1);
  same_record(seen.operations[2].second, copy);
  same_record(seen.operations[3].second, graph);
  CHECK(seen.methods == std::vector<std::string>{"_Z6vecAddPKfS0_Pfi", "opencl_kernel", "memcpyHtoD",
                                                 "_Z6vecAddPKfS0_Pfi"});
  REQUIRE(seen.counters.size() == 1);
  for (std::size_t id = 0; id < config::kLegacyCounterCount; ++id) {
    CHECK(seen.counters[0].values[id].state == values.values[id].state);
    CHECK(seen.counters[0].values[id].value == values.values[id].value);
  }
  CHECK(seen.operations[3].second.counter(0).state == records::CounterValue::State::unavailable);

  const records::ContextInfo* read_two = reader.context(2);
  REQUIRE(read_two != nullptr);
  CHECK(read_two->api == config::Api::opencl);
  CHECK(read_two->device == 1);
  CHECK(read_two->device_name == "pthread-cpu");
  const records::ContextInfo* read_one = reader.context(1);
  REQUIRE(read_one != nullptr);
  CHECK(read_one->origin.monotonic_ns == one.origin.monotonic_ns);
  CHECK(read_one->origin.wall_ns == one.origin.wall_ns);
  CHECK(read_one->device_properties.multiprocessors == 132);
  CHECK(read_one->device_properties.compute_major == 9);
  CHECK(read_one->device_properties.max_grid[2] == 65535);
  CHECK(read_one->device_properties.uuid[15] == 0xAB);

  REQUIRE(seen.memory_events.size() == 2);
  for (int i = 0; i < 2; ++i) {
    const records::MemoryEvent& a = seen.memory_events[i];
    const records::MemoryEvent& b = i == 0 ? alloc : free;
    CHECK(a.api == b.api);
    CHECK(a.start_ns == b.start_ns);
    CHECK(a.wall_ns == b.wall_ns);
    CHECK(a.sequence == b.sequence);
    CHECK(a.address == b.address);
    CHECK(a.bytes == b.bytes);
    CHECK(a.correlation_id == b.correlation_id);
    CHECK(a.stream_id == b.stream_id);
    CHECK(a.pool == b.pool);
    CHECK(a.pool_reserved == b.pool_reserved);
    CHECK(a.pool_used == b.pool_used);
    CHECK(a.device_used == b.device_used);
    CHECK(a.device == b.device);
    CHECK(a.context_id == b.context_id);
    CHECK(a.thread_id == b.thread_id);
    CHECK(a.stack_id == b.stack_id);
    CHECK(a.kind == b.kind);
    CHECK(a.operation == b.operation);
    CHECK(a.unknown == b.unknown);
  }

  REQUIRE(seen.ranges.size() == 2);
  for (int i = 0; i < 2; ++i) {
    const records::RangeEvent& a = seen.ranges[i];
    const records::RangeEvent& b = i == 0 ? push : start_end;
    CHECK(a.start_wall_ns == b.start_wall_ns);
    CHECK(a.end_wall_ns == b.end_wall_ns);
    CHECK(a.range_id == b.range_id);
    CHECK(a.payload_bits == b.payload_bits);
    CHECK(a.path == b.path);
    CHECK(a.name == b.name);
    CHECK(a.domain == b.domain);
    CHECK(a.thread_id == b.thread_id);
    CHECK(a.end_thread_id == b.end_thread_id);
    CHECK(a.category == b.category);
    CHECK(a.color == b.color);
    CHECK(a.kind == b.kind);
    CHECK(a.payload == b.payload);
    CHECK(a.has_color == b.has_color);
  }
  // The writer's ids, texts and paths.
  const records::RangeTable& read_ranges = reader.ranges();
  CHECK(read_ranges.name(inner) == "inner ");
  CHECK(read_ranges.name(read_ranges.domain_name(domain)) == "mydomain");
  CHECK(read_ranges.path_text(inner_path) == "outer/inner @mydomain");
  CHECK(read_ranges.path_text(inner_path) == ranges.path_text(inner_path));

  const std::vector<symbols::Frame>& read_frames = reader.stack(5);
  REQUIRE(read_frames.size() == 2);
  for (int i = 0; i < 2; ++i) {
    CHECK(read_frames[i].function == frames[i].function);
    CHECK(read_frames[i].module == frames[i].module);
    CHECK(read_frames[i].offset == frames[i].offset);
    CHECK(read_frames[i].address == frames[i].address);
    CHECK(read_frames[i].file == frames[i].file);
    CHECK(read_frames[i].line == frames[i].line);
    CHECK(read_frames[i].inlined == frames[i].inlined);
  }
  CHECK(reader.stack(6).empty());
}

TEST_CASE("a loop of near-empty launches costs a run file at most 48 bytes a launch") {
  const std::string empty = run_of(0);
  const std::string file = run_of(100'000);
  const double per_launch = static_cast<double>(file.size() - empty.size()) / 100'000;
  INFO("bytes per launch: " << per_launch);
  CHECK(per_launch <= 16);
  RunReader reader(file);
  Collected seen;
  const ReadSummary summary = reader.read(seen);
  CHECK_FALSE(summary.error);
  CHECK(summary.operations == 100'000);
  CHECK(summary.chunks == 101);
  REQUIRE(seen.operations.size() == 100'000);
  CHECK(seen.operations[99'999].second.correlation_id == 100 + 99'999);
  CHECK(seen.operations[99'999].second.cputime_ns == 2'100 + 99'999 % 7);
}

TEST_CASE("each chunk is coded on its own: after the dictionary, any chunk reads alone") {
  // The flight recorder's window: chunks dropped from the front, what they name kept apart.
  records::RangeTable ranges;
  RunEncoder encoder(ranges, nullptr, DictionaryPlacement::apart);
  const records::ContextInfo context = test_context(1, 0);
  std::string dictionary;
  std::vector<std::string> chunks;
  for (std::uint64_t i = 0; i < 3000; ++i) {
    records::Record r = kernel(i);
    if (i == 2500) r.method = "_Z5laterv";  // named for the first time in the last chunk
    encoder.operation(context, r);
    if ((i + 1) % 1000 == 0) {
      chunks.emplace_back(encoder.take_chunk());
      dictionary += encoder.take_dictionary();
    }
  }
  CHECK(encoder.take_dictionary().empty());
  // The chunks hold operations only: the strings and the context went apart.
  CHECK(chunks[0].size() < 16 + 1000 * 16);
  const std::string file = encode_header(test_header()) + dictionary + chunks[2];
  RunReader reader(file);
  Collected seen;
  const ReadSummary summary = reader.read(seen);
  CHECK_FALSE(summary.error);
  // The dictionary's two chunks (the first names, then "_Z5laterv"), then the window's.
  CHECK(summary.chunks == 3);
  REQUIRE(seen.operations.size() == 1000);
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const records::Record& r = seen.operations[i].second;
    const records::Record expected = kernel(2000 + i);
    CHECK(seen.operations[i].first == 1);
    CHECK(r.timestamp_ns == expected.timestamp_ns);
    CHECK(r.gpu_start_ns == expected.gpu_start_ns);
    CHECK(r.gpu_end_ns == expected.gpu_end_ns);
    CHECK(r.correlation_id == expected.correlation_id);
    CHECK(r.cputime_ns == expected.cputime_ns);
  }
  CHECK(seen.methods[499] == "_Z6vecAddPKfS0_Pfi");
  CHECK(seen.methods[500] == "_Z5laterv");
  // In place, the encoder's default, the dictionary stays in the chunks.
  RunEncoder in_chunks(ranges, nullptr);
  in_chunks.operation(context, kernel(0));
  CHECK(in_chunks.take_dictionary().empty());
  CHECK(in_chunks.take_chunk().size() > 16 + 30);
}

TEST_CASE("API calls come back field by field, within a chunk and across one") {
  records::RangeTable ranges;
  RunEncoder encoder(ranges, nullptr);
  records::ApiCall sync;
  sync.name = "cuStreamSynchronize";
  sync.kind = records::ApiCallKind::stream_synchronize;
  sync.start_ns = 1'700'000'000'000'050'000ULL;
  sync.end_ns = sync.start_ns + 2'000'000;
  sync.correlation_id = 41;
  sync.thread_id = 31337;
  sync.context = 1;
  sync.stream_id = 13;
  records::ApiCall record = sync;
  record.name = "cudaEventRecord";
  record.domain = records::ApiDomain::runtime;
  record.kind = records::ApiCallKind::event_record;
  record.result = 400;  // cudaErrorInvalidResourceHandle
  record.start_ns = sync.start_ns - 10;  // earlier: differences are signed
  record.end_ns = record.start_ns + 900;
  record.correlation_id = 40;
  record.event_id = 2;
  records::ApiCall failed = sync;
  failed.result = -1;
  std::string file = encode_header(test_header());
  encoder.api_call(sync);
  encoder.api_call(record);
  file += encoder.take_chunk();
  encoder.api_call(failed);
  file += encoder.take_chunk();
  struct Calls : RunVisitor {
    std::vector<records::ApiCall> calls;
    std::vector<std::string> names;
    void operation(const records::ContextInfo&, const records::Record&) override {}
    void api_call(const records::ApiCall& c) override {
      calls.push_back(c);
      names.emplace_back(c.name);
    }
  } seen;
  RunReader reader(file);
  const ReadSummary summary = reader.read(seen);
  CHECK_FALSE(summary.error);
  CHECK(summary.api_calls == 3);
  REQUIRE(seen.calls.size() == 3);
  CHECK(seen.names == std::vector<std::string>{"cuStreamSynchronize", "cudaEventRecord", "cuStreamSynchronize"});
  for (int i = 0; i < 3; ++i) {
    const records::ApiCall& a = seen.calls[i];
    const records::ApiCall& b = i == 0 ? sync : i == 1 ? record : failed;
    CHECK(a.domain == b.domain);
    CHECK(a.kind == b.kind);
    CHECK(a.result == b.result);
    CHECK(a.start_ns == b.start_ns);
    CHECK(a.end_ns == b.end_ns);
    CHECK(a.correlation_id == b.correlation_id);
    CHECK(a.thread_id == b.thread_id);
    CHECK(a.context == b.context);
    CHECK(a.stream_id == b.stream_id);
    CHECK(a.event_id == b.event_id);
  }
  // A kind past the last is corruption, named at its record.
  std::string call;
  ByteWriter w(call);
  w.varint(0);
  w.byte(0);
  w.byte(records::kLastApiCallKind + 1);
  for (int i = 0; i < 8; ++i) w.varint(0);
  const std::string bad = encode_header(test_header()) + chunk_of(record_of(RecordKind::string, "cuInit") +
                                                                   record_of(RecordKind::api_call, call));
  RunReader bad_reader(bad);
  Collected nothing;
  const ReadSummary s = bad_reader.read(nothing);
  REQUIRE(s.error);
  CHECK(s.error->what == "record kind 12: an unknown API call kind");
}

TEST_CASE("version 1, whose differences ran on across chunks, is still read") {
  // Two operations in one chunk, cut between them into two chunks: in version 1 the
  // second is a difference from the first, across the cut.
  records::RangeTable ranges;
  RunEncoder encoder(ranges, nullptr);
  const records::ContextInfo context = test_context(1, 0);
  encoder.operation(context, kernel(0));
  encoder.operation(context, kernel(1));
  const std::string payload(encoder.take_chunk().substr(kChunkHeaderBytes));
  // The records' ends: the last record is the second operation.
  std::size_t at = 0, last = 0;
  while (at < payload.size()) {
    last = at;
    ByteReader r(payload.data() + at + 1, payload.data() + payload.size());
    const std::uint64_t length = r.varint();
    at += 1 + r.offset() + length;
  }
  std::string file = encode_header(test_header());
  file[8] = 1;
  file += chunk_of(payload.substr(0, last)) + chunk_of(payload.substr(last));
  RunReader reader(file);
  Collected seen;
  const ReadSummary summary = reader.read(seen);
  CHECK_FALSE(summary.error);
  CHECK(summary.chunks == 2);
  REQUIRE(seen.operations.size() == 2);
  CHECK(seen.operations[1].second.timestamp_ns == kernel(1).timestamp_ns);
  CHECK(seen.operations[1].second.gpu_start_ns == kernel(1).gpu_start_ns);
  CHECK(seen.operations[1].second.correlation_id == kernel(1).correlation_id);
  CHECK(seen.methods[1] == "_Z6vecAddPKfS0_Pfi");
}

TEST_CASE("a run file cut at any byte of its last 4 KiB reads every whole chunk before the cut") {
  // Chunks of 100 operations (about 1.2 KiB): the last 4 KiB holds cuts inside chunks
  // and cuts exactly at a chunk's end, and each of the 4,096 reads is short.
  std::vector<std::size_t> chunk_ends;
  std::vector<std::uint64_t> operations_at;
  const std::string file = run_of(500, &chunk_ends, &operations_at, true, 100);
  REQUIRE(file.size() > 4096 + encode_header(test_header()).size());
  const auto ends_in_range = std::count_if(chunk_ends.begin(), chunk_ends.end(),
                                           [&](std::size_t end) { return end >= file.size() - 4096 && end < file.size(); });
  REQUIRE(ends_in_range >= 2);
  for (std::size_t cut = file.size() - 4096; cut < file.size(); ++cut) {
    const std::string_view part(file.data(), cut);
    RunReader reader(part);
    Collected seen;
    const ReadSummary summary = reader.read(seen);
    std::uint64_t whole = 0;
    std::size_t whole_end = 0;
    for (std::size_t i = 0; i < chunk_ends.size(); ++i) {
      if (chunk_ends[i] <= cut) {
        whole = operations_at[i];
        whole_end = chunk_ends[i];
      }
    }
    INFO("cut at " << cut);
    CHECK(summary.operations == whole);
    CHECK_FALSE(summary.ended);
    CHECK(summary.bytes == whole_end);
    if (whole_end == cut) {
      CHECK_FALSE(summary.error);  // a file read while its process writes: not damage
    } else {
      REQUIRE(summary.error);
      CHECK(summary.error->offset == whole_end);
    }
  }
}

TEST_CASE("a damaged chunk is reported at its offset, with every chunk before it read") {
  std::vector<std::size_t> chunk_ends;
  std::vector<std::uint64_t> operations_at;
  std::string file = run_of(2'500, &chunk_ends, &operations_at);
  file[chunk_ends[0] + kChunkHeaderBytes + 100] ^= 0x20;
  RunReader reader(file);
  Collected seen;
  const ReadSummary summary = reader.read(seen);
  REQUIRE(summary.error);
  CHECK(summary.error->offset == chunk_ends[0]);
  CHECK(summary.error->what == "a chunk whose checksum does not match its bytes");
  CHECK(summary.operations == 1'000);
}

TEST_CASE("hostile records are refused at their offset") {
  const std::string header = encode_header(test_header());
  const auto read = [&](const std::string& payload) {
    const std::string file = header + chunk_of(payload);
    RunReader reader(file);
    Collected seen;
    return reader.read(seen);
  };
  const std::size_t first_record = header.size() + kChunkHeaderBytes;

  SECTION("a string id out of range") {
    std::string context;
    ByteWriter w(context);
    w.varint(1);
    w.signed_varint(0);
    w.byte(0);
    w.varint(7);  // no string 7
    const ReadSummary s = read(record_of(RecordKind::string, "gpu") + record_of(RecordKind::context, context));
    REQUIRE(s.error);
    CHECK(s.error->offset == first_record + 5);
    CHECK(s.error->what == "record kind 2: a string id out of range");
  }
  SECTION("an operation of a context never described") {
    std::string op;
    ByteWriter w(op);
    w.varint(0 | (field_context << kOperationFieldShift));
    w.varint(3);
    for (int i = 0; i < 5; ++i) w.varint(0);
    const ReadSummary s = read(record_of(RecordKind::operation, op));
    REQUIRE(s.error);
    CHECK(s.error->offset == first_record);
    CHECK(s.error->what == "record kind 3: an operation of a context not described before it");
    CHECK(s.operations == 0);
  }
  SECTION("a length past the chunk's end") {
    const ReadSummary s = read(record_of(RecordKind::string, "abc") + std::string("\x01\x7f", 2));
    REQUIRE(s.error);
    CHECK(s.error->offset == first_record + 5);
    CHECK(s.error->what == "a record's length runs past its chunk");
  }
  SECTION("an unknown record kind of this version") {
    const ReadSummary s = read(record_of(RecordKind::string, "abc") + record_of(static_cast<RecordKind>(200), "x"));
    REQUIRE(s.error);
    CHECK(s.error->offset == first_record + 5);
    CHECK(s.error->what == "record kind 200: an unknown record kind");
  }
  SECTION("a chunk longer than a chunk may be") {
    std::string chunk = chunk_of("abc");
    put_u32(chunk.data() + 4, kMaxChunkBytes + 1);
    const std::string file = header + chunk;
    RunReader reader(file);
    Collected seen;
    const ReadSummary s = reader.read(seen);
    REQUIRE(s.error);
    CHECK(s.error->offset == header.size() + 4);
  }
  SECTION("an NVTX path naming a name the file never gave") {
    std::string path;
    ByteWriter w(path);
    w.varint(1);
    w.varint(0);
    w.varint(0);
    w.varint(3);
    const ReadSummary s = read(record_of(RecordKind::range_path, path));
    REQUIRE(s.error);
    CHECK(s.error->what == "record kind 8: an NVTX name id out of range");
  }
}

TEST_CASE("versions: a newer major is refused in one line, a newer minor's unknown kinds are skipped") {
  std::string file = encode_header(test_header());
  SECTION("newer major") {
    file[8] = static_cast<char>(kMajorVersion + 1);
    RunReader reader(file);
    REQUIRE(reader.header() == nullptr);
    CHECK(reader.header_error().offset == 8);
    CHECK(reader.header_error().what ==
          fmt::format("run file version 3.{}; this computeprof reads versions 1.x to 2.x", kMinorVersion));
  }
  SECTION("major 0, which never was") {
    file[8] = 0;
    RunReader reader(file);
    REQUIRE(reader.header() == nullptr);
    CHECK(reader.header_error().what ==
          fmt::format("run file version 0.{}; this computeprof reads versions 1.x to 2.x", kMinorVersion));
  }
  SECTION("newer minor") {
    file[10] = static_cast<char>(kMinorVersion + 1);
    file += chunk_of(record_of(static_cast<RecordKind>(200), "future") + record_of(RecordKind::end, ""));
    RunReader reader(file);
    Collected seen;
    const ReadSummary s = reader.read(seen);
    CHECK_FALSE(s.error);
    CHECK(s.ended);
  }
  SECTION("not a run file") {
    RunReader reader("SQLite format 3");
    REQUIRE(reader.header() == nullptr);
    CHECK(reader.header_error().offset == 0);
  }
}

}  // namespace computeprof::runfile
