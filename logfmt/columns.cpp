#include "logfmt/columns.hpp"

#include <algorithm>

namespace computeprof::logfmt {

using config::Api;
using config::Option;

namespace {

LineText line_text(std::string_view text) {
  LineText block;
  // Every key fits (a unit test says so); runs of commas are cut to fit.
  const std::size_t size = std::min(text.size(), kLineText);
  std::copy_n(text.data(), size, block.bytes.data());
  block.size = static_cast<std::uint8_t>(size);
  return block;
}

// Whether the method's step writes the column (LineValue::method_and_times).
bool written_with_method(Column column) { return column == Column::gputime || column == Column::cputime; }

LineValue line_value(Column column) {
  switch (column) {
    case Column::method: return LineValue::method_and_times;
    case Column::gputime:
    case Column::cputime: return LineValue::none;  // written with the method
    default: return value_of(column);
  }
}

// method=[ _Z6vecAddPKfS0_Pfi ] gputime=[ 7.424 ] ... \n: one pair per column the kind has,
// the grid's and the block's as one pair each, led by their _x column.
LinePlan kvp_line(const ColumnLayout& layout, RecordKind kind) {
  const bool grid3d = layout.has(Column::gridsize_z);
  const bool cl = layout.api == Api::opencl;
  LinePlan plan;
  for (const ColumnSpec& spec : layout.columns) {
    if (!column_of_kind(spec.column, kind) || written_with_method(spec.column)) continue;
    std::string_view name = column_name(spec, layout.api);
    LineValue value = line_value(spec.column);
    switch (spec.column) {
      case Column::gridsize_x:
        name = grid3d ? (cl ? "ndrangesize3d" : "gridsize3d") : (cl ? "ndrangesize" : "gridsize");
        value = grid3d ? LineValue::grid3 : LineValue::grid2;
        break;
      case Column::blocksize_x:
        name = cl ? "workgroupsize" : "threadblocksize";
        value = LineValue::block3;
        break;
      case Column::gridsize_y:
      case Column::gridsize_z:
      case Column::blocksize_y:
      case Column::blocksize_z: continue;
      default: break;
    }
    const std::string text = (plan.steps.empty() ? "" : " ] ") + std::string(name) + "=[ ";
    plan.steps.push_back({line_text(text), value, spec.counter});
  }
  plan.tail = line_text(" ] \n");
  return plan;
}

// One field per column, empty where the kind has no such column: each step's text is the
// commas since the last field written.
LinePlan csv_line(const ColumnLayout& layout, RecordKind kind) {
  LinePlan plan;
  std::size_t commas = 0;
  // Runs too long for one step's text are steps of text alone.
  auto flush_commas = [&](std::size_t keep) {
    for (; commas > keep; commas -= kLineText) plan.steps.push_back({line_text(std::string(kLineText, ','))});
  };
  for (std::size_t i = 0; i < layout.columns.size(); ++i) {
    if (i != 0) ++commas;
    const ColumnSpec& spec = layout.columns[i];
    if (!column_of_kind(spec.column, kind)) continue;
    if (written_with_method(spec.column)) {
      commas = 0;  // its comma too
      continue;
    }
    flush_commas(kLineText);
    plan.steps.push_back({line_text(std::string(commas, ',')), line_value(spec.column), spec.counter});
    commas = 0;
  }
  flush_commas(kLineText - 1);
  plan.tail = line_text(std::string(commas, ',') + "\n");
  return plan;
}

}  // namespace

bool column_of_kind(Column column, RecordKind kind) {
  switch (column) {
    case Column::gpustarttimestamp:
    case Column::gpuendtimestamp:
    case Column::timestamp:
    case Column::method:
    case Column::gputime:
    case Column::cputime:
    case Column::streamid:
    case Column::callstackid:
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
    case Column::occupancy:
    case Column::counter:
      return kind == RecordKind::kernel;
    case Column::memtransfersize:
      return kind == RecordKind::memcpy || kind == RecordKind::memset;
    case Column::memtransferdir:
    case Column::memtransferhostmemtype:
      return kind == RecordKind::memcpy;
  }
  return false;
}

ColumnLayout select_columns(const config::ProfileConfig& cfg, Api api) {
  ColumnLayout layout;
  layout.api = api;
  auto add = [&](Column c) {
    layout.columns.push_back({c});
    layout.present.set(static_cast<std::size_t>(c));
  };
  if (cfg.has(Option::gpustarttimestamp)) add(Column::gpustarttimestamp);
  if (cfg.has(Option::gpuendtimestamp)) add(Column::gpuendtimestamp);
  if (cfg.has(Option::timestamp)) add(Column::timestamp);
  add(Column::method);
  add(Column::gputime);
  add(Column::cputime);
  bool grid3d = cfg.has(Option::gridsize3d);
  if (cfg.has(Option::gridsize) || grid3d) {
    add(Column::gridsize_x);
    add(Column::gridsize_y);
    if (grid3d) add(Column::gridsize_z);
  }
  if (cfg.has(Option::threadblocksize)) {
    add(Column::blocksize_x);
    add(Column::blocksize_y);
    add(Column::blocksize_z);
  }
  if (api == Api::opencl && cfg.has(Option::localblocksize)) add(Column::localblocksize);
  if (cfg.has(Option::dynsmemperblock)) add(Column::dynsmemperblock);
  if (cfg.has(Option::stasmemperblock)) add(Column::stasmemperblock);
  if (cfg.has(Option::regperthread)) add(Column::regperthread);
  add(Column::occupancy);
  if (cfg.has(Option::streamid)) add(Column::streamid);
  if (cfg.has(Option::cacheconfigexecuted)) add(Column::cacheconfigexecuted);
  if (cfg.has(Option::cacheconfigrequested)) add(Column::cacheconfigrequested);
  for (std::size_t id = 0; id < config::kLegacyCounterCount; ++id) {
    if (cfg.counters.test(id)) {
      layout.columns.push_back({Column::counter, static_cast<std::uint8_t>(id)});
      layout.present.set(static_cast<std::size_t>(Column::counter));
    }
  }
  if (cfg.has(Option::memtransfersize)) add(Column::memtransfersize);
  if (cfg.has(Option::memtransferdir)) add(Column::memtransferdir);
  if (cfg.has(Option::memtransferhostmemtype)) add(Column::memtransferhostmemtype);
  if (cfg.callstack_depth != 0) add(Column::callstackid);
  for (std::size_t kind = 0; kind < kRecordKinds; ++kind) {
    layout.kvp_lines[kind] = kvp_line(layout, static_cast<RecordKind>(kind));
    layout.csv_lines[kind] = csv_line(layout, static_cast<RecordKind>(kind));
  }
  return layout;
}

std::string_view column_name(const ColumnSpec& spec, Api api) {
  bool cl = api == Api::opencl;
  switch (spec.column) {
    case Column::gpustarttimestamp: return "gpustarttimestamp";
    case Column::gpuendtimestamp: return "gpuendtimestamp";
    case Column::timestamp: return "timestamp";
    case Column::method: return "method";
    case Column::gputime: return "gputime";
    case Column::cputime: return "cputime";
    case Column::gridsize_x: return cl ? "ndrangesizeX" : "gridsizeX";
    case Column::gridsize_y: return cl ? "ndrangesizeY" : "gridsizeY";
    case Column::gridsize_z: return cl ? "ndrangesizeZ" : "gridsizeZ";
    case Column::blocksize_x: return cl ? "workgroupsizeX" : "threadblocksizeX";
    case Column::blocksize_y: return cl ? "workgroupsizeY" : "threadblocksizeY";
    case Column::blocksize_z: return cl ? "workgroupsizeZ" : "threadblocksizeZ";
    case Column::localblocksize: return "localblocksize";
    case Column::dynsmemperblock: return "dynsmemperblock";
    case Column::stasmemperblock: return cl ? "stapmemperworkgroup" : "stasmemperblock";
    case Column::regperthread: return cl ? "regperworkitem" : "regperthread";
    case Column::occupancy: return "occupancy";
    case Column::streamid: return "streamid";
    case Column::cacheconfigexecuted: return "cacheconfigexecuted";
    case Column::cacheconfigrequested: return "cacheconfigrequested";
    case Column::counter: return config::legacy_counters()[spec.counter].name;
    case Column::memtransfersize: return "memtransfersize";
    case Column::memtransferdir: return "memtransferdir";
    case Column::memtransferhostmemtype: return "memtransferhostmemtype";
    case Column::callstackid: return "callstackid";
  }
  return "";
}

std::string column_line(const ColumnLayout& layout) {
  std::string line;
  for (const ColumnSpec& spec : layout.columns) {
    if (!line.empty()) line.push_back(',');
    line.append(column_name(spec, layout.api));
  }
  return line;
}

}  // namespace computeprof::logfmt
