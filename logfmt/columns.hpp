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
#include "records/record.hpp"

namespace computeprof::logfmt {

// The columns of config/options.def, in the order of a log's lines.
enum class Column : std::uint8_t {
#define OPTION_COLUMN(option, ...) option,
#define COLUMN(column, ...) column,
#include "config/options.def"
};

struct ColumnSpec {
  Column column;
  std::uint8_t counter = 0;  // legacy counter id, for Column::counter
  friend bool operator==(const ColumnSpec&, const ColumnSpec&) = default;
};

inline constexpr std::size_t kColumnKinds = 0
#define OPTION_COLUMN(...) +1
#define COLUMN(...) +1
#include "config/options.def"
    ;

// What a step of a record's line writes after its text: one column's value, numbered as
// its Column (value_of), or one of the values after them. Chosen with the layout, so
// that a record costs one dispatch per value.
enum class LineValue : std::uint8_t {
  none = kColumnKinds,  // text only: a run of CSV commas longer than one step's text
  // The method, gputime and cputime: every line has the three, one after the other, so
  // one step writes them (and the text between them).
  method_and_times,
  grid2,   // gridsize=[ 2, 1 ]
  grid3,   // gridsize3d=[ 2, 1, 1 ]
  block3,  // threadblocksize=[ 32, 8, 8 ]
};
constexpr LineValue value_of(Column column) { return static_cast<LineValue>(column); }

// The fixed text of a line ("gputime=[ ", ",,") in a block of fixed size: the writer
// copies the whole block (no call, no copy loop of the text's length) into room it has
// reserved, then keeps `size` bytes of it.
inline constexpr std::size_t kLineText = 32;
struct LineText {
  std::array<char, kLineText> bytes{};
  std::uint8_t size = 0;
};

// No column's name is longer: a key-value step's text, " ] " name "=[ ", fits one block.
inline constexpr std::size_t kMaxColumnName = kLineText - std::string_view(" ] =[ ").size();

// One step of a record's line: its text, then its value. In key-value lines the text is
// the pair's key, after the close of the pair before it (" ] gputime=[ "), in CSV lines
// the commas before the field.
struct LineStep {
  LineText text;
  LineValue value = LineValue::none;
  std::uint8_t counter = 0;  // legacy counter id, for LineValue::counter
};

// How a record of one kind is written in one format: the steps of the values it has, in
// line order (the grid's and the block's columns as one pair each in key-value lines),
// then the tail (" ] \n"; a CSV line's last commas and "\n"). Occupancy, counters and the
// host memory type are looked up per record: a key-value line leaves out a pair the
// record does not hold, never its first (the method comes before them), whose text has
// no " ] " to lose.
struct LinePlan {
  std::vector<LineStep> steps;
  LineText tail;
};

struct ColumnLayout {
  config::Api api = config::Api::cuda;
  std::vector<ColumnSpec> columns;
  // The lines of each RecordKind, key-value and CSV.
  std::array<LinePlan, records::kRecordKinds> kvp_lines;
  std::array<LinePlan, records::kRecordKinds> csv_lines;
  // Which kinds of column `columns` has.
  std::bitset<kColumnKinds> present;

  bool has(Column c) const { return present.test(static_cast<std::size_t>(c)); }
  bool has_gpu_timestamps() const { return has(Column::gpustarttimestamp) || has(Column::gpuendtimestamp); }
};

ColumnLayout select_columns(const config::ProfileConfig& config, config::Api api);

// Whether records of `kind` have the column at all (what a record holds decides
// occupancy, counters and the host memory type: LinePlan).
bool column_of_kind(Column column, records::RecordKind kind);

// The name of a column in the column line (OpenCL spellings for OpenCL logs).
std::string_view column_name(const ColumnSpec& spec, config::Api api);

// "method,gputime,cputime,occupancy"
std::string column_line(const ColumnLayout& layout);

}  // namespace computeprof::logfmt
