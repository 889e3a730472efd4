#pragma once
// A regular expression given to match names: the kernel filters (`kernels regex:EXPR`,
// `kernelexclude EXPR`, the launcher's --kernels and --kernel-exclude). RE2's syntax
// (docs/format.md, "Choosing kernels"): a search takes time linear in the name's length
// and bounded memory, whatever the pattern, so no pattern can crash or hang the program
// it runs in. The engine is behind config/regex_engine.hpp.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

struct computeprof_regex;

namespace computeprof::config {

// The longest pattern taken.
inline constexpr std::size_t kMaxPatternLength = 512;

class NamePattern {
 public:
  // `text` compiled; on failure, empty with `error` set: what is wrong, naming the
  // construct where it is one RE2's syntax does not have (a backreference, lookaround).
  static std::optional<NamePattern> compile(std::string_view text, std::string& error);

  // Whether the pattern matches somewhere in `name`.
  bool found_in(std::string_view name) const;

 private:
  explicit NamePattern(std::shared_ptr<computeprof_regex> regex) : regex_(std::move(regex)) {}
  std::shared_ptr<computeprof_regex> regex_;  // shared by copies of the settings
};

}  // namespace computeprof::config
