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
  while (!index_text.empty()) {
    const std::size_t newline = index_text.find('\n');
    const std::string_view path = index_text.substr(0, newline);
    if (!path.empty() && std::ranges::find(paths, path) == paths.end()) paths.push_back(path);
    if (newline == std::string_view::npos) break;
    index_text.remove_prefix(newline + 1);
  }

  if (paths.empty()) return {no_log_line(ending_signal)};
  std::vector<std::string> lines;
  for (std::string_view path : paths) lines.push_back(std::string("log written to ").append(path));
  return lines;
}

}  // namespace computeprof::tools
