#include "logfmt/columns.hpp"

#include <algorithm>

namespace computeprof::logfmt {

using config::Api;
using config::Option;

namespace {

KvpKey kvp_key(std::string_view name) {
  KvpKey key;
  const std::size_t size = std::min(name.size(), kMaxColumnName);  // every name fits: a unit test says so
  std::copy_n(name.data(), size, key.text.data());
  std::copy_n("=[ ", 3, key.text.data() + size);
  key.size = static_cast<std::uint8_t>(size + 3);
  return key;
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
  const bool cl = api == Api::opencl;
  for (std::size_t kind = 0; kind < kRecordKinds; ++kind) {
    for (const ColumnSpec& spec : layout.columns) {
      if (!column_of_kind(spec.column, static_cast<RecordKind>(kind))) continue;
      std::string_view name = column_name(spec, api);
      switch (spec.column) {
        case Column::gridsize_x: name = grid3d ? (cl ? "ndrangesize3d" : "gridsize3d") : (cl ? "ndrangesize" : "gridsize"); break;
        case Column::blocksize_x: name = cl ? "workgroupsize" : "threadblocksize"; break;
        case Column::gridsize_y:
        case Column::gridsize_z:
        case Column::blocksize_y:
        case Column::blocksize_z: continue;
        default: break;
      }
      layout.kvp_steps[kind].push_back({spec, kvp_key(name), spec.column == Column::occupancy ||
                                                                 spec.column == Column::counter ||
                                                                 spec.column == Column::memtransferhostmemtype});
    }
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
