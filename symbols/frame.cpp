#include "symbols/frame.hpp"

#include <charconv>

#include <fmt/format.h>

namespace computeprof::symbols {

std::string_view module_file_name(std::string_view module) {
  const std::size_t slash = module.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? module : module.substr(slash + 1);
  return name.empty() ? std::string_view("??") : name;
}

std::string describe_frame(const Frame& frame) {
  std::string text = fmt::format("{} ({}+{:#x})", frame.function, module_file_name(frame.module), frame.offset);
  if (!frame.file.empty()) fmt::format_to(std::back_inserter(text), " {}:{}", frame.file, frame.line);
  if (frame.inlined) text += " inlined";
  return text;
}

std::optional<WrittenFrame> parse_described_frame(std::string_view text) {
  // The module part is the last " (NAME+0xHEX)" of the line: a function's name may hold
  // parentheses, a file name does not end in "+0x...)".
  WrittenFrame out;
  constexpr std::string_view kInlined = " inlined";
  if (text.ends_with(kInlined)) {
    out.inlined = true;
    text.remove_suffix(kInlined.size());
  }
  std::size_t close = text.rfind(')');
  while (close != std::string_view::npos) {
    const std::size_t plus = text.rfind("+0x", close);
    const std::size_t open = plus == std::string_view::npos ? std::string_view::npos : text.rfind(" (", plus);
    if (open != std::string_view::npos) {
      const std::string_view hex = text.substr(plus + 3, close - plus - 3);
      std::uintptr_t offset = 0;
      const auto [end, error] = std::from_chars(hex.data(), hex.data() + hex.size(), offset, 16);
      const std::string_view rest = text.substr(close + 1);
      if (error == std::errc() && end == hex.data() + hex.size() && !hex.empty() &&
          (rest.empty() || rest.front() == ' ')) {
        out.function = std::string(text.substr(0, open));
        out.module_name = std::string(text.substr(open + 2, plus - open - 2));
        out.offset = offset;
        return out;
      }
    }
    if (close == 0) break;
    close = text.rfind(')', close - 1);
  }
  return std::nullopt;
}

}  // namespace computeprof::symbols
