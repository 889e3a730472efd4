#include "shim/opencl/ptxas_usage.hpp"

#include <charconv>

namespace computeprof::shim {
namespace {

constexpr std::string_view kPtxas = "ptxas info";

// Calls f(line) for each line, without its end.
template <typename F>
void for_each_line(std::string_view text, F&& f) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    f(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

// The text between the first pair of single quotes after `after`, or empty.
std::string_view quoted_after(std::string_view line, std::string_view after) {
  const std::size_t at = line.find(after);
  if (at == std::string_view::npos) return {};
  const std::size_t open = line.find('\'', at + after.size());
  const std::size_t close = open == std::string_view::npos ? open : line.find('\'', open + 1);
  if (close == std::string_view::npos) return {};
  return line.substr(open + 1, close - open - 1);
}

bool is_continuation(std::string_view line) { return line.starts_with("    ") && line.find("bytes") != line.npos; }

}  // namespace

std::map<std::string, std::uint32_t, std::less<>> kernel_registers(std::string_view build_log) {
  std::map<std::string, std::uint32_t, std::less<>> registers;
  std::string_view current;
  for_each_line(build_log, [&](std::string_view line) {
    if (!line.starts_with(kPtxas)) return;
    if (auto name = quoted_after(line, "Compiling entry function"); !name.empty()) {
      current = name;
      return;
    }
    const std::size_t used = line.find("Used ");
    if (used == std::string_view::npos || current.empty()) return;
    std::uint32_t count = 0;
    const char* first = line.data() + used + 5;
    const auto [end, error] = std::from_chars(first, line.data() + line.size(), count);
    if (error == std::errc() && std::string_view(end, line.data() + line.size() - end).starts_with(" register")) {
      registers[std::string(current)] = count;
    }
  });
  return registers;
}

std::string without_verbose_lines(std::string_view build_log) {
  std::string kept;
  bool after_ptxas = false;
  for_each_line(build_log, [&](std::string_view line) {
    const bool verbose = line.starts_with(kPtxas) || (after_ptxas && is_continuation(line));
    after_ptxas = verbose;
    if (verbose) return;
    kept.append(line).push_back('\n');
  });
  // The log's own end: with or without a final newline, as it came.
  if (!build_log.ends_with('\n') && !kept.empty()) kept.pop_back();
  return kept;
}

}  // namespace computeprof::shim
