#include "reports/nvprof_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>

#include "reports/summary_table.hpp"
#include "records/kernel_names.hpp"

namespace computeprof::reports {
namespace {

constexpr NvprofTimeUnit kUnitsByScale[] = {NvprofTimeUnit::ns, NvprofTimeUnit::us, NvprofTimeUnit::ms,
                                            NvprofTimeUnit::s};

double unit_scale(NvprofTimeUnit u) {
  switch (u) {
    case NvprofTimeUnit::s: return 1e9;
    case NvprofTimeUnit::ms: return 1e6;
    case NvprofTimeUnit::us: return 1e3;
    default: return 1.0;
  }
}

std::string_view unit_name(NvprofTimeUnit u) {
  switch (u) {
    case NvprofTimeUnit::s: return "s";
    case NvprofTimeUnit::ms: return "ms";
    case NvprofTimeUnit::us: return "us";
    default: return "ns";
  }
}

// The unit that suits `ns`: the largest in which it is at least 1.
NvprofTimeUnit suited_unit(std::uint64_t ns) {
  std::size_t i = 0;
  for (double scale = 1e3; i + 1 < std::size(kUnitsByScale) && static_cast<double>(ns) >= scale; scale *= 1e3) ++i;
  return kUnitsByScale[i];
}

// The five significant digits nvprof's tables give a value in a unit.
std::string significant(double v) {
  const int integer_digits = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : 5;
  return fmt::format("{:.{}f}", v, std::max(0, 5 - integer_digits));
}

// One column of times, written as the style asks.
class TimeColumn {
 public:
  TimeColumn(const NvprofReportStyle& style, const std::vector<std::uint64_t>& values) : csv_(style.csv) {
    unit_ = style.unit;
    // A CSV has one unit per column: its units row says which.
    if (unit_ == NvprofTimeUnit::column || (csv_ && unit_ == NvprofTimeUnit::automatic)) {
      std::uint64_t longest = 0;
      for (std::uint64_t v : values) longest = std::max(longest, v);
      unit_ = suited_unit(longest);
    }
  }
  std::string_view unit() const { return unit_name(unit_); }
  std::string text(std::uint64_t ns) const {
    if (unit_ == NvprofTimeUnit::automatic) return format_summary_duration(ns);
    const double v = static_cast<double>(ns) / unit_scale(unit_);
    if (csv_) return unit_ == NvprofTimeUnit::ns ? fmt::format("{}", ns) : fmt::format("{:.6f}", v);
    return unit_ == NvprofTimeUnit::ns ? fmt::format("{}ns", ns) : significant(v) + std::string(unit());
  }

 private:
  bool csv_;
  NvprofTimeUnit unit_;
};

// A trace's rows put in time order, their starts after the origin, and the time
// columns' units chosen from them.
struct TraceTimes {
  std::vector<std::uint64_t> starts;
  TimeColumn start_column;
  TimeColumn duration_column;
};

template <typename Row>
TraceTimes in_time_order(std::vector<Row>& rows, std::uint64_t origin_ns, const NvprofReportStyle& style) {
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.start_ns < b.start_ns; });
  std::vector<std::uint64_t> starts, durations;
  for (const Row& r : rows) {
    starts.push_back(r.start_ns - std::min(r.start_ns, origin_ns));
    durations.push_back(r.duration_ns);
  }
  TimeColumn start_column(style, starts), duration_column(style, durations);
  return {std::move(starts), start_column, duration_column};
}

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string_view memory_kind_name(int kind) {
  switch (kind) {
    case 1: return "Pageable";
    case 2: return "Pinned";
    case 3: return "Device";
    case 4: return "Array";
    case 5: return "Managed";
    default: return "-";
  }
}

// Sizes and throughputs, powers of 1000, five significant digits.
std::string scaled(double value, std::string_view suffix) {
  static constexpr std::string_view kPrefixes[] = {"", "K", "M", "G", "T"};
  std::size_t p = 0;
  while (p + 1 < std::size(kPrefixes) && value >= 1000.0) {
    value /= 1000.0;
    ++p;
  }
  if (p == 0 && value == static_cast<double>(static_cast<std::uint64_t>(value))) {
    return fmt::format("{}{}", static_cast<std::uint64_t>(value), suffix);
  }
  return significant(value) + std::string(kPrefixes[p]) + std::string(suffix);
}

std::string device_label(const NvprofGpuRow& row) { return fmt::format("{} ({})", row.device, row.device_id); }

std::string result_line(std::string_view prefix) { return fmt::format("{}Profiling result:\n", prefix); }

struct Totals {
  std::uint64_t calls = 0, total = 0, min = 0, max = 0;
  void add(std::uint64_t ns) {
    min = calls == 0 ? ns : std::min(min, ns);
    max = std::max(max, ns);
    total += ns;
    ++calls;
  }
};

// name, totals: longest total first, then by name.
std::vector<std::pair<std::string, Totals>> by_total(const std::map<std::string, Totals>& rows) {
  std::vector<std::pair<std::string, Totals>> out(rows.begin(), rows.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  return out;
}

}  // namespace

std::string nvprof_activity_name(const NvprofGpuRow& row) {
  switch (row.activity) {
    case NvprofActivity::kernel: return records::demangled_name(row.name);
    case NvprofActivity::memset: return "[CUDA memset]";
    case NvprofActivity::memcpy: {
      static constexpr std::string_view kKinds[] = {"", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                                    "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
      const auto k = static_cast<std::size_t>(row.copy_kind);
      return fmt::format("[CUDA memcpy {}]", k < std::size(kKinds) && k > 0 ? kKinds[k] : "Unknown");
    }
  }
  return row.name;
}

std::string format_nvprof_bytes(std::uint64_t bytes) { return scaled(static_cast<double>(bytes), "B"); }

std::string format_nvprof_summary(const std::vector<NvprofGpuRow>& gpu, const std::vector<NvprofApiRow>& api,
                                  bool with_gpu, bool with_api, const NvprofReportStyle& style,
                                  std::string_view prefix) {
  struct Section {
    std::string_view type;
    std::vector<std::pair<std::string, Totals>> rows;
    std::uint64_t all = 0;
  };
  std::vector<Section> sections;
  if (with_gpu) {
    std::map<std::string, Totals> rows;
    for (const NvprofGpuRow& r : gpu) rows[nvprof_activity_name(r)].add(r.duration_ns);
    sections.push_back({"GPU activities", by_total(rows)});
  }
  if (with_api) {
    std::map<std::string, Totals> rows;
    for (const NvprofApiRow& r : api) rows[r.name].add(r.duration_ns);
    sections.push_back({"API calls", by_total(rows)});
  }
  std::string out = result_line(prefix);
  auto it = std::back_inserter(out);
  std::vector<std::uint64_t> times;
  for (Section& s : sections) {
    for (const auto& [name, t] : s.rows) {
      s.all += t.total;
      times.insert(times.end(), {t.total, t.min, t.max});
    }
  }
  if (std::all_of(sections.begin(), sections.end(), [](const Section& s) { return s.rows.empty(); })) {
    fmt::format_to(it, "{}No kernels were profiled.\n", prefix);
    return out;
  }
  const TimeColumn column(style, times);
  if (style.csv) {
    out += "\"Type\",\"Time(%)\",\"Time\",\"Calls\",\"Avg\",\"Min\",\"Max\",\"Name\"\n";
    fmt::format_to(it, ",%,{0},,{0},{0},{0},\n", column.unit());
  } else {
    fmt::format_to(it, "{:>16}  {:>7}  {:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {}\n", "Type", "Time(%)", "Time", "Calls",
                   "Avg", "Min", "Max", "Name");
  }
  for (const Section& s : sections) {
    bool first = true;
    for (const auto& [name, t] : s.rows) {
      const double percent = s.all == 0 ? 0.0 : 100.0 * static_cast<double>(t.total) / static_cast<double>(s.all);
      if (style.csv) {
        fmt::format_to(it, "{},{:.6f},{},{},{},{},{},{}\n", quoted(s.type), percent, column.text(t.total), t.calls,
                       column.text(t.total / t.calls), column.text(t.min), column.text(t.max), quoted(name));
      } else {
        fmt::format_to(it, "{:>16}  {:>7}  {:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {}\n",
                       first ? fmt::format("{}:", s.type) : std::string(), fmt::format("{:.2f}%", percent),
                       column.text(t.total), t.calls, column.text(t.total / t.calls), column.text(t.min),
                       column.text(t.max), name);
      }
      first = false;
    }
  }
  return out;
}

std::string format_nvprof_gpu_trace(std::vector<NvprofGpuRow> rows, std::uint64_t origin_ns,
                                    const NvprofReportStyle& style, std::string_view prefix) {
  const TraceTimes times = in_time_order(rows, origin_ns, style);
  const std::vector<std::uint64_t>& starts = times.starts;
  const TimeColumn& start_column = times.start_column;
  const TimeColumn& duration_column = times.duration_column;
  std::string out = result_line(prefix);
  auto it = std::back_inserter(out);
  if (style.csv) {
    out +=
        "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\",\"Block Z\","
        "\"Registers Per Thread\",\"Static SMem\",\"Dynamic SMem\",\"Size\",\"Throughput\",\"SrcMemType\","
        "\"DstMemType\",\"Device\",\"Context\",\"Stream\",\"Name\",\"Correlation_ID\"\n";
    fmt::format_to(it, "{},{},,,,,,,,B,B,B,GB/s,,,,,,,\n", start_column.unit(), duration_column.unit());
  } else {
    fmt::format_to(it, "{:>8}  {:>8}  {:>19}  {:>14}  {:>8}  {:>8}  {:>8}  {:>8}  {:>10}  {:>10}  {:>10}  {:>15}  {:>8}  "
                       "{:>8}  {}\n",
                   "Start", "Duration", "Grid Size", "Block Size", "Regs*", "SSMem*", "DSMem*", "Size", "Throughput",
                   "SrcMemType", "DstMemType", "Device", "Context", "Stream", "Name");
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const NvprofGpuRow& r = rows[i];
    const bool kernel = r.activity == NvprofActivity::kernel;
    const double seconds = static_cast<double>(r.duration_ns) / 1e9;
    const double throughput = !kernel && seconds > 0 ? static_cast<double>(r.bytes) / seconds : 0.0;
    const std::string name = nvprof_activity_name(r);
    const std::string src = r.activity == NvprofActivity::memcpy ? std::string(memory_kind_name(r.src_kind)) : "-";
    const std::string dst = kernel ? "-" : std::string(memory_kind_name(r.dst_kind));
    if (style.csv) {
      const auto kernel_value = [&](std::uint64_t v) { return kernel ? fmt::format("{}", v) : std::string(); };
      const auto empty_dash = [](const std::string& s) { return s == "-" ? std::string() : quoted(s); };
      fmt::format_to(it, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                     start_column.text(starts[i]), duration_column.text(r.duration_ns), kernel_value(r.grid[0]),
                     kernel_value(r.grid[1]), kernel_value(r.grid[2]), kernel_value(r.block[0]),
                     kernel_value(r.block[1]), kernel_value(r.block[2]), kernel_value(r.registers),
                     kernel_value(r.static_smem), kernel_value(r.dynamic_smem),
                     kernel ? std::string() : fmt::format("{}", r.bytes),
                     kernel ? std::string() : fmt::format("{:.6f}", throughput / 1e9), empty_dash(src),
                     empty_dash(dst), quoted(device_label(r)), r.context, r.stream, quoted(name), r.correlation);
      continue;
    }
    const std::string grid = kernel ? fmt::format("({} {} {})", r.grid[0], r.grid[1], r.grid[2]) : "-";
    const std::string block = kernel ? fmt::format("({} {} {})", r.block[0], r.block[1], r.block[2]) : "-";
    fmt::format_to(it, "{:>8}  {:>8}  {:>19}  {:>14}  {:>8}  {:>8}  {:>8}  {:>8}  {:>10}  {:>10}  {:>10}  {:>15}  {:>8}  "
                       "{:>8}  {}\n",
                   start_column.text(starts[i]), duration_column.text(r.duration_ns), grid, block,
                   kernel ? fmt::format("{}", r.registers) : "-", kernel ? format_nvprof_bytes(r.static_smem) : "-",
                   kernel ? format_nvprof_bytes(r.dynamic_smem) : "-", kernel ? "-" : format_nvprof_bytes(r.bytes),
                   kernel ? "-" : scaled(throughput, "B/s"), src, dst, device_label(r).substr(0, 15), r.context,
                   r.stream, kernel ? fmt::format("{} [{}]", name, r.correlation) : name);
  }
  if (!style.csv) {
    out +=
        "\nRegs: Number of registers used per CUDA thread. This number includes registers used internally by the CUDA "
        "driver and/or tools and can be more than what the compiler shows.\n"
        "SSMem: Static shared memory allocated per CUDA block.\n"
        "DSMem: Dynamic shared memory allocated per CUDA block.\n"
        "SrcMemType: The type of source memory accessed by memory operation/copy\n"
        "DstMemType: The type of destination memory accessed by memory operation/copy\n";
  }
  return out;
}

std::string format_nvprof_api_trace(std::vector<NvprofApiRow> rows, const std::vector<NvprofGpuRow>& gpu,
                                    std::uint64_t origin_ns, const NvprofReportStyle& style, std::string_view prefix) {
  std::map<std::uint64_t, std::string> kernels;  // correlation id: the kernel it launched
  for (const NvprofGpuRow& g : gpu) {
    if (g.activity == NvprofActivity::kernel) kernels.emplace(g.correlation, nvprof_activity_name(g));
  }
  const TraceTimes times = in_time_order(rows, origin_ns, style);
  const std::vector<std::uint64_t>& starts = times.starts;
  const TimeColumn& start_column = times.start_column;
  const TimeColumn& duration_column = times.duration_column;
  std::string out = result_line(prefix);
  auto it = std::back_inserter(out);
  if (style.csv) {
    out += "\"Start\",\"Duration\",\"Name\",\"Correlation_ID\"\n";
    fmt::format_to(it, "{},{},,\n", start_column.unit(), duration_column.unit());
  } else {
    fmt::format_to(it, "{:>8}  {:>8}  {}\n", "Start", "Duration", "Name");
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const NvprofApiRow& r = rows[i];
    const auto kernel = kernels.find(r.correlation);
    const std::string name =
        kernel == kernels.end() ? r.name : fmt::format("{} ({} [{}])", r.name, kernel->second, r.correlation);
    if (style.csv) {
      fmt::format_to(it, "{},{},{},{}\n", start_column.text(starts[i]), duration_column.text(r.duration_ns),
                     quoted(name), r.correlation);
    } else {
      fmt::format_to(it, "{:>8}  {:>8}  {}\n", start_column.text(starts[i]), duration_column.text(r.duration_ns), name);
    }
  }
  return out;
}

}  // namespace computeprof::reports
