#include "tools/log_index.hpp"

#include <algorithm>

namespace computeprof::tools {

std::vector<std::string> log_report_lines(std::string_view index_text) {
  std::vector<std::string_view> paths;
  while (!index_text.empty()) {
    const std::size_t newline = index_text.find('\n');
    const std::string_view path = index_text.substr(0, newline);
    if (!path.empty() && std::ranges::find(paths, path) == paths.end()) paths.push_back(path);
    if (newline == std::string_view::npos) break;
    index_text.remove_prefix(newline + 1);
  }

  if (paths.empty()) {
    return {"no log written (the application made no CUDA or OpenCL calls while profiling was on)"};
  }
  std::vector<std::string> lines;
  for (std::string_view path : paths) lines.push_back(std::string("log written to ").append(path));
  return lines;
}

}  // namespace computeprof::tools
