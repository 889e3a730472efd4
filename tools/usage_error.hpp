#pragma once
// A command line that cannot be run: one line on stderr, exit status 2.
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace computeprof::tools {

// The message has no "computeprof: " prefix.
struct UsageError {
  std::string message;

  bool operator==(const UsageError&) const = default;
};

// Every usage error points at the help, where the options are listed.
inline UsageError usage_error(std::string_view what) {
  return UsageError{fmt::format("{} (see computeprof --help)", what)};
}

}  // namespace computeprof::tools
