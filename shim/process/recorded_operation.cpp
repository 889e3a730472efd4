#include "shim/process/recorded_operation.hpp"

#include <string>
#include <unordered_map>

#include "records/kernel_names.hpp"

namespace computeprof::shim {

KernelNameVerdict judge_kernel_name(const config::KernelFilters& filters, std::string_view mangled) {
  const std::string demangled = records::demangled_name(mangled);
  const std::string_view base = records::base_name(demangled);
  KernelNameVerdict verdict;
  for (std::size_t i = 0; i < filters.include.size() && i < kMaxKernelSpecs; ++i) {
    const config::KernelSpec& spec = filters.include[i];
    bool matches = false;
    if (spec.pattern) {
      matches = spec.pattern->found_in(mangled) || spec.pattern->found_in(demangled);
    } else {
      matches = spec.name.empty() || spec.name == mangled || spec.name == base;
    }
    if (matches) verdict.specs |= std::uint64_t{1} << i;
  }
  for (const config::NamePattern& pattern : filters.exclude) {
    if (pattern.found_in(mangled) || pattern.found_in(demangled)) verdict.excluded = true;
  }
  return verdict;
}

bool launch_matches(const config::KernelFilters& filters, const KernelNameVerdict& verdict, const LaunchPlace& place) {
  if (verdict.excluded) return false;
  if (filters.include.empty()) return true;
  for (std::size_t i = 0; i < filters.include.size() && i < kMaxKernelSpecs; ++i) {
    if ((verdict.specs >> i & 1) == 0) continue;
    const config::KernelSpec& spec = filters.include[i];
    if (spec.context && *spec.context != place.context) continue;
    if (spec.stream && *spec.stream != place.stream) continue;
    if (spec.invocation && *spec.invocation != place.invocation) continue;
    return true;
  }
  return false;
}

bool names_streams(const config::KernelFilters& filters) {
  for (const config::KernelSpec& spec : filters.include) {
    if (spec.stream) return true;
  }
  return false;
}

bool within_skip_and_count(const config::KernelFilters& filters, std::uint64_t n) {
  if (n <= filters.skip) return false;
  return !filters.count || n - filters.skip <= *filters.count;
}

std::atomic<std::uint64_t> detail::g_matching_launches{0};

KernelNameVerdict kernel_name_verdict(std::string_view mangled) {
  const config::KernelFilters& filters = kernel_filters();
  if (!filters.active()) return {};
  return judge_kernel_name(filters, mangled);
}

bool selects_graph_nodes() {
  const config::KernelFilters& filters = kernel_filters();
  return filters.active() && filters.scope == config::FilterScope::all;
}

bool graph_node_selected(const ProfiledContext& context, const records::Record& node) {
  if (node.kind != records::RecordKind::kernel) return true;
  // Verdicts by name, kept for the process: node names are interned. Asked on the
  // activity collector's thread only.
  static auto* verdicts = new std::unordered_map<const char*, KernelNameVerdict>;
  const config::KernelFilters& filters = kernel_filters();
  auto [it, added] = verdicts->try_emplace(node.method.data());
  if (added) it->second = judge_kernel_name(filters, node.method);
  // Invocation 0: a line with an invocation matches no node.
  LaunchPlace place;
  place.context = static_cast<std::uint64_t>(context.number);
  place.stream = node.stream_id;
  return launch_matches(filters, it->second, place);
}

}  // namespace computeprof::shim
