#include "tools/log_index.hpp"

#include <string.h>

#include <algorithm>

#include <fmt/format.h>

namespace computeprof::tools {
namespace {

// "signal 9 (SIGKILL)"; a real-time signal has no name: "signal 40".
std::string signal_description(int signal) {
  const char* abbreviation = ::sigabbrev_np(signal);
  if (abbreviation == nullptr) return fmt::format("signal {}", signal);
  return fmt::format("signal {} (SIG{})", signal, abbreviation);
}

// Why no log was written. A program ended by a signal may have been stopped before its
// first record was written out (SIGKILL leaves the shim no chance to write): the signal
// is what the user needs to know, whether or not calls were made.
std::string no_log_line(int ending_signal) {
  if (ending_signal != 0) {
    return fmt::format("no log written (the application was killed by {} before any log was written)",
                       signal_description(ending_signal));
  }
  return "no log written (the application made no CUDA or OpenCL calls while profiling was on)";
}

}  // namespace

std::vector<std::string> log_report_lines(std::string_view index_text, int ending_signal) {
  std::vector<std::string_view> paths;
  std::vector<std::string_view> unopened;  // why a log could not be opened ('!' lines)
  while (!index_text.empty()) {
    const std::size_t newline = index_text.find('\n');
    const std::string_view line = index_text.substr(0, newline);
    auto& list = line.starts_with('!') ? unopened : paths;
    const std::string_view entry = line.starts_with('!') ? line.substr(1) : line;
    if (!entry.empty() && std::ranges::find(list, entry) == list.end()) list.push_back(entry);
    if (newline == std::string_view::npos) break;
    index_text.remove_prefix(newline + 1);
  }

  std::vector<std::string> lines;
  if (paths.empty() && !unopened.empty()) {
    // The shim was there and tried: the reason it gave is the answer, whatever ended the
    // application afterwards.
    for (std::string_view why : unopened) lines.push_back(fmt::format("no log written ({})", why));
    return lines;
  }
  if (paths.empty()) return {no_log_line(ending_signal)};
  for (std::string_view path : paths) lines.push_back(std::string("log written to ").append(path));
  return lines;
}

}  // namespace computeprof::tools
