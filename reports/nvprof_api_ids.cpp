#include "reports/nvprof_api_ids.hpp"

#include <algorithm>
#include <array>

namespace computeprof::reports {
namespace {

struct Row {
  std::string_view entry;
  NvprofApiIds ids;
};

#define NVPROF_API(entry, driver, runtime, runtime_id) \
  Row{#entry, NvprofApiIds{driver, runtime_id, std::string_view(#runtime) == "none" ? "" : #runtime}},
constexpr std::array kRows = {
#include "reports/nvprof_api_ids.def"
};
#undef NVPROF_API

}  // namespace

std::optional<NvprofApiIds> nvprof_api_ids(std::string_view entry) {
  const auto it = std::find_if(kRows.begin(), kRows.end(), [&](const Row& r) { return r.entry == entry; });
  if (it == kRows.end()) return std::nullopt;
  return it->ids;
}

std::string_view nvprof_function_name(std::string_view cupti_name) {
  std::string_view name = cupti_name;
  // _v3020, _v7000, ...: a version is "_v" and digits only.
  if (const auto v = name.rfind("_v"); v != std::string_view::npos && v + 2 < name.size() &&
                                       name.find_first_not_of("0123456789", v + 2) == std::string_view::npos) {
    name = name.substr(0, v);
  }
  for (std::string_view suffix : {"_ptsz", "_ptds"}) {
    if (name.ends_with(suffix)) name.remove_suffix(suffix.size());
  }
  return name;
}

std::string_view nvprof_call_name(bool runtime, int cbid) {
  for (const Row& r : kRows) {
    if (runtime && r.ids.runtime_cbid == cbid) return nvprof_function_name(r.ids.runtime_name);
    if (!runtime && r.ids.driver_cbid == cbid) return nvprof_function_name(r.entry);
  }
  return "unknown";
}

}  // namespace computeprof::reports
