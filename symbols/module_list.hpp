#pragma once
// The modules file written beside a stacks file (docs/format.md, "Call stacks"): each
// module the stacks name, with its build-id and path, so that `computeprof stacks`
// finds the same files, or their debug files, on another machine.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symbols/symbolizer.hpp"

namespace computeprof::symbols {

inline constexpr std::string_view kModulesHeader = "# COMPUTEPROF_MODULES 1\n";

// One line: "module NAME BUILD_ID PATH" (BUILD_ID "-" where the module has none).
std::string module_line(const ModuleIdentity& module);

// The modules of a modules file's text, in order; lines that are not module lines are
// skipped.
std::vector<ModuleIdentity> parse_module_list(std::string_view text);

// The module a stacks file names `name` (its file name), nullptr for none.
const ModuleIdentity* module_named(const std::vector<ModuleIdentity>& modules, std::string_view name);

}  // namespace computeprof::symbols
