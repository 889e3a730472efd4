#include "shim/output/database_commits.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include "config/report.hpp"

namespace computeprof::shim {

void DatabaseCommits::committed(const std::string& path, std::uint64_t limit) {
  struct stat st{};
  if (limit != 0 && ::stat(path.c_str(), &st) == 0 && static_cast<std::uint64_t>(st.st_size) >= limit) {
    at_limit_ = true;
  }
}

void DatabaseCommits::report(std::string_view format, const std::string& path, std::uint64_t limit) const {
  if (left_out_ == 0) return;
  config::warn(fmt::format("export {} '{}' stopped at the export limit of {} bytes: {} records left out of it", format,
                           path, limit, left_out_));
}

}  // namespace computeprof::shim
