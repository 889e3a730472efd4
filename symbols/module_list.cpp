#include "symbols/module_list.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace computeprof::symbols {

std::string module_line(const ModuleIdentity& module) {
  return fmt::format("module {} {} {}\n", module_file_name(module.path),
                     module.build_id.empty() ? std::string_view("-") : std::string_view(module.build_id), module.path);
}

std::vector<ModuleIdentity> parse_module_list(std::string_view text) {
  std::vector<ModuleIdentity> out;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    constexpr std::string_view kPrefix = "module ";
    if (!line.starts_with(kPrefix)) continue;
    line.remove_prefix(kPrefix.size());
    const std::size_t name_end = line.find(' ');
    if (name_end == std::string_view::npos) continue;
    const std::size_t id_end = line.find(' ', name_end + 1);
    if (id_end == std::string_view::npos) continue;
    const std::string_view id = line.substr(name_end + 1, id_end - name_end - 1);
    const std::string_view path = line.substr(id_end + 1);
    if (path.empty() || module_file_name(path) != line.substr(0, name_end)) continue;
    const bool is_hex = std::all_of(id.begin(), id.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
    out.push_back({std::string(path), id == "-" || !is_hex ? std::string() : std::string(id)});
  }
  return out;
}

const ModuleIdentity* module_named(const std::vector<ModuleIdentity>& modules, std::string_view name) {
  const auto it = std::find_if(modules.begin(), modules.end(),
                               [name](const ModuleIdentity& m) { return module_file_name(m.path) == name; });
  return it == modules.end() ? nullptr : &*it;
}

}  // namespace computeprof::symbols
