#include "logfmt/record_writer.hpp"

#include <fmt/format.h>

#include <iterator>

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
  }
  return false;
}

// Nanoseconds as microseconds with three decimals, exactly (no floating point).
void append_micros(std::string& out, std::uint64_t ns) {
  fmt::format_to(std::back_inserter(out), "{}.{:03}", ns / 1000, ns % 1000);
}

// The value of one column; only called where applies() holds. Counters that are not
// available write `unavailable` ("n/a" in key-value logs, "" in CSV).
void append_value(std::string& out, const ColumnSpec& spec, const Record& r, std::string_view unavailable) {
  auto out_it = std::back_inserter(out);
  switch (spec.column) {
    case Column::gpustarttimestamp: fmt::format_to(out_it, "{:016x}", r.gpu_start_ns); return;
    case Column::gpuendtimestamp: fmt::format_to(out_it, "{:016x}", r.gpu_end_ns); return;
    case Column::timestamp: append_micros(out, r.timestamp_ns); return;
    case Column::method: out.append(r.method); return;
    case Column::gputime: append_micros(out, r.gputime_ns); return;
    case Column::cputime: append_micros(out, r.cputime_ns); return;
    case Column::gridsize_x: fmt::format_to(out_it, "{}", r.grid.x); return;
    case Column::gridsize_y: fmt::format_to(out_it, "{}", r.grid.y); return;
    case Column::gridsize_z: fmt::format_to(out_it, "{}", r.grid.z); return;
    case Column::blocksize_x: fmt::format_to(out_it, "{}", r.block.x); return;
    case Column::blocksize_y: fmt::format_to(out_it, "{}", r.block.y); return;
    case Column::blocksize_z: fmt::format_to(out_it, "{}", r.block.z); return;
    case Column::localblocksize: fmt::format_to(out_it, "{}", r.local_block_size); return;
    case Column::dynsmemperblock: fmt::format_to(out_it, "{}", r.dynamic_smem); return;
    case Column::stasmemperblock: fmt::format_to(out_it, "{}", r.static_smem); return;
    case Column::regperthread: fmt::format_to(out_it, "{}", r.registers); return;
    case Column::occupancy: fmt::format_to(out_it, "{:.3f}", *r.occupancy); return;
    case Column::streamid: fmt::format_to(out_it, "{}", r.stream_id); return;
    case Column::cacheconfigexecuted: fmt::format_to(out_it, "{}", r.cache_config_executed); return;
    case Column::cacheconfigrequested: fmt::format_to(out_it, "{}", r.cache_config_requested); return;
    case Column::counter: {
      const CounterValue v = r.counter(spec.counter);
      if (v.state == CounterValue::State::value) {
        fmt::format_to(out_it, "{}", v.value);
      } else {
        out.append(unavailable);
      }
      return;
    }
    case Column::memtransfersize: fmt::format_to(out_it, "{}", r.transfer_bytes); return;
    case Column::memtransferdir: fmt::format_to(out_it, "{}", static_cast<int>(r.transfer_dir)); return;
    case Column::memtransferhostmemtype: fmt::format_to(out_it, "{}", static_cast<int>(*r.host_mem_type)); return;
  }
}

bool is_grid(Column c) { return c == Column::gridsize_x || c == Column::gridsize_y || c == Column::gridsize_z; }
bool is_block(Column c) {
  return c == Column::blocksize_x || c == Column::blocksize_y || c == Column::blocksize_z;
}

// Grouped keys of the old logs: gridsize=[ 2, 1 ], gridsize3d=[ 2, 1, 1 ],
// threadblocksize=[ 32, 8, 8 ] (ndrangesize / workgroupsize in OpenCL logs).
void append_group(std::string& out, std::string_view key, std::initializer_list<std::uint32_t> values) {
  fmt::format_to(std::back_inserter(out), "{}=[ {} ] ", key, fmt::join(values, ", "));
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
  if (field.find_first_of("\n\r\\") == std::string_view::npos) {
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
