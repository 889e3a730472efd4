#include "logfmt/record_writer.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

namespace computeprof::logfmt {
namespace {

using config::Api;

// The part of whether a record has a column that depends on what it holds, not only on
// its kind (KvpStep::conditional).
bool known(const ColumnSpec& spec, const Record& r) {
  switch (spec.column) {
    case Column::occupancy: return r.occupancy.has_value();
    case Column::counter: return r.counter(spec.counter).state != CounterValue::State::absent;
    case Column::memtransferhostmemtype: return r.host_mem_type.has_value();
    default: return true;
  }
}

bool applies(const ColumnSpec& spec, const Record& r) { return column_of_kind(spec.column, r.kind) && known(spec, r); }

// Every value is written through a raw pointer into room the line reserved for itself
// (line_bound): one capacity check per record, not one per piece.
char* put(char* p, std::string_view text) {
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}

// The longest value any column writes: a float's integer digits, sign and three decimals.
constexpr std::size_t kMaxValue = 48;

// Numbers are written with std::to_chars: no format string is parsed per value (the
// writer formats every record the program makes).
template <typename Integer>
char* put_integer(char* p, Integer value) {
  return std::to_chars(p, p + 24, value).ptr;
}

// ".000" to ".999": a record's two times and its occupancy each take their decimals
// from here in one 4-byte copy, not three divisions.
constexpr auto kDecimals = [] {
  std::array<std::array<char, 4>, 1000> table{};
  for (unsigned i = 0; i < 1000; ++i) {
    table[i] = {'.', static_cast<char>('0' + i / 100), static_cast<char>('0' + i / 10 % 10),
                static_cast<char>('0' + i % 10)};
  }
  return table;
}();

// Nanoseconds as microseconds with three decimals, exactly (no floating point).
char* put_micros(char* p, std::uint64_t ns) {
  p = put_integer(p, ns / 1000);
  std::memcpy(p, kDecimals[ns % 1000].data(), 4);
  return p + 4;
}

// 16 lower-case hex digits (docs/format.md, "Values").
char* put_hex16(char* p, std::uint64_t value) {
  constexpr char kHex[] = "0123456789abcdef";
  for (int i = 15; i >= 0; --i, value >>= 4) p[i] = kHex[value & 0xf];
  return p + 16;
}

// Three decimals, rounded as printf's %.3f rounds: to nearest, ties to even, from the
// float's exact binary value. Occupancies (0..1) are scaled in integers, exactly; other
// values go through std::to_chars (the same digits, slower).
char* put_fixed3(char* p, float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const int exponent = static_cast<int>(bits >> 23 & 0xff);
  if (bits >> 31 == 0 && exponent < 127) {  // 0 <= value < 1
    // value = mantissa * 2^-shift exactly; value * 1000 = scaled * 2^-shift.
    const std::uint64_t mantissa = exponent == 0 ? (bits & 0x7fffff) : ((bits & 0x7fffff) | 0x800000);
    const int shift = exponent == 0 ? 149 : 150 - exponent;
    const std::uint64_t scaled = mantissa * 1000;  // < 2^34
    std::uint64_t thousandths = 0;
    if (shift < 64) {
      thousandths = scaled >> shift;
      const std::uint64_t rest = scaled & ((std::uint64_t{1} << shift) - 1);
      const std::uint64_t half = std::uint64_t{1} << (shift - 1);
      if (rest > half || (rest == half && (thousandths & 1) != 0)) ++thousandths;
    }  // else value * 1000 < 2^-29: rounds to 0
    p[0] = static_cast<char>('0' + thousandths / 1000);
    std::memcpy(p + 1, kDecimals[thousandths % 1000].data(), 4);
    return p + 5;
  }
  return std::to_chars(p, p + kMaxValue, static_cast<double>(value), std::chars_format::fixed, 3).ptr;
}

// The value of one column; only called where applies() holds. Counters that are not
// available write `unavailable` ("n/a" in key-value logs, "" in CSV).
char* put_value(char* p, const ColumnSpec& spec, const Record& r, std::string_view unavailable) {
  switch (spec.column) {
    case Column::gpustarttimestamp: return put_hex16(p, r.gpu_start_ns);
    case Column::gpuendtimestamp: return put_hex16(p, r.gpu_end_ns);
    case Column::timestamp: return put_micros(p, r.timestamp_ns);
    case Column::method: return put(p, r.method);
    case Column::gputime: return put_micros(p, r.gputime_ns);
    case Column::cputime: return put_micros(p, r.cputime_ns);
    case Column::gridsize_x: return put_integer(p, r.grid.x);
    case Column::gridsize_y: return put_integer(p, r.grid.y);
    case Column::gridsize_z: return put_integer(p, r.grid.z);
    case Column::blocksize_x: return put_integer(p, r.block.x);
    case Column::blocksize_y: return put_integer(p, r.block.y);
    case Column::blocksize_z: return put_integer(p, r.block.z);
    case Column::localblocksize: return put_integer(p, r.local_block_size);
    case Column::dynsmemperblock: return put_integer(p, r.dynamic_smem);
    case Column::stasmemperblock: return put_integer(p, r.static_smem);
    case Column::regperthread: return put_integer(p, r.registers);
    case Column::occupancy: return put_fixed3(p, *r.occupancy);
    case Column::streamid: return put_integer(p, r.stream_id);
    case Column::cacheconfigexecuted: return put_integer(p, r.cache_config_executed);
    case Column::cacheconfigrequested: return put_integer(p, r.cache_config_requested);
    case Column::counter: {
      const CounterValue v = r.counter(spec.counter);
      return v.state == CounterValue::State::value ? put_integer(p, v.value) : put(p, unavailable);
    }
    case Column::memtransfersize: return put_integer(p, r.transfer_bytes);
    case Column::memtransferdir: return put_integer(p, static_cast<int>(r.transfer_dir));
    case Column::memtransferhostmemtype: return put_integer(p, static_cast<int>(*r.host_mem_type));
    case Column::callstackid: return put_integer(p, r.stack_id);
  }
  return p;
}

// The values of the grouped keys of the old logs: gridsize=[ 2, 1 ], gridsize3d=[ 2, 1, 1 ],
// threadblocksize=[ 32, 8, 8 ] (ndrangesize / workgroupsize in OpenCL logs).
char* put_dims(char* p, std::initializer_list<std::uint32_t> values) {
  bool first = true;
  for (std::uint32_t v : values) {
    if (!first) p = put(p, ", ");
    first = false;
    p = put_integer(p, v);
  }
  return p;
}

bool needs_kvp_escape(std::string_view field) {
  // memchr scans a long template name many bytes at a time (find_first_of would test
  // every character against the set).
  return std::memchr(field.data(), '\\', field.size()) != nullptr || std::memchr(field.data(), '\n', field.size()) != nullptr ||
         std::memchr(field.data(), '\r', field.size()) != nullptr;
}

// At most two characters per character of `field`.
char* put_kvp_field(char* p, std::string_view field) {
  if (!needs_kvp_escape(field)) return put(p, field);
  for (char c : field) {
    switch (c) {
      case '\n': p = put(p, "\\n"); break;
      case '\r': p = put(p, "\\r"); break;
      case '\\': p = put(p, "\\\\"); break;
      default: *p++ = c;
    }
  }
  return p;
}

// At most two characters per character of `field`, and two quotes.
char* put_csv_field(char* p, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return put(p, field);
  *p++ = '"';
  for (char c : field) {
    if (c == '"') *p++ = '"';
    *p++ = c;
  }
  *p++ = '"';
  return p;
}

}  // namespace

bool is_plain_name(std::string_view name) {
  return name.find_first_of("\n\r\\,\"") == std::string_view::npos;
}

std::size_t line_bound(const Record& record, const ColumnLayout& layout) {
  // A whole KvpKey block is copied: it fits in the room of its column.
  static_assert(std::tuple_size_v<decltype(KvpKey::text)> <= kMaxColumnName + sizeof "=[  ] " + kMaxValue);
  return layout.columns.size() * (kMaxColumnName + sizeof "=[  ] " + kMaxValue) + 2 * record.method.size() + 3;
}

char* put_kvp_line(char* p, const Record& r, const ColumnLayout& layout) {
  const bool grid3d = layout.has(Column::gridsize_z);
  for (const KvpStep& step : layout.kvp_steps[static_cast<std::size_t>(r.kind)]) {
    if (step.conditional && !known(step.spec, r)) continue;
    std::memcpy(p, step.key.text.data(), step.key.text.size());
    p += step.key.size;
    switch (step.spec.column) {
      case Column::method: p = r.method_is_plain ? put(p, r.method) : put_kvp_field(p, r.method); break;
      case Column::gridsize_x:
        p = grid3d ? put_dims(p, {r.grid.x, r.grid.y, r.grid.z}) : put_dims(p, {r.grid.x, r.grid.y});
        break;
      case Column::blocksize_x: p = put_dims(p, {r.block.x, r.block.y, r.block.z}); break;
      default: p = put_value(p, step.spec, r, "n/a");
    }
    p = put(p, " ] ");
  }
  *p++ = '\n';
  return p;
}

char* put_csv_line(char* p, const Record& r, const ColumnLayout& layout) {
  bool first = true;
  for (const ColumnSpec& spec : layout.columns) {
    if (!first) *p++ = ',';
    first = false;
    if (!applies(spec, r)) continue;
    if (spec.column != Column::method) {
      p = put_value(p, spec, r, "");
    } else {
      p = r.method_is_plain ? put(p, r.method) : put_csv_field(p, r.method);
    }
  }
  *p++ = '\n';
  return p;
}

char* put_record(char* p, const Record& record, const ColumnLayout& layout, config::LogFormat format) {
  return format == config::LogFormat::csv ? put_csv_line(p, record, layout) : put_kvp_line(p, record, layout);
}

namespace {

// Runs `put(char*) -> char*` on room for `bound` bytes at the end of `out`, then trims
// `out` to what it wrote.
template <typename Put>
void append_put(std::string& out, std::size_t bound, Put put) {
  const std::size_t start = out.size();
  out.resize(start + bound);
  out.resize(static_cast<std::size_t>(put(out.data() + start) - out.data()));
}

}  // namespace

void write_kvp_line(std::string& out, const Record& r, const ColumnLayout& layout) {
  append_put(out, line_bound(r, layout), [&](char* p) { return put_kvp_line(p, r, layout); });
}

void write_csv_line(std::string& out, const Record& r, const ColumnLayout& layout) {
  append_put(out, line_bound(r, layout), [&](char* p) { return put_csv_line(p, r, layout); });
}

void write_record(std::string& out, const Record& record, const ColumnLayout& layout,
                  config::LogFormat format) {
  append_put(out, line_bound(record, layout), [&](char* p) { return put_record(p, record, layout, format); });
}

void append_kvp_field(std::string& out, std::string_view field) {
  append_put(out, 2 * field.size(), [&](char* p) { return put_kvp_field(p, field); });
}

void append_csv_field(std::string& out, std::string_view field) {
  append_put(out, 2 * field.size() + 2, [&](char* p) { return put_csv_field(p, field); });
}

}  // namespace computeprof::logfmt
