#include "runfile/run_encoder.hpp"

#include <bit>
#include <cstring>

#include "runfile/byte_coding.hpp"
#include "runfile/checksum.hpp"
#include "runfile/format.hpp"

namespace computeprof::runfile {

static_assert(kChunkHeaderBytes == 16);

RunEncoder::RunEncoder(const records::RangeTable& ranges, StackFrames stacks, DictionaryPlacement dictionary)
    : ranges_(ranges),
      stacks_(std::move(stacks)),
      buffer_(kReserved, '\0'),
      dictionary_(dictionary == DictionaryPlacement::apart ? kReserved : 0, '\0'),
      dictionary_out_(dictionary == DictionaryPlacement::apart ? &dictionary_ : &buffer_) {}

void RunEncoder::begin_record() { body_.clear(); }

void RunEncoder::finish_record(std::uint8_t kind) {
  ByteWriter w(buffer_);
  w.byte(kind);
  w.varint(body_.size());
  w.bytes(body_);
}

void RunEncoder::finish_dictionary_record(RecordKind kind) {
  ByteWriter w(*dictionary_out_);
  w.byte(static_cast<std::uint8_t>(kind));
  w.varint(body_.size());
  w.bytes(body_);
}

std::uint32_t RunEncoder::new_string(std::string_view kept) {
  begin_record();
  body_.append(kept);
  finish_dictionary_record(RecordKind::string);
  by_text_.emplace(kept, strings_);
  return strings_++;
}

std::uint32_t RunEncoder::stable_string(std::string_view s) {
  const PointerKey key{s.data(), s.size()};
  if (auto found = by_pointer_.find(key); found != by_pointer_.end()) return found->second;
  std::uint32_t id;
  if (auto found = by_text_.find(s); found != by_text_.end()) {
    id = found->second;
  } else {
    id = new_string(s);
  }
  by_pointer_.emplace(key, id);
  return id;
}

std::uint32_t RunEncoder::string(std::string_view s) {
  if (auto found = by_text_.find(s); found != by_text_.end()) return found->second;
  return new_string(kept_.emplace_back(s));
}

void RunEncoder::context(const records::ContextInfo& c) {
  const auto number = static_cast<std::size_t>(c.number);
  if (number < contexts_written_.size() && contexts_written_[number]) return;
  if (contexts_written_.size() <= number) contexts_written_.resize(number + 1);
  contexts_written_[number] = true;
  const std::uint32_t name = string(c.device_name);
  begin_record();
  ByteWriter w(body_);
  w.varint(number);
  w.signed_varint(c.device);
  w.byte(c.api == config::Api::opencl ? 1 : 0);
  w.varint(name);
  w.varint(c.origin.monotonic_ns);
  w.varint(c.origin.wall_ns);
  const records::DeviceProperties& p = c.device_properties;
  const std::int64_t values[] = {p.global_memory_bytes,
                                 p.constant_memory_bytes,
                                 p.l2_cache_bytes,
                                 p.warp_size,
                                 p.clock_khz,
                                 p.memory_clock_khz,
                                 p.memory_bus_bits,
                                 p.copy_engines,
                                 p.multiprocessors,
                                 p.max_threads_per_multiprocessor,
                                 p.max_blocks_per_multiprocessor,
                                 p.max_shared_per_multiprocessor,
                                 p.max_registers_per_multiprocessor,
                                 p.max_registers_per_block,
                                 p.max_shared_per_block,
                                 p.max_threads_per_block,
                                 p.max_block[0],
                                 p.max_block[1],
                                 p.max_block[2],
                                 p.max_grid[0],
                                 p.max_grid[1],
                                 p.max_grid[2],
                                 p.compute_major,
                                 p.compute_minor,
                                 p.ecc_enabled};
  w.varint(std::size(values));
  for (std::int64_t v : values) w.signed_varint(v);
  w.bytes(std::string_view(reinterpret_cast<const char*>(p.uuid), sizeof p.uuid));
  finish_dictionary_record(RecordKind::context);
}

void RunEncoder::stack(std::uint32_t id) {
  if (id == 0 || !stacks_) return;
  if (id < stacks_written_.size() && stacks_written_[id]) return;
  if (stacks_written_.size() <= id) stacks_written_.resize(std::size_t{id} + 1);
  stacks_written_[id] = true;
  const std::vector<symbols::Frame>& frames = stacks_(id);
  std::vector<std::uint32_t> ids;
  ids.reserve(frames.size() * 3);
  for (const symbols::Frame& f : frames) {
    ids.push_back(string(f.function));
    ids.push_back(string(f.module));
    ids.push_back(string(f.file));
  }
  begin_record();
  ByteWriter w(body_);
  w.varint(id);
  w.varint(frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const symbols::Frame& f = frames[i];
    w.varint(ids[3 * i]);
    w.varint(ids[3 * i + 1]);
    w.varint(f.offset);
    w.varint(f.address);
    w.varint(ids[3 * i + 2]);
    w.varint(f.line);
    w.byte(f.inlined ? 1 : 0);
  }
  finish_dictionary_record(RecordKind::stack);
}

void RunEncoder::sync_ranges() {
  // Read in the order entries depend on each other (a path on its names and domain, a
  // domain on its name), so that whatever a path read here names is read too.
  const std::size_t paths = ranges_.path_count();
  const std::size_t domains = ranges_.domain_count();
  const std::size_t names = ranges_.name_count();
  for (; names_written_ < names; ++names_written_) {
    begin_record();
    ByteWriter w(body_);
    w.varint(names_written_);
    w.bytes(ranges_.name(static_cast<records::RangeNameId>(names_written_)));
    finish_dictionary_record(RecordKind::range_name);
  }
  for (; domains_written_ < domains; ++domains_written_) {
    begin_record();
    ByteWriter w(body_);
    w.varint(domains_written_);
    w.varint(ranges_.domain_name(static_cast<records::RangeDomainId>(domains_written_)));
    finish_dictionary_record(RecordKind::range_domain);
  }
  for (; paths_written_ < paths; ++paths_written_) {
    const records::RangePathStep step = ranges_.step(static_cast<records::RangePathId>(paths_written_));
    begin_record();
    ByteWriter w(body_);
    w.varint(paths_written_);
    w.varint(step.parent);
    w.varint(step.domain);
    w.varint(step.name);
    finish_dictionary_record(RecordKind::range_path);
  }
}

void RunEncoder::operation(const records::ContextInfo& c, const records::Record& r) {
  context(c);
  if (r.range_path >= paths_written_) sync_ranges();
  stack(r.stack_id);
  const records::Record& p = previous_;
  std::uint32_t fields = 0;
  std::uint32_t method = 0, api = 0;
  if (c.number != previous_context_) fields |= field_context;
  if (r.method.data() != p.method.data() || r.method.size() != p.method.size()) {
    fields |= field_method;
    method = stable_string(r.method);
  }
  if (r.api.data() != p.api.data() || r.api.size() != p.api.size()) {
    fields |= field_api;
    api = stable_string(r.api);
  }
  if (r.gputime_ns != r.gpu_end_ns - r.gpu_start_ns) fields |= field_gputime;
  if (r.stream_id != p.stream_id) fields |= field_stream;
  if (r.transfer_bytes != p.transfer_bytes) fields |= field_transfer_bytes;
  if (r.grid != p.grid) fields |= field_grid;
  if (r.block != p.block) fields |= field_block;
  if (r.dynamic_smem != p.dynamic_smem) fields |= field_dynamic_smem;
  if (r.static_smem != p.static_smem) fields |= field_static_smem;
  if (r.registers != p.registers) fields |= field_registers;
  if (r.local_block_size != p.local_block_size) fields |= field_local_block_size;
  if (r.thread_id != p.thread_id) fields |= field_thread;
  if (r.stack_id != p.stack_id) fields |= field_stack;
  if (r.range_path != p.range_path) fields |= field_range_path;
  if (r.occupancy.has_value() != p.occupancy.has_value() ||
      (r.occupancy && std::bit_cast<std::uint32_t>(*r.occupancy) != std::bit_cast<std::uint32_t>(*p.occupancy))) {
    fields |= field_occupancy;
  }
  if (r.cache_config_requested != p.cache_config_requested || r.cache_config_executed != p.cache_config_executed) {
    fields |= field_cache_config;
  }
  if (r.counter_state != p.counter_state) fields |= field_counter_state;
  if (r.transfer_dir != p.transfer_dir || r.host_mem_type != p.host_mem_type) fields |= field_transfer;

  // Written straight into the chunk: the body's length is patched in after it (one
  // byte while it is under 128, as nearly every operation's is).
  ByteWriter w(buffer_);
  w.byte(static_cast<std::uint8_t>(RecordKind::operation));
  const std::size_t length_at = buffer_.size();
  w.byte(0);
  const std::size_t body_at = buffer_.size();
  w.varint(static_cast<std::uint64_t>(r.kind) | (r.method_is_plain ? 4u : 0u) |
           (std::uint64_t{fields} << kOperationFieldShift));
  if (fields & field_context) w.varint(static_cast<std::uint64_t>(c.number));
  if (fields & field_method) w.varint(method);
  if (fields & field_api) w.varint(api);
  w.varint(delta(p.timestamp_ns, r.timestamp_ns));
  w.varint(delta(p.gpu_start_ns, r.gpu_start_ns));
  w.varint(delta(r.gpu_start_ns, r.gpu_end_ns));
  if (fields & field_gputime) w.varint(r.gputime_ns);
  w.varint(r.cputime_ns);
  if (fields & field_stream) w.varint(r.stream_id);
  w.varint(delta(p.correlation_id, r.correlation_id));
  if (fields & field_transfer_bytes) w.varint(r.transfer_bytes);
  if (fields & field_grid) {
    w.varint(r.grid.x);
    w.varint(r.grid.y);
    w.varint(r.grid.z);
  }
  if (fields & field_block) {
    w.varint(r.block.x);
    w.varint(r.block.y);
    w.varint(r.block.z);
  }
  if (fields & field_dynamic_smem) w.varint(r.dynamic_smem);
  if (fields & field_static_smem) w.varint(r.static_smem);
  if (fields & field_registers) w.varint(r.registers);
  if (fields & field_local_block_size) w.varint(r.local_block_size);
  if (fields & field_thread) w.varint(r.thread_id);
  if (fields & field_stack) w.varint(r.stack_id);
  if (fields & field_range_path) w.varint(r.range_path);
  if (fields & field_occupancy) {
    w.byte(r.occupancy ? 1 : 0);
    if (r.occupancy) w.u32(std::bit_cast<std::uint32_t>(*r.occupancy));
  }
  if (fields & field_cache_config) {
    w.byte(r.cache_config_requested);
    w.byte(r.cache_config_executed);
  }
  if (fields & field_counter_state) w.byte(static_cast<std::uint8_t>(r.counter_state));
  if (fields & field_transfer) {
    w.byte(static_cast<std::uint8_t>(r.transfer_dir));
    w.byte(r.host_mem_type ? static_cast<std::uint8_t>(*r.host_mem_type) + 1 : 0);
  }
  if (r.counter_state == records::CounterState::measured && r.counters) {
    std::size_t n = 0;
    for (const records::CounterValue& v : r.counters->values) n += v.state != records::CounterValue::State::absent;
    w.varint(n);
    for (std::size_t id = 0; id < r.counters->values.size(); ++id) {
      const records::CounterValue& v = r.counters->values[id];
      if (v.state == records::CounterValue::State::absent) continue;
      w.varint(id);
      w.byte(static_cast<std::uint8_t>(v.state));
      w.varint(v.value);
    }
  } else if (r.counter_state == records::CounterState::measured) {
    w.varint(0);
  }
  const std::size_t length = buffer_.size() - body_at;
  if (length < 0x80) {
    buffer_[length_at] = static_cast<char>(length);
  } else {
    // Rare (counters): the one byte becomes a longer varint.
    std::string prefix;
    ByteWriter(prefix).varint(length);
    buffer_.replace(length_at, 1, prefix);
  }
  previous_ = r;
  previous_.counters = nullptr;
  previous_context_ = c.number;
}

void RunEncoder::memory(const records::MemoryEvent& e) {
  const std::uint32_t api = stable_string(e.api);
  stack(e.stack_id);
  const records::MemoryEvent& p = previous_memory_;
  begin_record();
  ByteWriter w(body_);
  w.varint(api);
  w.varint(delta(p.start_ns, e.start_ns));
  w.varint(delta(e.start_ns, e.wall_ns));
  w.varint(delta(p.sequence, e.sequence));
  w.varint(e.address);
  w.varint(e.bytes);
  w.varint(delta(p.correlation_id, e.correlation_id));
  w.varint(e.stream_id);
  w.varint(e.pool);
  w.varint(e.pool_reserved);
  w.varint(e.pool_used);
  w.varint(e.device_used);
  w.varint(e.device);
  w.varint(e.context_id);
  w.varint(e.thread_id);
  w.varint(e.stack_id);
  w.byte(static_cast<std::uint8_t>(e.kind));
  w.byte(static_cast<std::uint8_t>(e.operation));
  w.byte(e.unknown ? 1 : 0);
  finish_record(static_cast<std::uint8_t>(RecordKind::memory));
  previous_memory_ = e;
}

void RunEncoder::range(const records::RangeEvent& e) {
  if (e.name >= names_written_ || e.path >= paths_written_ || e.domain >= domains_written_) sync_ranges();
  const records::RangeEvent& p = previous_range_;
  begin_record();
  ByteWriter w(body_);
  w.varint(static_cast<std::uint16_t>(e.kind));
  w.byte(static_cast<std::uint8_t>(e.payload));
  w.byte(e.has_color ? 1 : 0);
  w.varint(delta(p.start_wall_ns, e.start_wall_ns));
  w.varint(delta(e.start_wall_ns, e.end_wall_ns));
  w.varint(e.range_id);
  w.varint(e.payload_bits);
  w.varint(e.path);
  w.varint(e.name);
  w.varint(e.domain);
  w.varint(e.thread_id);
  w.varint(e.end_thread_id);
  w.varint(e.category);
  if (e.has_color) w.varint(e.color);
  finish_record(static_cast<std::uint8_t>(RecordKind::range));
  previous_range_ = e;
}

void RunEncoder::api_call(const records::ApiCall& c) {
  const std::uint32_t name = stable_string(c.name);
  const records::ApiCall& p = previous_call_;
  begin_record();
  ByteWriter w(body_);
  w.varint(name);
  w.byte(static_cast<std::uint8_t>(c.domain));
  w.byte(static_cast<std::uint8_t>(c.kind));
  w.signed_varint(c.result);
  w.varint(delta(p.start_ns, c.start_ns));
  w.varint(delta(c.start_ns, c.end_ns));
  w.varint(delta(p.correlation_id, c.correlation_id));
  w.varint(c.thread_id);
  w.varint(c.context);
  w.varint(c.device);
  w.varint(c.stream_id);
  w.varint(c.event_id);
  finish_record(static_cast<std::uint8_t>(RecordKind::api_call));
  previous_call_ = c;
}

void RunEncoder::facts(const ProcessFacts& f) {
  if (facts_written_ && f == facts_) return;
  facts_written_ = true;
  facts_ = f;
  begin_record();
  ByteWriter w(body_);
  w.byte(f.cuda_runtime_present ? 1 : 0);
  w.varint(f.export_wall_ns);
  w.varint(f.export_monotonic_ns);
  finish_record(static_cast<std::uint8_t>(RecordKind::facts));
}

void RunEncoder::end() {
  begin_record();
  finish_record(static_cast<std::uint8_t>(RecordKind::end));
}

std::string_view RunEncoder::frame(std::string& buffer) {
  if (buffer.size() == kReserved) return {};
  const std::string_view payload(buffer.data() + kReserved, buffer.size() - kReserved);
  put_u32(buffer.data(), kChunkMagic);
  put_u32(buffer.data() + 4, static_cast<std::uint32_t>(payload.size()));
  put_u64(buffer.data() + 8, payload_checksum(payload));
  chunk_.swap(buffer);
  buffer.assign(kReserved, '\0');
  return chunk_;
}

std::string_view RunEncoder::take_chunk() {
  const std::string_view chunk = frame(buffer_);
  if (chunk.empty()) return chunk;
  // Each chunk is coded on its own (docs/format.md, "Run file"): a window of them can
  // drop its oldest.
  previous_ = {};
  previous_context_ = 0;
  previous_memory_ = {};
  previous_range_ = {};
  previous_call_ = {};
  return chunk;
}

std::string_view RunEncoder::take_dictionary() {
  if (dictionary_out_ != &dictionary_) return {};
  return frame(dictionary_);
}

}  // namespace computeprof::runfile
