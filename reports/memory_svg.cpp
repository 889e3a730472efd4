#include "reports/memory_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <iterator>
#include <vector>

namespace computeprof::reports {
namespace {

constexpr double kWidth = 960;
constexpr double kChartHeight = 420;
constexpr double kLeft = 90, kRight = 170, kTop = 50, kBottom = 60;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kChartHeight - kTop - kBottom;

// One colour per kind, in MemoryKind's order; the total is black.
constexpr const char* kKindColours[records::kMemoryKindCount] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                                         "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};

// A round step for about five ticks: 1, 2 or 5 times a power of ten.
double tick_step(double range) {
  if (range <= 0) return 1;
  const double rough = range / 5;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= rough) return m * power;
  }
  return 10 * power;
}

// Ticks' labels: no more decimals than the step needs.
std::string tick_label(double value, double step) {
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step)));
  return fmt::format("{:.{}f}", value, decimals);
}

struct Scale {
  std::uint64_t t0 = 0;
  double ms = 1;      // x range, ms
  double top = 1;     // y range, MiB
  double y0 = 0;      // the chart's offset in the picture
  double x(std::uint64_t wall_ns) const {
    const double t = static_cast<double>(wall_ns >= t0 ? wall_ns - t0 : 0) / 1e6;
    return kLeft + kPlotWidth * std::min(t / ms, 1.0);
  }
  double y(std::uint64_t bytes) const {
    return y0 + kTop + kPlotHeight * (1 - static_cast<double>(bytes) / (1 << 20) / top);
  }
};

// Coordinates with two decimals, from integers (the picture may have many points).
void append_coordinate(std::string& out, double v) {
  const auto hundredths = static_cast<std::int64_t>(std::llround(v * 100));
  const std::int64_t whole = hundredths / 100;
  const auto fraction = static_cast<int>(std::abs(hundredths % 100));
  char digits[32];
  char* end = std::to_chars(digits, digits + sizeof digits, whole).ptr;
  if (hundredths < 0 && whole == 0) out.push_back('-');
  out.append(digits, end);
  out.push_back('.');
  out.push_back(static_cast<char>('0' + fraction / 10));
  out.push_back(static_cast<char>('0' + fraction % 10));
}

// Steps beyond which data-steps is left out (the path still draws them all).
constexpr std::size_t kMaxListedSteps = 4096;

// A step line: flat at each value until the next step, from 0 before the first, to
// the end of the trace after the last. Steps that fall in one pixel column are drawn as
// that column's lowest, highest and last values, so the path stays a few thousand points
// whatever the number of events (and a peak stays visible). Up to kMaxListedSteps steps
// also go in data-steps ("ns-since-first:bytes ..."), for tools to read back exactly.
void append_series(std::string& out, const std::vector<records::UsageStep>& steps, const Scale& s, std::uint64_t end_ns,
                   const char* colour, double width, std::string_view name) {
  fmt::format_to(std::back_inserter(out), "<path fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" data-series=\"{}\"",
                 colour, width, name);
  if (steps.size() <= kMaxListedSteps) {
    out.append(" data-steps=\"");
    for (std::size_t i = 0; i < steps.size(); ++i) {
      fmt::format_to(std::back_inserter(out), "{}{}:{}", i ? " " : "", steps[i].wall_ns - s.t0, steps[i].bytes);
    }
    out.push_back('"');
  }
  out.append(" d=\"M");
  append_coordinate(out, s.x(steps.front().wall_ns));
  out.push_back(',');
  append_coordinate(out, s.y(0));
  const auto vertical = [&](double y) {
    out.append(" V");
    append_coordinate(out, y);
  };
  const auto horizontal = [&](double x) {
    out.append(" H");
    append_coordinate(out, x);
  };
  for (std::size_t i = 0; i < steps.size();) {
    // The steps in this pixel column.
    const double column = std::floor(s.x(steps[i].wall_ns));
    double low = s.y(steps[i].bytes), high = low, last = low;
    std::size_t j = i + 1;
    for (; j < steps.size() && std::floor(s.x(steps[j].wall_ns)) == column; ++j) {
      last = s.y(steps[j].bytes);
      low = std::max(low, last);  // y grows downwards: the lowest value has the largest y
      high = std::min(high, last);
    }
    if (j - i == 1) {
      vertical(last);
    } else {
      vertical(low);
      vertical(high);
      vertical(last);
    }
    horizontal(s.x(j < steps.size() ? steps[j].wall_ns : end_ns));
    i = j;
  }
  fmt::format_to(std::back_inserter(out), "\"><title>{}</title></path>\n", name);
}

void append_axes(std::string& out, const Scale& s, std::uint32_t device) {
  const double bottom = s.y0 + kTop + kPlotHeight;
  fmt::format_to(std::back_inserter(out),
                 "<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"16\" text-anchor=\"middle\">GPU memory in use, device {}</text>\n",
                 kLeft + kPlotWidth / 2, s.y0 + 28, device);
  fmt::format_to(std::back_inserter(out),
                 "<path d=\"M{0},{1} V{2} H{3}\" fill=\"none\" stroke=\"#000\" stroke-width=\"1\"/>\n", kLeft,
                 s.y0 + kTop, bottom, kLeft + kPlotWidth);
  const double x_step = tick_step(s.ms);
  for (double t = 0; t <= s.ms + x_step * 1e-9; t += x_step) {
    const double x = kLeft + kPlotWidth * t / s.ms;
    fmt::format_to(std::back_inserter(out),
                   "<path d=\"M{0:.2f},{1:.2f} v5\" stroke=\"#000\"/><text x=\"{0:.2f}\" y=\"{2:.2f}\" font-size=\"11\" "
                   "text-anchor=\"middle\">{3}</text>\n",
                   x, bottom, bottom + 18, tick_label(t, x_step));
  }
  const double y_step = tick_step(s.top);
  for (double m = 0; m <= s.top + y_step * 1e-9; m += y_step) {
    const double y = s.y0 + kTop + kPlotHeight * (1 - m / s.top);
    fmt::format_to(std::back_inserter(out),
                   "<path d=\"M{0:.2f},{1:.2f} h-5\" stroke=\"#000\"/><path d=\"M{0:.2f},{1:.2f} h{4:.2f}\" stroke=\"#ddd\"/>"
                   "<text x=\"{2:.2f}\" y=\"{3:.2f}\" font-size=\"11\" text-anchor=\"end\">{5}</text>\n",
                   kLeft, y, kLeft - 8, y + 4, kPlotWidth, tick_label(m, y_step));
  }
  fmt::format_to(std::back_inserter(out),
                 "<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"13\" text-anchor=\"middle\">time since the first "
                 "allocation (ms)</text>\n",
                 kLeft + kPlotWidth / 2, bottom + 42);
  fmt::format_to(std::back_inserter(out),
                 "<text x=\"22\" y=\"{0:.0f}\" font-size=\"13\" text-anchor=\"middle\" transform=\"rotate(-90 22 {0:.0f})\">"
                 "in use (MiB)</text>\n",
                 s.y0 + kTop + kPlotHeight / 2);
}

void append_legend(std::string& out, const Scale& s, int row, const char* colour, std::string_view name) {
  const double x = kLeft + kPlotWidth + 20;
  const double y = s.y0 + kTop + 10 + 20 * row;
  fmt::format_to(std::back_inserter(out),
                 "<path d=\"M{0:.0f},{1:.0f} h24\" stroke=\"{2}\" stroke-width=\"3\"/><text x=\"{3:.0f}\" y=\"{4:.0f}\" "
                 "font-size=\"12\">{5}</text>\n",
                 x, y, colour, x + 30, y + 4, name);
}

}  // namespace

std::string memory_svg(const records::MemoryLedger& ledger) {
  const std::size_t charts = std::max<std::size_t>(ledger.devices().size(), 1);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
      "font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n",
      kWidth, kChartHeight * static_cast<double>(charts));
  int chart = 0;
  for (const auto& [device, use] : ledger.devices()) {
    Scale s;
    s.t0 = ledger.first_ns();
    s.ms = std::max(static_cast<double>(ledger.last_ns() - ledger.first_ns()) / 1e6, 1e-3);
    std::uint64_t highest = use.peak;
    for (std::size_t k = 0; k < records::kMemoryKindCount; ++k) highest = std::max(highest, use.peak_by_kind[k]);
    s.top = std::max(static_cast<double>(highest) / (1 << 20) * 1.05, 1e-3);
    s.top = std::ceil(s.top / tick_step(s.top)) * tick_step(s.top);
    s.y0 = kChartHeight * chart++;
    append_axes(out, s, device);
    int row = 0;
    if (const auto* total = ledger.total_steps(device)) {
      append_series(out, *total, s, ledger.last_ns(), "#000", 2.5, "device total");
      append_legend(out, s, row++, "#000", "device total");
    }
    for (std::size_t k = 0; k < records::kMemoryKindCount; ++k) {
      const auto kind = static_cast<records::MemoryKind>(k);
      if (const auto* steps = ledger.steps(device, kind)) {
        append_series(out, *steps, s, ledger.last_ns(), kKindColours[k], 1.5, records::memory_kind_name(kind));
        append_legend(out, s, row++, kKindColours[k], records::memory_kind_name(kind));
      }
    }
  }
  out += "</svg>\n";
  return out;
}

}  // namespace computeprof::reports
