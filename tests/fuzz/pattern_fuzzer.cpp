// libFuzzer target for the kernel filters' patterns (config/name_pattern) over kernel
// names: one input is both, the pattern up to the first newline and the name after it.
// Besides the sanitizers' checks, a search must end in time linear in the name and in
// bounded memory (libFuzzer's -timeout and -rss_limit_mb, .ci/run), a refused pattern
// has a reason, and a pattern of letters, digits and underscores only is found exactly
// where the name holds it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "config/name_pattern.hpp"

namespace {

bool is_literal(std::string_view pattern) {
  for (char c : pattern) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = input.find('\n');
  const std::string_view pattern = input.substr(0, newline);
  const std::string_view name = newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
  std::string error;
  const auto compiled = computeprof::config::NamePattern::compile(pattern, error);
  if (!compiled) {
    if (error.empty()) __builtin_trap();
    return 0;
  }
  const bool found = compiled->found_in(name);
  if (is_literal(pattern) && found != (name.find(pattern) != std::string_view::npos)) __builtin_trap();
  // Names of templated kernels run to thousands of characters: the same, far longer.
  std::string long_name;
  for (int i = 0; i < 64 && !name.empty(); ++i) long_name.append(name);
  compiled->found_in(long_name);
  return 0;
}
