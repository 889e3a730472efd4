#include "runfile/run_reader.hpp"

#include <bit>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "config/counters.hpp"
#include "runfile/byte_coding.hpp"
#include "runfile/checksum.hpp"
#include "runfile/format.hpp"

namespace computeprof::runfile {

namespace {

// Bounds past which a value is corruption, not data.
constexpr std::uint64_t kMaxContextNumber = 1u << 16;
constexpr std::uint64_t kMaxStackId = (1u << 31) - 1;
constexpr std::uint64_t kMaxFrames = 1u << 12;
constexpr std::uint64_t kMaxPropertyValues = 256;
constexpr std::uint64_t kMaxId = 0xFFFFFFFFu;

bool valid_range_kind(std::uint64_t kind) {
  switch (static_cast<records::RangeEventKind>(kind)) {
    case records::RangeEventKind::category_name:
    case records::RangeEventKind::mark:
    case records::RangeEventKind::thread_name:
    case records::RangeEventKind::push_pop:
    case records::RangeEventKind::start_end:
    case records::RangeEventKind::domain_create:
    case records::RangeEventKind::domain_destroy: return kind <= 0xFFFF;
  }
  return false;
}

}  // namespace

// The state records are coded against, and the checks every one goes through.
struct RunReader::Decoder {
  RunReader& run;
  RunVisitor& visitor;
  ReadSummary& summary;
  std::uint16_t file_minor;
  std::vector<std::string_view> strings;
  records::Record previous;
  int previous_context = 0;
  records::MemoryEvent previous_memory;
  records::RangeEvent previous_range;
  records::ApiCall previous_call;
  records::CounterValues counters;
  // Set by the first check that fails: what was wrong.
  const char* wrong = nullptr;

  bool check(bool ok, const char* what) {
    if (!ok && !wrong) wrong = what;
    return ok;
  }
  std::string_view string(std::uint64_t id) {
    if (!check(id < strings.size(), "a string id out of range")) return {};
    return strings[id];
  }
  std::uint32_t id(ByteReader& r) { return static_cast<std::uint32_t>(r.bounded(kMaxId)); }
  // A chunk coded on its own: its first records are differences from none.
  void start_chunk() {
    previous = {};
    previous_context = 0;
    previous_memory = {};
    previous_range = {};
    previous_call = {};
  }

  void context_record(ByteReader& r) {
    records::ContextInfo c;
    const std::uint64_t number = r.bounded(kMaxContextNumber);
    c.number = static_cast<int>(number);
    c.device = static_cast<int>(r.signed_varint());
    const std::uint8_t api = r.byte();
    check(api <= 1, "an unknown API");
    c.api = api == 1 ? config::Api::opencl : config::Api::cuda;
    c.device_name = std::string(string(r.varint()));
    c.origin.monotonic_ns = r.varint();
    c.origin.wall_ns = r.varint();
    records::DeviceProperties& p = c.device_properties;
    std::int64_t* fields[] = {&p.global_memory_bytes,
                              &p.constant_memory_bytes,
                              &p.l2_cache_bytes,
                              &p.warp_size,
                              &p.clock_khz,
                              &p.memory_clock_khz,
                              &p.memory_bus_bits,
                              &p.copy_engines,
                              &p.multiprocessors,
                              &p.max_threads_per_multiprocessor,
                              &p.max_blocks_per_multiprocessor,
                              &p.max_shared_per_multiprocessor,
                              &p.max_registers_per_multiprocessor,
                              &p.max_registers_per_block,
                              &p.max_shared_per_block,
                              &p.max_threads_per_block,
                              &p.max_block[0],
                              &p.max_block[1],
                              &p.max_block[2],
                              &p.max_grid[0],
                              &p.max_grid[1],
                              &p.max_grid[2],
                              &p.compute_major,
                              &p.compute_minor,
                              &p.ecc_enabled};
    const std::uint64_t count = r.bounded(kMaxPropertyValues);
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::int64_t v = r.signed_varint();
      // A newer minor version's further properties are read past.
      if (i < std::size(fields)) *fields[i] = v;
    }
    const std::string_view uuid = r.bytes(sizeof p.uuid);
    if (!r.failed()) std::copy(uuid.begin(), uuid.end(), reinterpret_cast<char*>(p.uuid));
    check(number != 0, "context number 0");
    if (!wrong && !r.failed()) run.contexts_[c.number] = std::move(c);
  }

  void stack_record(ByteReader& r) {
    const std::uint64_t id = r.bounded(kMaxStackId);
    const std::uint64_t count = r.bounded(kMaxFrames);
    std::vector<symbols::Frame> frames;
    for (std::uint64_t i = 0; i < count && !r.failed() && !wrong; ++i) {
      symbols::Frame& f = frames.emplace_back();
      f.function = std::string(string(r.varint()));
      f.module = std::string(string(r.varint()));
      f.offset = r.varint();
      f.address = r.varint();
      f.file = std::string(string(r.varint()));
      f.line = static_cast<unsigned>(r.bounded(0xFFFFFFFFu));
      f.inlined = r.byte() != 0;
    }
    check(id != 0, "stack id 0");
    if (!wrong && !r.failed()) run.stacks_[static_cast<std::uint32_t>(id)] = std::move(frames);
  }

  void range_name_record(ByteReader& r, std::string_view body) {
    const std::uint64_t id = r.varint();
    const std::string_view text = body.substr(r.offset());
    if (r.failed()) return;
    check(text.size() <= records::kRangeNameLimit, "an NVTX name past its limit");
    if (!check(id == run.ranges_->name_count(), "an NVTX name out of order") || wrong) return;
    check(run.ranges_->append_name(text) == id, "too many NVTX names");
  }
  void range_domain_record(ByteReader& r) {
    const std::uint64_t id = r.varint();
    const std::uint64_t name = r.varint();
    if (r.failed()) return;
    check(name < run.ranges_->name_count(), "an NVTX name id out of range");
    if (!check(id == run.ranges_->domain_count(), "an NVTX domain out of order") || wrong) return;
    check(run.ranges_->add_domain(static_cast<records::RangeNameId>(name)) == id, "too many NVTX domains");
  }
  void range_path_record(ByteReader& r) {
    const std::uint64_t id = r.varint();
    const std::uint64_t parent = r.varint();
    const std::uint64_t domain = r.varint();
    const std::uint64_t name = r.varint();
    if (r.failed()) return;
    check(parent < id, "an NVTX path whose parent comes after it");
    check(domain < run.ranges_->domain_count(), "an NVTX domain id out of range");
    check(name < run.ranges_->name_count(), "an NVTX name id out of range");
    if (!check(id == run.ranges_->path_count(), "an NVTX path out of order") || wrong) return;
    check(run.ranges_->intern_path(static_cast<records::RangePathId>(parent), static_cast<records::RangeDomainId>(domain),
                                   static_cast<records::RangeNameId>(name)) == id,
          "an NVTX path given twice");
  }

  void operation_record(ByteReader& r) {
    records::Record o = previous;
    const std::uint64_t header = r.varint();
    const std::uint64_t kind = header & 3;
    o.kind = static_cast<records::RecordKind>(kind);
    o.method_is_plain = (header & 4) != 0;
    const std::uint64_t fields = header >> kOperationFieldShift;
    check(fields <= kAllOperationFields, "unknown operation fields");
    int context_number = previous_context;
    if (fields & field_context) context_number = static_cast<int>(r.bounded(kMaxContextNumber));
    if (fields & field_method) o.method = string(r.varint());
    if (fields & field_api) o.api = string(r.varint());
    o.timestamp_ns = undelta(previous.timestamp_ns, r.varint());
    o.gpu_start_ns = undelta(previous.gpu_start_ns, r.varint());
    o.gpu_end_ns = undelta(o.gpu_start_ns, r.varint());
    o.gputime_ns = (fields & field_gputime) ? r.varint() : o.gpu_end_ns - o.gpu_start_ns;
    o.cputime_ns = r.varint();
    if (fields & field_stream) o.stream_id = r.varint();
    o.correlation_id = undelta(previous.correlation_id, r.varint());
    if (fields & field_transfer_bytes) o.transfer_bytes = r.varint();
    auto u32 = [&] { return static_cast<std::uint32_t>(r.bounded(0xFFFFFFFFu)); };
    if (fields & field_grid) o.grid = {u32(), u32(), u32()};
    if (fields & field_block) o.block = {u32(), u32(), u32()};
    if (fields & field_dynamic_smem) o.dynamic_smem = u32();
    if (fields & field_static_smem) o.static_smem = u32();
    if (fields & field_registers) o.registers = u32();
    if (fields & field_local_block_size) o.local_block_size = u32();
    if (fields & field_thread) o.thread_id = u32();
    if (fields & field_stack) o.stack_id = u32();
    if (fields & field_range_path) o.range_path = u32();
    if (fields & field_occupancy) {
      const std::uint8_t has = r.byte();
      check(has <= 1, "a bad occupancy flag");
      o.occupancy.reset();
      if (has) o.occupancy = std::bit_cast<float>(r.u32());
    }
    if (fields & field_cache_config) {
      o.cache_config_requested = r.byte();
      o.cache_config_executed = r.byte();
    }
    if (fields & field_counter_state) {
      const std::uint8_t state = r.byte();
      check(state <= static_cast<std::uint8_t>(records::CounterState::measured), "an unknown counter state");
      o.counter_state = static_cast<records::CounterState>(state);
    }
    if (fields & field_transfer) {
      const std::uint8_t dir = r.byte();
      const std::uint8_t host = r.byte();
      check(dir <= static_cast<std::uint8_t>(records::TransferDir::host_to_host), "an unknown copy direction");
      check(host <= 2, "an unknown host memory type");
      o.transfer_dir = static_cast<records::TransferDir>(dir);
      o.host_mem_type.reset();
      if (host != 0) o.host_mem_type = static_cast<records::HostMemType>(host - 1);
    }
    o.counters = nullptr;
    if (o.counter_state == records::CounterState::measured) {
      counters = {};
      const std::uint64_t n = r.bounded(config::kLegacyCounterCount);
      for (std::uint64_t i = 0; i < n && !r.failed(); ++i) {
        const std::uint64_t counter = r.bounded(config::kLegacyCounterCount - 1);
        const std::uint8_t state = r.byte();
        check(state >= 1 && state <= 2, "an unknown counter value state");
        counters.values[counter] = {static_cast<records::CounterValue::State>(state), r.varint()};
      }
      o.counters = &counters;
    }
    check(o.range_path < run.ranges_->path_count(), "an NVTX path id out of range");
    auto found = run.contexts_.find(context_number);
    if (!check(found != run.contexts_.end(), "an operation of a context not described before it")) return;
    if (r.failed() || wrong) return;
    previous = o;
    previous.counters = nullptr;
    previous_context = context_number;
    ++summary.operations;
    visitor.operation(found->second, o);
  }

  void memory_record(ByteReader& r) {
    records::MemoryEvent e;
    const records::MemoryEvent& p = previous_memory;
    e.api = string(r.varint());
    e.start_ns = undelta(p.start_ns, r.varint());
    e.wall_ns = undelta(e.start_ns, r.varint());
    e.sequence = undelta(p.sequence, r.varint());
    e.address = r.varint();
    e.bytes = r.varint();
    e.correlation_id = undelta(p.correlation_id, r.varint());
    e.stream_id = r.varint();
    e.pool = r.varint();
    e.pool_reserved = r.varint();
    e.pool_used = r.varint();
    e.device_used = r.varint();
    e.device = static_cast<std::uint32_t>(r.bounded(kMaxId));
    e.context_id = static_cast<std::uint32_t>(r.bounded(kMaxId));
    e.thread_id = static_cast<std::uint32_t>(r.bounded(kMaxId));
    e.stack_id = static_cast<std::uint32_t>(r.bounded(kMaxId));
    const std::uint8_t kind = r.byte();
    const std::uint8_t operation = r.byte();
    const std::uint8_t unknown = r.byte();
    check(kind < records::kMemoryKindCount, "an unknown memory kind");
    check(operation <= 1, "an unknown memory operation");
    check(unknown <= 1, "a bad unknown-free flag");
    e.kind = static_cast<records::MemoryKind>(kind);
    e.operation = static_cast<records::MemoryOperation>(operation);
    e.unknown = unknown != 0;
    if (r.failed() || wrong) return;
    previous_memory = e;
    ++summary.memory_events;
    visitor.memory(e);
  }

  void range_record(ByteReader& r) {
    records::RangeEvent e;
    const records::RangeEvent& p = previous_range;
    const std::uint64_t kind = r.varint();
    const std::uint8_t payload = r.byte();
    const std::uint8_t has_color = r.byte();
    check(valid_range_kind(kind), "an unknown NVTX event kind");
    check(payload <= static_cast<std::uint8_t>(records::RangePayloadKind::float32), "an unknown NVTX payload kind");
    check(has_color <= 1, "a bad colour flag");
    e.kind = static_cast<records::RangeEventKind>(kind);
    e.payload = static_cast<records::RangePayloadKind>(payload);
    e.has_color = has_color != 0;
    e.start_wall_ns = undelta(p.start_wall_ns, r.varint());
    e.end_wall_ns = undelta(e.start_wall_ns, r.varint());
    e.range_id = r.varint();
    e.payload_bits = r.varint();
    e.path = static_cast<records::RangePathId>(r.bounded(kMaxId));
    e.name = static_cast<records::RangeNameId>(r.bounded(kMaxId));
    e.domain = static_cast<records::RangeDomainId>(r.bounded(kMaxId));
    e.thread_id = static_cast<std::uint32_t>(r.bounded(kMaxId));
    e.end_thread_id = static_cast<std::uint32_t>(r.bounded(kMaxId));
    e.category = static_cast<std::uint32_t>(r.bounded(kMaxId));
    if (e.has_color) e.color = static_cast<std::uint32_t>(r.bounded(kMaxId));
    check(e.path < run.ranges_->path_count(), "an NVTX path id out of range");
    check(e.name < run.ranges_->name_count(), "an NVTX name id out of range");
    check(e.domain < run.ranges_->domain_count(), "an NVTX domain id out of range");
    if (r.failed() || wrong) return;
    previous_range = e;
    ++summary.range_events;
    visitor.range(e);
  }

  void api_call_record(ByteReader& r) {
    records::ApiCall c;
    const records::ApiCall& p = previous_call;
    c.name = string(r.varint());
    const std::uint8_t domain = r.byte();
    const std::uint8_t kind = r.byte();
    check(domain <= static_cast<std::uint8_t>(records::ApiDomain::runtime), "an unknown API domain");
    check(kind <= records::kLastApiCallKind, "an unknown API call kind");
    c.domain = static_cast<records::ApiDomain>(domain);
    c.kind = static_cast<records::ApiCallKind>(kind);
    const std::int64_t result = r.signed_varint();
    check(result >= std::numeric_limits<std::int32_t>::min() && result <= std::numeric_limits<std::int32_t>::max(), "an API call's result out of range");
    c.result = static_cast<std::int32_t>(result);
    c.start_ns = undelta(p.start_ns, r.varint());
    c.end_ns = undelta(c.start_ns, r.varint());
    c.correlation_id = undelta(p.correlation_id, r.varint());
    c.thread_id = static_cast<std::uint32_t>(r.bounded(kMaxId));
    c.context = static_cast<std::uint32_t>(r.bounded(kMaxContextNumber));
    c.device = static_cast<std::uint16_t>(r.bounded(std::numeric_limits<std::uint16_t>::max()));
    c.stream_id = r.varint();
    c.event_id = r.varint();
    if (r.failed() || wrong) return;
    previous_call = c;
    ++summary.api_calls;
    visitor.api_call(c);
  }

  void facts_record(ByteReader& r) {
    ProcessFacts f;
    const std::uint8_t runtime = r.byte();
    check(runtime <= 1, "a bad runtime flag");
    f.cuda_runtime_present = runtime != 0;
    f.export_wall_ns = r.varint();
    f.export_monotonic_ns = r.varint();
    if (r.failed() || wrong) return;
    visitor.facts(f);
  }

  // One record's body; false where it is wrong (`wrong` or the reader's failure says why).
  bool record(std::uint64_t kind, std::string_view body) {
    ByteReader r(body.data(), body.data() + body.size());
    switch (static_cast<RecordKind>(kind)) {
      case RecordKind::string:
        check(strings.size() < kMaxId, "too many strings");
        strings.push_back(body);
        return !wrong;
      case RecordKind::context: context_record(r); break;
      case RecordKind::operation: operation_record(r); break;
      case RecordKind::memory: memory_record(r); break;
      case RecordKind::range: range_record(r); break;
      case RecordKind::range_name: range_name_record(r, body); return !wrong && !r.failed();
      case RecordKind::range_domain: range_domain_record(r); break;
      case RecordKind::range_path: range_path_record(r); break;
      case RecordKind::stack: stack_record(r); break;
      case RecordKind::facts: facts_record(r); break;
      case RecordKind::api_call: api_call_record(r); break;
      case RecordKind::end: summary.ended = true; return true;
      default:
        // A newer minor version's kind is skipped by its length; in a file of this
        // version or older, an unknown kind is corruption.
        return check(file_minor > kMinorVersion, "an unknown record kind");
    }
    if (r.failed()) check(false, "a record's fields run past its length");
    return !wrong;
  }
};

RunReader::RunReader(std::string_view file) : file_(file), ranges_(std::make_unique<records::RangeTable>()) {
  if (auto decoded = decode_header(file, header_error_)) {
    header_ = std::move(decoded->header);
    header_bytes_ = decoded->bytes;
  }
}

const std::vector<symbols::Frame>& RunReader::stack(std::uint32_t id) const {
  static const std::vector<symbols::Frame> none;
  auto found = stacks_.find(id);
  return found == stacks_.end() ? none : found->second;
}

const records::ContextInfo* RunReader::context(int number) const {
  auto found = contexts_.find(number);
  return found == contexts_.end() ? nullptr : &found->second;
}

ReadSummary RunReader::read(RunVisitor& visitor) {
  ReadSummary summary;
  if (!header_) {
    summary.error = header_error_;
    return summary;
  }
  Decoder decoder{*this, visitor, summary, header_->minor, {}, {}, 0, {}, {}, {}, {}, nullptr};
  std::size_t at = header_bytes_;
  summary.bytes = at;
  auto fail = [&](std::uint64_t offset, std::string what) {
    summary.error = RunFileError{offset, std::move(what)};
    return summary;
  };
  while (!summary.ended) {
    if (at == file_.size()) {
      return summary;  // no end record: a killed or still running process; not an error
    }
    if (file_.size() - at < kChunkHeaderBytes) return fail(at, "a chunk's header is cut short (the file ends)");
    const std::uint32_t magic = get_u32(file_.data() + at);
    const std::uint32_t length = get_u32(file_.data() + at + 4);
    const std::uint64_t checksum = get_u64(file_.data() + at + 8);
    if (magic != kChunkMagic) return fail(at, "no chunk starts here");
    if (length > kMaxChunkBytes) return fail(at + 4, fmt::format("a chunk of {} bytes (at most {})", length, kMaxChunkBytes));
    if (file_.size() - at - kChunkHeaderBytes < length) {
      return fail(at, fmt::format("a chunk of {} bytes is cut short at {} (the file ends)", length,
                                  file_.size() - at - kChunkHeaderBytes));
    }
    const std::string_view payload = file_.substr(at + kChunkHeaderBytes, length);
    if (payload_checksum(payload) != checksum) return fail(at, "a chunk whose checksum does not match its bytes");
    ByteReader r(payload.data(), payload.data() + payload.size());
    const std::size_t payload_at = at + kChunkHeaderBytes;
    if (header_->major >= kChunksCodedAlone) decoder.start_chunk();
    while (!r.at_end() && !summary.ended) {
      const std::size_t record_at = payload_at + r.offset();
      const std::uint8_t kind = r.byte();
      const std::uint64_t body_length = r.varint();
      const std::string_view body = r.bytes(body_length);
      if (r.failed()) return fail(record_at, "a record's length runs past its chunk");
      if (kind == 0 || !decoder.record(kind, body)) {
        return fail(record_at, fmt::format("record kind {}: {}", kind,
                                           decoder.wrong ? decoder.wrong : "a record's fields run past its length"));
      }
    }
    if (summary.ended && !r.at_end()) return fail(payload_at + r.offset(), "records after the end record");
    at = payload_at + length;
    summary.bytes = at;
    ++summary.chunks;
    visitor.chunk_read(at);
  }
  if (at != file_.size()) return fail(at, "bytes after the end record");
  return summary;
}

}  // namespace computeprof::runfile
