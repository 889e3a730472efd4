#include "records/kernel_names.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace computeprof::records {
namespace {

// The matching opening bracket of the `close` bracket at s[end - 1], searching back.
std::size_t opening(std::string_view s, std::size_t end, char open, char close) {
  int depth = 0;
  for (std::size_t i = end; i-- > 0;) {
    if (s[i] == close) ++depth;
    if (s[i] == open && --depth == 0) return i;
  }
  return 0;
}

}  // namespace

std::string demangled_name(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  const std::string mangled(name);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                   &std::free);
  return status == 0 && text ? std::string(text.get()) : mangled;
}

std::string_view base_name(std::string_view demangled) {
  std::string_view s = demangled;
  // Parameters, then template arguments, from the end.
  if (s.ends_with(')')) s = s.substr(0, opening(s, s.size(), '(', ')'));
  if (s.ends_with('>')) s = s.substr(0, opening(s, s.size(), '<', '>'));
  // Scope and return type: what follows the last "::" or space outside brackets.
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (depth == 0 && c == ' ') start = i + 1;
    if (depth == 0 && c == ':' && i + 1 < s.size() && s[i + 1] == ':') start = i + 2;
  }
  const std::string_view base = s.substr(start);
  return base.empty() ? demangled : base;
}

}  // namespace computeprof::records
