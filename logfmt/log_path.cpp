#include "logfmt/log_path.hpp"

#include <fmt/format.h>

#include "config/report.hpp"

namespace computeprof::logfmt {

using config::escape_for_warning;

std::string expand_log_path(std::string_view tmpl, const PathTemplateValues& v) {
  std::string out;
  for (std::size_t i = 0; i < tmpl.size(); ++i) {
    char c = tmpl[i];
    if (c != '%') {
      out.push_back(c);
      continue;
    }
    if (i + 1 == tmpl.size()) {
      config::warn_once(fmt::format("log path '{}' ends with a lone '%'; kept as is", escape_for_warning(tmpl)));
      out.push_back('%');
      continue;
    }
    char spec = tmpl[i + 1];
    switch (spec) {
      case '%': out.push_back('%'); ++i; continue;
      case 'd': out += fmt::format("{}", v.device); ++i; continue;
      case 'p': out += fmt::format("{}", v.pid); ++i; continue;
      case 'h': out.append(v.hostname); ++i; continue;
      case 'q': {
        std::size_t close = tmpl.find('}', i + 2);
        if (i + 2 < tmpl.size() && tmpl[i + 2] == '{' && close != std::string_view::npos) {
          std::string_view name = tmpl.substr(i + 3, close - (i + 3));
          if (auto value = v.lookup(name, v.lookup_user)) {
            out += *value;
          } else {
            config::warn_once(fmt::format("log path '{}': %q{{{}}} is not set; it expands to nothing",
                                          escape_for_warning(tmpl), escape_for_warning(name)));
          }
          i = close;
          continue;
        }
        config::warn_once(fmt::format("log path '{}': %q needs {{NAME}}; kept as is", escape_for_warning(tmpl)));
        out.push_back('%');
        continue;
      }
      default:
        config::warn_once(fmt::format("log path '{}': unknown sequence '%{}' kept as is", escape_for_warning(tmpl),
                                      escape_for_warning(tmpl.substr(i + 1, 1))));
        out.push_back('%');
        continue;
    }
  }
  return out;
}

namespace {

// `path` with "_<number>" before the extension of its last component.
std::string insert_suffix(std::string_view path, long number) {
  std::size_t slash = path.rfind('/');
  std::size_t base = slash == std::string_view::npos ? 0 : slash + 1;
  std::size_t dot = path.rfind('.');
  // A leading dot names a hidden file, not an extension.
  if (dot == std::string_view::npos || dot <= base) dot = path.size();
  return fmt::format("{}_{}{}", path.substr(0, dot), number, path.substr(dot));
}

}  // namespace

std::string insert_context_suffix(std::string_view path, int context) { return insert_suffix(path, context); }

std::string insert_process_suffix(std::string_view path, long pid) { return insert_suffix(path, pid); }

std::string LogPathRegistry::claim(const std::string& path, int context) {
  std::lock_guard lock(mutex_);
  std::string chosen = path;
  while (true) {
    auto [it, inserted] = owners_.emplace(chosen, context);
    if (inserted || it->second == context) break;
    chosen = insert_context_suffix(chosen, context);
  }
  if (chosen != path) {
    config::warn(fmt::format("context {} would share log '{}' with context {}; it writes '{}'", context,
                             escape_for_warning(path), owners_.find(path)->second,
                             escape_for_warning(chosen)));
  }
  return chosen;
}

void LogPathRegistry::clear() {
  std::lock_guard lock(mutex_);
  owners_.clear();
}

}  // namespace computeprof::logfmt
