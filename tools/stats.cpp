#include "tools/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>

#include "config/report.hpp"
#include "reports/api_summary.hpp"
#include "reports/gpu_idle.hpp"
#include "reports/range_summary.hpp"
#include "reports/summary_table.hpp"
#include "tools/rank_names.hpp"
#include "tools/stats_reading.hpp"

namespace computeprof::tools {
namespace {

using reports::ReportCell;
using reports::ReportColumn;
using reports::ReportTable;

// The share of all GPU time from which a kernel's regression fails a comparison.
constexpr double kRegressionShareFloorPercent = 1.0;

ReportCell duration_cell(std::uint64_t ns) { return {reports::format_summary_duration(ns), std::to_string(ns)}; }
ReportCell count_cell(std::uint64_t n) { return {std::to_string(n), std::to_string(n)}; }
ReportCell text_cell(const std::string& text) { return {text, text}; }
ReportCell percent_cell(double percent) { return {fmt::format("{:.2f}%", percent), fmt::format("{:.2f}", percent)}; }
ReportCell optional_percent_cell(std::optional<double> percent) {
  return percent ? ReportCell{fmt::format("{:+.2f}%", *percent), fmt::format("{:.2f}", *percent)}
                 : ReportCell{"-", ""};
}

// Warns each file's warning in the order the files were given; true when there were none.
bool warn_in_order(const std::vector<std::string>& warnings) {
  bool all_read = true;
  for (const std::string& warning : warnings) {
    if (warning.empty()) continue;
    config::warn(warning);
    all_read = false;
  }
  return all_read;
}

bool write_all(const std::string& text, std::FILE* out) {
  if (std::fwrite(text.data(), 1, text.size(), out) == text.size() && std::fflush(out) == 0) return true;
  config::warn(fmt::format("cannot write the table: {}", std::strerror(errno)));
  return false;
}

// The tables in the format asked for; text tables one after the other.
std::string format_tables(const std::vector<ReportTable>& tables, reports::TableFormat format) {
  if (format == reports::TableFormat::csv) return reports::format_tables_csv(tables);
  if (format == reports::TableFormat::json) return reports::format_tables_json(tables);
  std::string text;
  for (const ReportTable& table : tables) text += reports::format_table_text(table);
  return text;
}

// Every file added into one summary, one table of calls, one range table and one idle
// table.
struct AddedFiles {
  reports::GpuSummary operations;
  reports::ApiSummary api_calls;
  reports::RangeSummary ranges;
  reports::GpuIdleSummary idle;
  std::vector<std::string> warnings;
};

AddedFiles add_files(const std::vector<std::string>& paths) {
  AddedFiles added;
  std::mutex lock;
  added.warnings = read_stats_inputs(paths, [&](std::size_t, StatsInput& input) {
    const std::scoped_lock held(lock);
    added.operations.merge(input.operations);
    added.api_calls.merge(input.api_calls);
    added.ranges.merge(input.ranges);
    added.idle.merge(input.idle);
  });
  return added;
}

ReportTable summary_table(const std::vector<reports::SummaryRow>& rows) {
  ReportTable table{"gpu_activities", "Profiling result", {}, {}};
  table.columns = {{"time_percent", "Time(%)"}, {"time_ns", "Time"},   {"calls", "Calls"},        {"avg_ns", "Avg"},
                   {"min_ns", "Min"},           {"max_ns", "Max"},     {"name", "Name", false}};
  std::uint64_t all_ns = 0;
  for (const reports::SummaryRow& row : rows) all_ns += row.total_ns;
  for (const reports::SummaryRow& row : rows) {
    const double percent = all_ns == 0 ? 0.0 : 100.0 * static_cast<double>(row.total_ns) / static_cast<double>(all_ns);
    table.rows.push_back({percent_cell(percent), duration_cell(row.total_ns), count_cell(row.calls),
                          duration_cell(row.total_ns / row.calls), duration_cell(row.min_ns),
                          duration_cell(row.max_ns), text_cell(row.name)});
  }
  return table;
}

// nvprof's "API calls" rows, with the failed calls beside them.
ReportTable api_calls_table(const std::vector<reports::ApiSummaryRow>& rows) {
  ReportTable table{"api_calls", "API calls", {}, {}};
  table.columns = {{"time_percent", "Time(%)"}, {"time_ns", "Time"}, {"calls", "Calls"},   {"avg_ns", "Avg"},
                   {"min_ns", "Min"},           {"max_ns", "Max"},   {"errors", "Errors"}, {"name", "Name", false}};
  std::uint64_t all_ns = 0;
  for (const reports::ApiSummaryRow& row : rows) all_ns += row.time.total_ns;
  for (const reports::ApiSummaryRow& row : rows) {
    const reports::SummaryRow& t = row.time;
    const double percent = all_ns == 0 ? 0.0 : 100.0 * static_cast<double>(t.total_ns) / static_cast<double>(all_ns);
    table.rows.push_back({percent_cell(percent), duration_cell(t.total_ns), count_cell(t.calls),
                          duration_cell(t.total_ns / t.calls), duration_cell(t.min_ns), duration_cell(t.max_ns),
                          count_cell(row.errors), text_cell(t.name)});
  }
  return table;
}

ReportTable range_table(const std::vector<reports::RangeSummaryRow>& rows) {
  ReportTable table{"nvtx_ranges", "NVTX ranges", {}, {}};
  table.columns = {{"instances", "Instances"}, {"time_ns", "Time"}, {"avg_ns", "Avg"},         {"min_ns", "Min"},
                   {"max_ns", "Max"},          {"gpu_time_ns", "GPU time"}, {"name", "Name", false}};
  for (const reports::RangeSummaryRow& r : rows) {
    const bool ended = r.instances > 0;
    const auto wall = [&](std::uint64_t ns) { return ended ? duration_cell(ns) : ReportCell{"-", ""}; };
    table.rows.push_back({count_cell(r.instances), wall(r.total_ns), wall(ended ? r.total_ns / r.instances : 0),
                          wall(r.min_ns), wall(r.max_ns), duration_cell(r.gpu_ns), text_cell(r.name)});
  }
  return table;
}

// One row per device and cause; a device never idle has one row without a cause.
ReportTable idle_table(const std::vector<reports::DeviceIdleRow>& rows) {
  ReportTable table{"gpu_idle", "GPU idle", {}, {}};
  table.columns = {{"device", "Device"},          {"span_ns", "Span"},         {"idle_ns", "Idle"},
                   {"idle_percent", "Idle(%)"},   {"gaps", "Gaps"},            {"cause", "Cause", false},
                   {"time_percent", "Time(%)"},   {"time_ns", "Time"},         {"cause_gaps", "Cause gaps"},
                   {"detail", "Detail", false}};
  const ReportCell none{"-", ""};
  for (const reports::DeviceIdleRow& d : rows) {
    const std::vector<ReportCell> device{count_cell(static_cast<std::uint64_t>(d.device)), duration_cell(d.span_ns),
                                         duration_cell(d.idle_ns),
                                         percent_cell(reports::idle_percent(d.idle_ns, d.span_ns)), count_cell(d.gaps)};
    if (d.causes.empty()) {
      std::vector<ReportCell> row = device;
      row.insert(row.end(), {none, none, none, none, none});
      table.rows.push_back(std::move(row));
    }
    for (const reports::IdleCauseRow& c : d.causes) {
      std::vector<ReportCell> row = device;
      row.insert(row.end(), {text_cell(std::string(reports::idle_cause_name(c.cause))),
                             percent_cell(reports::idle_percent(c.ns, d.idle_ns)), duration_cell(c.ns),
                             count_cell(c.gaps), text_cell(c.detail)});
      table.rows.push_back(std::move(row));
    }
  }
  return table;
}

int print_summary(const StatsOptions& options, std::FILE* out) {
  const AddedFiles added = add_files(options.files);
  if (!warn_in_order(added.warnings)) return 1;
  std::string text;
  if (options.format == reports::TableFormat::text) {
    // nvprof's own layout, as the shim prints it at exit: the calls in its table.
    std::vector<reports::SummarySection> api_section;
    if (!added.api_calls.empty()) api_section.push_back(reports::api_calls_section(added.api_calls.rows()));
    text = reports::format_summary(added.operations.rows(), "", api_section);
    if (!added.ranges.empty()) text += reports::format_range_summary(added.ranges.rows(), "");
    text += reports::format_gpu_idle(added.idle.rows(), "");
  } else {
    std::vector<ReportTable> tables{summary_table(added.operations.rows())};
    if (!added.api_calls.empty()) tables.push_back(api_calls_table(added.api_calls.rows()));
    if (!added.ranges.empty()) tables.push_back(range_table(added.ranges.rows()));
    if (!added.idle.empty()) tables.push_back(idle_table(added.idle.rows()));
    text = format_tables(tables, options.format);
  }
  return write_all(text, out) ? 0 : 1;
}

// --ranks: what is kept of each file, one value per row name (kernel, kind of copy, NVTX
// range) and file, the names held once.
struct RankTotals {
  std::uint64_t calls = 0;
  std::uint64_t ns = 0;  // GPU time
};
using TotalsByName = std::map<std::size_t, RankTotals>;  // by the name's number

struct RankInputs {
  std::mutex lock;
  std::map<std::string, std::size_t, std::less<>> operation_ids, range_ids;
  std::vector<TotalsByName> operations, ranges;  // per file
  std::vector<std::optional<std::uint64_t>> recorded_ranks;

  explicit RankInputs(std::size_t files) : operations(files), ranges(files), recorded_ranks(files) {}

  static std::size_t id(std::map<std::string, std::size_t, std::less<>>& ids, const std::string& name) {
    return ids.try_emplace(name, ids.size()).first->second;
  }

  void reduce(std::size_t file, StatsInput& input) {
    const std::vector<reports::SummaryRow> operation_rows = input.operations.rows();
    const std::vector<reports::RangeSummaryRow> range_rows = input.ranges.rows();
    const std::scoped_lock held(lock);
    for (const reports::SummaryRow& row : operation_rows) {
      operations[file][id(operation_ids, row.name)] = {row.calls, row.total_ns};
    }
    for (const reports::RangeSummaryRow& row : range_rows) {
      ranges[file][id(range_ids, row.name)] = {row.instances, row.gpu_ns};
    }
    recorded_ranks[file] = input.rank;
  }
};

// The middle value; of an even number of values the lower of the two middle ones, so
// that it is one of the values.
std::uint64_t low_median(std::vector<std::uint64_t> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// Population standard deviation over the mean; 0 when the mean is 0.
double coefficient_of_variation(const std::vector<std::uint64_t>& values) {
  long double sum = 0;
  long double squares = 0;
  for (const std::uint64_t v : values) {
    sum += static_cast<long double>(v);
    squares += static_cast<long double>(v) * static_cast<long double>(v);
  }
  const long double n = static_cast<long double>(values.size());
  const long double mean = sum / n;
  if (mean == 0) return 0.0;
  const long double variance = std::max<long double>(0, squares / n - mean * mean);
  return static_cast<double>(std::sqrt(variance) / mean);
}

// One row name's values over the ranks (0 where a rank has none).
struct AcrossRanks {
  std::string name;
  std::vector<std::uint64_t> calls, ns;
  std::uint64_t all_ns = 0;
};

std::vector<AcrossRanks> across_ranks(const std::map<std::string, std::size_t, std::less<>>& ids,
                                      const std::vector<TotalsByName>& by_rank) {
  std::vector<AcrossRanks> rows(ids.size());
  for (const auto& [name, id] : ids) {
    rows[id].name = name;
    rows[id].calls.assign(by_rank.size(), 0);
    rows[id].ns.assign(by_rank.size(), 0);
  }
  for (std::size_t rank = 0; rank < by_rank.size(); ++rank) {
    for (const auto& [id, totals] : by_rank[rank]) {
      rows[id].calls[rank] = totals.calls;
      rows[id].ns[rank] = totals.ns;
      rows[id].all_ns += totals.ns;
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const AcrossRanks& a, const AcrossRanks& b) {
    return a.all_ns != b.all_ns ? a.all_ns > b.all_ns : a.name < b.name;
  });
  return rows;
}

ReportTable by_rank_table(std::string key, std::string title, std::string_view count_title,
                          const std::vector<AcrossRanks>& rows, const std::vector<RankName>& ranks) {
  const std::string count(count_title);
  ReportTable table{std::move(key), std::move(title), {}, {}};
  table.columns = {{"calls_min", count + " min"},  {"calls_median", count + " median"}, {"calls_max", count + " max"},
                   {"time_min_ns", "Time min"},    {"time_median_ns", "Time median"},  {"time_max_ns", "Time max"},
                   {"time_cv", "CV"},              {"slowest_rank", "Slowest", false}, {"name", "Name", false}};
  for (const AcrossRanks& row : rows) {
    const auto slowest = std::max_element(row.ns.begin(), row.ns.end());
    const double cv = coefficient_of_variation(row.ns);
    table.rows.push_back({count_cell(*std::min_element(row.calls.begin(), row.calls.end())),
                          count_cell(low_median(row.calls)),
                          count_cell(*std::max_element(row.calls.begin(), row.calls.end())),
                          duration_cell(*std::min_element(row.ns.begin(), row.ns.end())),
                          duration_cell(low_median(row.ns)), duration_cell(*slowest),
                          {fmt::format("{:.2f}%", 100 * cv), fmt::format("{:.6f}", cv)},
                          text_cell(ranks[static_cast<std::size_t>(slowest - row.ns.begin())].text()),
                          text_cell(row.name)});
  }
  return table;
}

int print_ranks(const StatsOptions& options, std::FILE* out) {
  RankInputs inputs(options.files.size());
  const std::vector<std::string> warnings =
      read_stats_inputs(options.files, [&](std::size_t file, StatsInput& input) { inputs.reduce(file, input); });
  const bool all_read = warn_in_order(warnings);

  // The files of one rank (its logs of several devices, a log and a database) add up.
  const std::vector<RankName> names = name_ranks(options.files, inputs.recorded_ranks);
  std::map<RankName, std::size_t> rank_of_name;
  std::vector<std::size_t> files_of_rank;
  for (std::size_t file = 0; file < names.size(); ++file) {
    if (warnings[file].empty()) rank_of_name.try_emplace(names[file], 0);
  }
  std::vector<RankName> ranks;
  for (auto& [name, index] : rank_of_name) {
    index = ranks.size();
    ranks.push_back(name);
  }
  std::vector<TotalsByName> operations(ranks.size()), range_totals(ranks.size());
  files_of_rank.assign(ranks.size(), 0);
  for (std::size_t file = 0; file < names.size(); ++file) {
    if (!warnings[file].empty()) continue;
    const std::size_t rank = rank_of_name.at(names[file]);
    ++files_of_rank[rank];
    for (const auto& [id, t] : inputs.operations[file]) {
      operations[rank][id].calls += t.calls;
      operations[rank][id].ns += t.ns;
    }
    for (const auto& [id, t] : inputs.ranges[file]) {
      range_totals[rank][id].calls += t.calls;
      range_totals[rank][id].ns += t.ns;
    }
  }

  std::vector<ReportTable> tables;
  const std::vector<AcrossRanks> kernel_rows = across_ranks(inputs.operation_ids, operations);
  std::vector<std::uint64_t> rank_ns(ranks.size(), 0);
  for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
    for (const auto& [id, t] : operations[rank]) rank_ns[rank] += t.ns;
  }
  const std::uint64_t median_ns = ranks.empty() ? 0 : low_median(rank_ns);
  const auto over_median = [&](std::uint64_t ns) -> std::optional<double> {
    if (median_ns == 0) return std::nullopt;
    return 100.0 * (static_cast<double>(ns) - static_cast<double>(median_ns)) / static_cast<double>(median_ns);
  };

  ReportTable rank_table{"ranks", fmt::format("Ranks ({})", ranks.size()), {}, {}};
  rank_table.columns = {{"rank", "Rank", false}, {"files", "Files"}, {"time_ns", "GPU time"},
                        {"over_median_percent", "vs median"}};
  for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
    rank_table.rows.push_back({text_cell(ranks[rank].text()), count_cell(files_of_rank[rank]),
                               duration_cell(rank_ns[rank]), optional_percent_cell(over_median(rank_ns[rank]))});
  }
  tables.push_back(std::move(rank_table));
  if (!ranks.empty()) {
    tables.push_back(by_rank_table("gpu_activities_by_rank", "GPU activities by rank", "Calls", kernel_rows, ranks));
    if (!inputs.range_ids.empty()) {
      tables.push_back(by_rank_table("nvtx_ranges_by_rank", "NVTX ranges by rank (GPU time)", "Instances",
                                     across_ranks(inputs.range_ids, range_totals), ranks));
    }
  }

  // A straggler: more GPU time than the median rank's by more than --straggler; what
  // makes the difference: each kernel on which it spent more than that kernel's median.
  ReportTable stragglers{"stragglers",
                         fmt::format("Stragglers (GPU time more than {}% above the median rank's {})",
                                     options.straggler_percent, reports::format_summary_duration(median_ns)),
                         {},
                         {}};
  stragglers.columns = {{"rank", "Rank", false},
                        {"rank_time_ns", "GPU time"},
                        {"over_median_percent", "vs median"},
                        {"time_ns", "Kernel time"},
                        {"median_ns", "Kernel median"},
                        {"difference_ns", "Difference"},
                        {"name", "Name", false}};
  for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
    const long double limit = static_cast<long double>(median_ns) * (1.0L + options.straggler_percent / 100.0L);
    if (static_cast<long double>(rank_ns[rank]) <= limit) continue;
    std::vector<std::pair<std::uint64_t, const AcrossRanks*>> differences;
    for (const AcrossRanks& row : kernel_rows) {
      const std::uint64_t median = low_median(row.ns);
      if (row.ns[rank] > median) differences.emplace_back(row.ns[rank] - median, &row);
    }
    std::stable_sort(differences.begin(), differences.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [difference, row] : differences) {
      stragglers.rows.push_back({text_cell(ranks[rank].text()), duration_cell(rank_ns[rank]),
                                 optional_percent_cell(over_median(rank_ns[rank])), duration_cell(row->ns[rank]),
                                 duration_cell(low_median(row->ns)), duration_cell(difference),
                                 text_cell(row->name)});
    }
  }
  tables.push_back(std::move(stragglers));
  if (!write_all(format_tables(tables, options.format), out)) return 1;
  return all_read ? 0 : 1;
}

int print_comparison(const StatsOptions& options, std::FILE* out) {
  const AddedFiles base = add_files(options.files);
  const AddedFiles next = add_files(options.new_files);
  const bool all_read = warn_in_order(base.warnings) & warn_in_order(next.warnings);

  struct Sides {
    std::optional<reports::SummaryRow> base, next;
  };
  std::map<std::string, Sides> by_name;
  std::uint64_t base_all_ns = 0;
  std::uint64_t next_all_ns = 0;
  for (reports::SummaryRow& row : base.operations.rows()) {
    base_all_ns += row.total_ns;
    by_name[row.name].base = std::move(row);
  }
  for (reports::SummaryRow& row : next.operations.rows()) {
    next_all_ns += row.total_ns;
    by_name[row.name].next = std::move(row);
  }
  const auto share = [](const std::optional<reports::SummaryRow>& row, std::uint64_t all_ns) {
    return row && all_ns > 0 ? 100.0 * static_cast<double>(row->total_ns) / static_cast<double>(all_ns) : 0.0;
  };
  const auto change = [](double before, double after) -> std::optional<double> {
    if (before == 0) return std::nullopt;
    return 100.0 * (after - before) / before;
  };

  struct Line {
    std::string name;
    Sides sides;
    double share = 0;
    std::optional<double> total_change, average_change;
    std::string verdict;
  };
  std::vector<Line> lines;
  bool regressed = false;
  for (auto& [name, sides] : by_name) {
    Line line{name, sides, std::max(share(sides.base, base_all_ns), share(sides.next, next_all_ns)), {}, {}, {}};
    if (sides.base && sides.next) {
      const auto average = [](const reports::SummaryRow& r) {
        return static_cast<double>(r.total_ns) / static_cast<double>(r.calls);
      };
      line.total_change = change(static_cast<double>(sides.base->total_ns), static_cast<double>(sides.next->total_ns));
      line.average_change = change(average(*sides.base), average(*sides.next));
      if (line.share >= kRegressionShareFloorPercent && line.average_change &&
          *line.average_change > options.max_regress_percent) {
        line.verdict = "regressed";
        regressed = true;
      }
    } else {
      line.verdict = sides.base ? "gone" : "new";
    }
    lines.push_back(std::move(line));
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.share > b.share; });

  ReportTable table{"comparison",
                    fmt::format("Comparison (NEW against BASE; regressed: an average more than {}% longer, "
                                "of a row with at least {}% of the GPU time)",
                                options.max_regress_percent, kRegressionShareFloorPercent),
                    {},
                    {}};
  table.columns = {{"share_percent", "Time(%)"},   {"base_calls", "Calls"},       {"new_calls", "New calls"},
                   {"base_total_ns", "Time"},      {"new_total_ns", "New time"},  {"total_change_percent", "Change"},
                   {"base_avg_ns", "Avg"},         {"new_avg_ns", "New avg"},     {"avg_change_percent", "Avg change"},
                   {"verdict", "Verdict", false},  {"name", "Name", false}};
  for (const Line& line : lines) {
    const auto calls = [](const std::optional<reports::SummaryRow>& r) {
      return r ? count_cell(r->calls) : ReportCell{"-", ""};
    };
    const auto total = [](const std::optional<reports::SummaryRow>& r) {
      return r ? duration_cell(r->total_ns) : ReportCell{"-", ""};
    };
    const auto average = [](const std::optional<reports::SummaryRow>& r) {
      return r ? duration_cell(r->total_ns / r->calls) : ReportCell{"-", ""};
    };
    table.rows.push_back({percent_cell(line.share), calls(line.sides.base), calls(line.sides.next),
                          total(line.sides.base), total(line.sides.next), optional_percent_cell(line.total_change),
                          average(line.sides.base), average(line.sides.next),
                          optional_percent_cell(line.average_change), text_cell(line.verdict), text_cell(line.name)});
  }
  if (!write_all(format_tables({table}, options.format), out)) return 1;
  if (!all_read) return 2;
  return regressed ? 1 : 0;
}

}  // namespace

int print_stats(const StatsOptions& options, std::FILE* out) {
  switch (options.mode) {
    case StatsOptions::Mode::ranks: return print_ranks(options, out);
    case StatsOptions::Mode::compare: return print_comparison(options, out);
    case StatsOptions::Mode::summary: break;
  }
  return print_summary(options, out);
}

}  // namespace computeprof::tools
