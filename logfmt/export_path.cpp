#include "logfmt/export_path.hpp"

namespace computeprof::logfmt {

std::string export_path_template(std::string_view log_template, std::string_view extension) {
  std::string out;
  for (std::size_t i = 0; i < log_template.size(); ++i) {
    if (log_template[i] == '%' && i + 1 < log_template.size()) {
      if (log_template[i + 1] == 'd') {
        if (!out.empty() && (out.back() == '_' || out.back() == '-' || out.back() == '.')) out.pop_back();
        ++i;
        continue;
      }
      // Any other sequence (%% included) stays for the expansion.
      out += log_template[i];
      out += log_template[++i];
      continue;
    }
    out += log_template[i];
  }
  // The extension: a dot after the file name's first character (".hidden" has none).
  const std::size_t slash = out.rfind('/');
  const std::size_t name_start = slash == std::string::npos ? 0 : slash + 1;
  const std::size_t dot = out.rfind('.');
  if (dot != std::string::npos && dot > name_start && dot + 1 < out.size()) out.erase(dot);
  out += extension;
  return out;
}

}  // namespace computeprof::logfmt
