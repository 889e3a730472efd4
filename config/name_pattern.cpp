#include "config/name_pattern.hpp"

#include <array>
#include <utility>

#include "config/regex_engine.hpp"

namespace computeprof::config {
namespace {

// The first construct in `text` that RE2's syntax lacks and Perl's and ECMAScript's
// have (a backreference, lookahead, lookbehind), as an error naming it; empty if none.
std::string unsupported_construct(std::string_view text) {
  constexpr std::string_view kWithout =
      " is not supported: patterns are RE2's syntax, without backreferences or lookaround";
  bool in_class = false;
  std::size_t class_start = 0;  // where the class that is open begins: its '['
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::string_view rest = text.substr(i);
    if (rest[0] == '\\' && rest.size() > 1) {
      const char c = rest[1];
      if (!in_class && ((c >= '1' && c <= '9') || c == 'k' || c == 'g')) {
        return std::string("a backreference (\\").append(1, c).append(")").append(kWithout);
      }
      ++i;  // the escaped character
      continue;
    }
    if (in_class) {
      // A ']' right after '[' or '[^' is a member, not the end.
      const bool first = i == class_start + 1 || (i == class_start + 2 && text[class_start + 1] == '^');
      if (rest[0] == ']' && !first) in_class = false;
      continue;
    }
    if (rest[0] == '[') {
      in_class = true;
      class_start = i;
      continue;
    }
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kConstructs = {{
        {"(?=", "lookahead (?=...)"},
        {"(?!", "negative lookahead (?!...)"},
        {"(?<=", "lookbehind (?<=...)"},
        {"(?<!", "negative lookbehind (?<!...)"},
        {"(?P=", "a backreference (?P=name)"},
    }};
    for (const auto& [opening, name] : kConstructs) {
      if (rest.starts_with(opening)) return std::string(name).append(kWithout);
    }
  }
  return {};
}

}  // namespace

std::optional<NamePattern> NamePattern::compile(std::string_view text, std::string& error) {
  if (text.empty()) {
    error = "an empty regular expression";
    return std::nullopt;
  }
  if (text.size() > kMaxPatternLength) {
    error = "a regular expression longer than 512 characters";
    return std::nullopt;
  }
  char why[256] = {};
  computeprof_regex* regex = computeprof_regex_compile(text.data(), text.size(), why, sizeof why);
  if (!regex) {
    // RE2's own words name the characters ("invalid perl operator: (?<"); where they
    // are a construct of other syntaxes, its name says more.
    error = unsupported_construct(text);
    if (error.empty()) error = std::string("not a regular expression: ") + why;
    return std::nullopt;
  }
  return NamePattern(std::shared_ptr<computeprof_regex>(regex, &computeprof_regex_free));
}

bool NamePattern::found_in(std::string_view name) const {
  return computeprof_regex_search(regex_.get(), name.data(), name.size()) != 0;
}

}  // namespace computeprof::config
