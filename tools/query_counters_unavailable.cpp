// --query-counters in a build without the CUDA toolkit or its CUPTI (CUPTI's headers missing).
#include <optional>
#include <string>

#include "config/report.hpp"
#include "tools/query_counters.hpp"

namespace computeprof::tools {

int query_counters(const QueryOptions&, const std::optional<std::string>&) {
  config::warn("--query-counters needs CUPTI, and this computeprof was built without the CUDA toolkit's CUPTI");
  return 1;
}

}  // namespace computeprof::tools
