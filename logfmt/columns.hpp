#pragma once
// Which columns a log has, in the fixed order of docs/format.md "Columns", whatever the
// order of the config file.
#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/environment.hpp"
#include "config/profile_config.hpp"
#include "logfmt/record.hpp"

namespace computeprof::logfmt {

enum class Column : std::uint8_t {
  gpustarttimestamp,
  gpuendtimestamp,
  timestamp,
  method,
  gputime,
  cputime,
  gridsize_x,
  gridsize_y,
  gridsize_z,
  blocksize_x,
  blocksize_y,
  blocksize_z,
  localblocksize,
  dynsmemperblock,
  stasmemperblock,
  regperthread,
  occupancy,
  streamid,
  cacheconfigexecuted,
  cacheconfigrequested,
  counter,
  memtransfersize,
  memtransferdir,
  memtransferhostmemtype,
  callstackid,  // computeprof's (callstack): the call's stack in <stem>.stacks
};

struct ColumnSpec {
  Column column;
  std::uint8_t counter = 0;  // legacy counter id, for Column::counter
  friend bool operator==(const ColumnSpec&, const ColumnSpec&) = default;
};

// No column's name is longer: the record writers size a line's room with it.
inline constexpr std::size_t kMaxColumnName = 48;

// A key in key-value records, "gputime=[ ", in a block of fixed size: the writer copies
// the whole block (no call, no copy loop of the name's length) into room it has
// reserved, then keeps `size` bytes of it.
struct KvpKey {
  std::array<char, 64> text{};
  std::uint8_t size = 0;
};

// One pair of a key-value record of some kind, in line order. The grid's and the
// block's columns are one pair each (gridsize=[ 2, 1 ], threadblocksize=[ 32, 8, 8 ]),
// led by their _x column.
struct KvpStep {
  ColumnSpec spec;
  KvpKey key;
  // Whether the pair also depends on the record, not only on its kind: occupancy,
  // counters and the host memory type are written only where known.
  bool conditional = false;
};
static_assert(kMaxColumnName + sizeof "=[" < std::tuple_size_v<decltype(KvpKey::text)>);

struct ColumnLayout {
  config::Api api = config::Api::cuda;
  std::vector<ColumnSpec> columns;
  // The pairs of a key-value record, by RecordKind: only the columns a kind has.
  std::array<std::vector<KvpStep>, kRecordKinds> kvp_steps;
  // Which kinds of column `columns` has: asked per record by the writers.
  std::bitset<static_cast<std::size_t>(Column::callstackid) + 1> present;

  bool has(Column c) const { return present.test(static_cast<std::size_t>(c)); }
  bool has_gpu_timestamps() const { return has(Column::gpustarttimestamp) || has(Column::gpuendtimestamp); }
};

ColumnLayout select_columns(const config::ProfileConfig& config, config::Api api);

// Whether records of `kind` have the column at all (what a record holds decides the
// conditional ones: KvpStep::conditional).
bool column_of_kind(Column column, RecordKind kind);

// The name of a column in the column line (OpenCL spellings for OpenCL logs).
std::string_view column_name(const ColumnSpec& spec, config::Api api);

// "method,gputime,cputime,occupancy"
std::string column_line(const ColumnLayout& layout);

}  // namespace computeprof::logfmt
