#include "logfmt/record_writer.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace computeprof::logfmt {
namespace {

using config::Api;

bool is_kernel(const Record& r) { return r.kind == RecordKind::kernel; }
bool is_copy(const Record& r) { return r.kind == RecordKind::memcpy; }

bool applies(const ColumnSpec& spec, const Record& r) {
  switch (spec.column) {
    case Column::gpustarttimestamp:
    case Column::gpuendtimestamp:
    case Column::timestamp:
    case Column::method:
    case Column::gputime:
    case Column::cputime:
    case Column::streamid:
      return true;
    case Column::gridsize_x:
    case Column::gridsize_y:
    case Column::gridsize_z:
    case Column::blocksize_x:
    case Column::blocksize_y:
    case Column::blocksize_z:
    case Column::localblocksize:
    case Column::dynsmemperblock:
    case Column::stasmemperblock:
    case Column::regperthread:
    case Column::cacheconfigexecuted:
    case Column::cacheconfigrequested:
      return is_kernel(r);
    case Column::occupancy:
      return is_kernel(r) && r.occupancy.has_value();
    case Column::counter:
      return is_kernel(r) && r.counter(spec.counter).state != CounterValue::State::absent;
    case Column::memtransfersize:
      return is_copy(r) || r.kind == RecordKind::memset;
    case Column::memtransferdir:
      return is_copy(r);
    case Column::memtransferhostmemtype:
      return is_copy(r) && r.host_mem_type.has_value();
    case Column::callstackid:
      return true;
  }
  return false;
}

// Numbers are written with std::to_chars into the line: no format string is parsed per
// value (the writer formats every record the program makes).
template <typename Integer>
void append_integer(std::string& out, Integer value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

// Nanoseconds as microseconds with three decimals, exactly (no floating point).
void append_micros(std::string& out, std::uint64_t ns) {
  append_integer(out, ns / 1000);
  const auto fraction = static_cast<unsigned>(ns % 1000);
  const char decimals[4] = {'.', static_cast<char>('0' + fraction / 100), static_cast<char>('0' + fraction / 10 % 10),
                            static_cast<char>('0' + fraction % 10)};
  out.append(decimals, 4);
}

// 16 lower-case hex digits (docs/format.md, "Values").
void append_hex16(std::string& out, std::uint64_t value) {
  constexpr char kHex[] = "0123456789abcdef";
  char digits[16];
  for (int i = 15; i >= 0; --i, value >>= 4) digits[i] = kHex[value & 0xf];
  out.append(digits, 16);
}

// Three decimals, rounded as printf's %.3f rounds: to nearest, ties to even, from the
// float's exact binary value. Occupancies (0..1) are scaled in integers, exactly; other
// values go through std::to_chars (the same digits, slower).
void append_fixed3(std::string& out, float value) {
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
    const char digits[5] = {static_cast<char>('0' + thousandths / 1000), '.',
                            static_cast<char>('0' + thousandths / 100 % 10),
                            static_cast<char>('0' + thousandths / 10 % 10), static_cast<char>('0' + thousandths % 10)};
    out.append(digits, 5);
    return;
  }
  char digits[64];
  const auto end = std::to_chars(digits, digits + sizeof digits, static_cast<double>(value), std::chars_format::fixed, 3).ptr;
  out.append(digits, end);
}

// The value of one column; only called where applies() holds. Counters that are not
// available write `unavailable` ("n/a" in key-value logs, "" in CSV).
void append_value(std::string& out, const ColumnSpec& spec, const Record& r, std::string_view unavailable) {
  switch (spec.column) {
    case Column::gpustarttimestamp: append_hex16(out, r.gpu_start_ns); return;
    case Column::gpuendtimestamp: append_hex16(out, r.gpu_end_ns); return;
    case Column::timestamp: append_micros(out, r.timestamp_ns); return;
    case Column::method: out.append(r.method); return;
    case Column::gputime: append_micros(out, r.gputime_ns); return;
    case Column::cputime: append_micros(out, r.cputime_ns); return;
    case Column::gridsize_x: append_integer(out, r.grid.x); return;
    case Column::gridsize_y: append_integer(out, r.grid.y); return;
    case Column::gridsize_z: append_integer(out, r.grid.z); return;
    case Column::blocksize_x: append_integer(out, r.block.x); return;
    case Column::blocksize_y: append_integer(out, r.block.y); return;
    case Column::blocksize_z: append_integer(out, r.block.z); return;
    case Column::localblocksize: append_integer(out, r.local_block_size); return;
    case Column::dynsmemperblock: append_integer(out, r.dynamic_smem); return;
    case Column::stasmemperblock: append_integer(out, r.static_smem); return;
    case Column::regperthread: append_integer(out, r.registers); return;
    case Column::occupancy: append_fixed3(out, *r.occupancy); return;
    case Column::streamid: append_integer(out, r.stream_id); return;
    case Column::cacheconfigexecuted: append_integer(out, r.cache_config_executed); return;
    case Column::cacheconfigrequested: append_integer(out, r.cache_config_requested); return;
    case Column::counter: {
      const CounterValue v = r.counter(spec.counter);
      if (v.state == CounterValue::State::value) {
        append_integer(out, v.value);
      } else {
        out.append(unavailable);
      }
      return;
    }
    case Column::memtransfersize: append_integer(out, r.transfer_bytes); return;
    case Column::memtransferdir: append_integer(out, static_cast<int>(r.transfer_dir)); return;
    case Column::memtransferhostmemtype: append_integer(out, static_cast<int>(*r.host_mem_type)); return;
    case Column::callstackid: append_integer(out, r.stack_id); return;
  }
}

bool is_grid(Column c) { return c == Column::gridsize_x || c == Column::gridsize_y || c == Column::gridsize_z; }
bool is_block(Column c) {
  return c == Column::blocksize_x || c == Column::blocksize_y || c == Column::blocksize_z;
}

// Grouped keys of the old logs: gridsize=[ 2, 1 ], gridsize3d=[ 2, 1, 1 ],
// threadblocksize=[ 32, 8, 8 ] (ndrangesize / workgroupsize in OpenCL logs).
void append_group(std::string& out, std::string_view key, std::initializer_list<std::uint32_t> values) {
  out.append(key).append("=[ ");
  bool first = true;
  for (std::uint32_t v : values) {
    if (!first) out.append(", ");
    first = false;
    append_integer(out, v);
  }
  out.append(" ] ");
}

}  // namespace

void write_kvp_line(std::string& out, const Record& r, const ColumnLayout& layout) {
  bool cl = layout.api == Api::opencl;
  bool grid3d = layout.has(Column::gridsize_z);
  for (const ColumnSpec& spec : layout.columns) {
    if (!applies(spec, r)) continue;
    if (is_grid(spec.column)) {
      if (spec.column != Column::gridsize_x) continue;
      if (grid3d) {
        append_group(out, cl ? "ndrangesize3d" : "gridsize3d", {r.grid.x, r.grid.y, r.grid.z});
      } else {
        append_group(out, cl ? "ndrangesize" : "gridsize", {r.grid.x, r.grid.y});
      }
      continue;
    }
    if (is_block(spec.column)) {
      if (spec.column == Column::blocksize_x) {
        append_group(out, cl ? "workgroupsize" : "threadblocksize", {r.block.x, r.block.y, r.block.z});
      }
      continue;
    }
    out.append(column_name(spec, layout.api)).append("=[ ");
    if (spec.column == Column::method) {
      append_kvp_field(out, r.method);
    } else {
      append_value(out, spec, r, "n/a");
    }
    out.append(" ] ");
  }
  out.push_back('\n');
}

void append_kvp_field(std::string& out, std::string_view field) {
  // One pass over the name (find_first_of would search the set once per character).
  if (std::none_of(field.begin(), field.end(), [](char c) { return c == '\n' || c == '\r' || c == '\\'; })) {
    out.append(field);
    return;
  }
  for (char c : field) {
    switch (c) {
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\\': out.append("\\\\"); break;
      default: out.push_back(c);
    }
  }
}

void append_csv_field(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out.append(field);
    return;
  }
  out.push_back('"');
  for (char c : field) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

void write_csv_line(std::string& out, const Record& r, const ColumnLayout& layout) {
  bool first = true;
  for (const ColumnSpec& spec : layout.columns) {
    if (!first) out.push_back(',');
    first = false;
    if (!applies(spec, r)) continue;
    if (spec.column == Column::method) {
      append_csv_field(out, r.method);
    } else {
      append_value(out, spec, r, "");
    }
  }
  out.push_back('\n');
}

void write_record(std::string& out, const Record& record, const ColumnLayout& layout,
                  config::LogFormat format) {
  if (format == config::LogFormat::csv) {
    write_csv_line(out, record, layout);
  } else {
    write_kvp_line(out, record, layout);
  }
}

}  // namespace computeprof::logfmt
