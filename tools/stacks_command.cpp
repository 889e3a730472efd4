#include "tools/stacks_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "config/report.hpp"
#include "symbols/debug_file_directory.hpp"
#include "symbols/module_list.hpp"
#include "symbols/symbolizer.hpp"
#include "tools/text_file.hpp"

namespace computeprof::tools {
namespace {

// The modules file of a stacks file: "X.stacks" beside "X.modules".
std::string modules_path_of(const std::string& stacks) {
  constexpr std::string_view kExtension = ".stacks";
  const std::string_view stem =
      std::string_view(stacks).ends_with(kExtension) ? std::string_view(stacks).substr(0, stacks.size() - kExtension.size())
                                                      : std::string_view(stacks);
  return std::string(stem) + ".modules";
}

bool readable(const std::string& path) { return ::access(path.c_str(), R_OK) == 0; }

// The file that names a module's frames here: its path at the run, else a file of its
// name beside the stacks file, else its debug file under /usr/lib/debug/.build-id (debug_file_directory());
// the first whose build-id is the run's. Where none is, its path at the run (the
// symbolizer then says why it names nothing).
symbols::ModuleIdentity locate(symbols::Symbolizer& symbolizer, const symbols::ModuleIdentity& module,
                               const std::string& stacks_path) {
  std::vector<std::string> candidates{module.path};
  const std::filesystem::path beside =
      std::filesystem::path(stacks_path).parent_path() / std::string(symbols::module_file_name(module.path));
  candidates.push_back(beside.string());
  if (module.build_id.size() > 2) {
    candidates.push_back(fmt::format("{}/.build-id/{}/{}.debug", symbols::debug_file_directory(),
                                     module.build_id.substr(0, 2), module.build_id.substr(2)));
  }
  for (const std::string& candidate : candidates) {
    if (!readable(candidate)) continue;
    if (module.build_id.empty() || symbolizer.file_build_id(candidate) == module.build_id) {
      return {candidate, module.build_id};
    }
  }
  return module;
}

}  // namespace

int print_resolved_stacks(const std::string& path, std::FILE* out) {
  const auto text = read_text_file(path);
  if (!text) {
    config::warn(fmt::format("{}: {}", config::escape_for_warning(path), std::strerror(errno)));
    return 1;
  }
  const std::string modules_path = modules_path_of(path);
  const auto modules_text = read_text_file(modules_path);
  if (!modules_text) {
    config::warn(fmt::format("{}: {}; the stacks are printed as they were", config::escape_for_warning(modules_path),
                             std::strerror(errno)));
  }
  const std::vector<symbols::ModuleIdentity> modules =
      modules_text ? symbols::parse_module_list(*modules_text) : std::vector<symbols::ModuleIdentity>{};
  symbols::Symbolizer symbolizer("the stacks are printed as they were");
  std::map<std::string, symbols::ModuleIdentity, std::less<>> located;  // by module name

  std::string result;
  std::size_t depth = 0;
  // The module and offset last named again: the frames written after an inlined frame
  // at the same call were named with it.
  std::string named_module;
  std::uintptr_t named_offset = 0;
  bool named = false;
  std::string_view rest = *text;
  while (!rest.empty()) {
    const std::size_t newline = rest.find('\n');
    const std::string_view line = rest.substr(0, newline);
    rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
    if (!line.starts_with('#') || line.starts_with("# ")) {
      if (line.starts_with("stack ")) depth = 0;
      named = false;
      result.append(line).push_back('\n');
      continue;
    }
    const std::size_t space = line.find(' ');
    const std::string_view described = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
    const auto frame = symbols::parse_described_frame(described);
    if (frame && named && frame->module_name == named_module && frame->offset == named_offset) continue;
    named = false;
    std::vector<std::string> texts;
    if (frame && symbolizer.available()) {
      if (const symbols::ModuleIdentity* module = symbols::module_named(modules, frame->module_name)) {
        auto it = located.find(frame->module_name);
        if (it == located.end()) it = located.emplace(frame->module_name, locate(symbolizer, *module, path)).first;
        for (symbols::Frame again : symbolizer.frames(it->second, frame->offset)) {
          again.module = module->path;
          texts.push_back(symbols::describe_frame(again));
        }
        named = !texts.empty();
        named_module = frame->module_name;
        named_offset = frame->offset;
      }
    }
    if (texts.empty()) texts.emplace_back(described);
    for (const std::string& t : texts) fmt::format_to(std::back_inserter(result), "#{} {}\n", depth++, t);
  }
  std::fwrite(result.data(), 1, result.size(), out);
  return 0;
}

}  // namespace computeprof::tools
