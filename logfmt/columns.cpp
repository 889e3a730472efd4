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
LinePlan kvp_line(const ColumnLayout& layout, records::RecordKind kind) {
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
LinePlan csv_line(const ColumnLayout& layout, records::RecordKind kind) {
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

// The record kinds of config/options.def.
constexpr bool kinds_every(records::RecordKind) { return true; }
constexpr bool kinds_kernel(records::RecordKind kind) { return kind == records::RecordKind::kernel; }
constexpr bool kinds_transfer(records::RecordKind kind) { return kind == records::RecordKind::memcpy || kind == records::RecordKind::memset; }
constexpr bool kinds_copy(records::RecordKind kind) { return kind == records::RecordKind::memcpy; }

// The columns a config asks for, added in the table's order: a column of an option when
// the config has it, another by its rule ("shown when").
class ColumnSelection {
 public:
  ColumnSelection(const config::ProfileConfig& config, Api api, ColumnLayout& layout)
      : config_(config), api_(api), layout_(layout) {}

  void with_option(Column c, Option o) {
    if (config_.has(o)) add(c);
  }
  void always(Column c) { add(c); }
  void gridsize(Column c) {
    if (config_.has(Option::gridsize) || config_.has(Option::gridsize3d)) add(c);
  }
  void gridsize3d(Column c) {
    if (config_.has(Option::gridsize3d)) add(c);
  }
  void threadblocksize(Column c) {
    if (config_.has(Option::threadblocksize)) add(c);
  }
  void opencl_localblocksize(Column c) {
    if (api_ == Api::opencl && config_.has(Option::localblocksize)) add(c);
  }
  void each_counter(Column c) {
    for (std::size_t id = 0; id < config::kLegacyCounterCount; ++id) {
      if (config_.counters.test(id)) add(c, static_cast<std::uint8_t>(id));
    }
  }
  void callstack(Column c) {
    if (config_.callstack_depth != 0) add(c);
  }

 private:
  void add(Column c, std::uint8_t counter = 0) {
    layout_.columns.push_back({c, counter});
    layout_.present.set(static_cast<std::size_t>(c));
  }

  const config::ProfileConfig& config_;
  Api api_;
  ColumnLayout& layout_;
};

struct ColumnNames {
  std::string_view cuda;
  std::string_view opencl;
};

constexpr ColumnNames kColumnNames[] = {
#define OPTION_COLUMN(option, opencl, ...) {#option, #opencl},
#define COLUMN(column, cuda, opencl, ...) {cuda, opencl},
#include "config/options.def"
};

}  // namespace

bool column_of_kind(Column column, records::RecordKind kind) {
  switch (column) {
#define OPTION_COLUMN(option, opencl, kinds, ...) \
  case Column::option: return kinds_##kinds(kind);
#define COLUMN(column, cuda, opencl, when, kinds, ...) \
  case Column::column: return kinds_##kinds(kind);
#include "config/options.def"
  }
  return false;
}

ColumnLayout select_columns(const config::ProfileConfig& cfg, Api api) {
  ColumnLayout layout;
  layout.api = api;
  ColumnSelection selection(cfg, api, layout);
#define OPTION_COLUMN(name, ...) selection.with_option(Column::name, Option::name);
#define COLUMN(column, cuda, opencl, when, ...) selection.when(Column::column);
#include "config/options.def"
  for (std::size_t kind = 0; kind < records::kRecordKinds; ++kind) {
    layout.kvp_lines[kind] = kvp_line(layout, static_cast<records::RecordKind>(kind));
    layout.csv_lines[kind] = csv_line(layout, static_cast<records::RecordKind>(kind));
  }
  return layout;
}

std::string_view column_name(const ColumnSpec& spec, Api api) {
  if (spec.column == Column::counter) return config::legacy_counters()[spec.counter].name;
  const ColumnNames& names = kColumnNames[static_cast<std::size_t>(spec.column)];
  return api == Api::opencl ? names.opencl : names.cuda;
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
