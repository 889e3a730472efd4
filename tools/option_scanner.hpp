#pragma once
// The options at the front of a computeprof command line, read one at a time by glibc's
// getopt_long from the table of options (tools/options.hpp). Options end at the first
// argument that is not one (the application) or after "--"; what follows is left alone.
// Long options are whole words: getopt_long's abbreviations (--out for --output) are
// refused, so that a new option can never change what an old command line means.
// getopt_long keeps its state in globals: one scanner at a time, on one thread.
#include <getopt.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tools/options.hpp"
#include "tools/usage_error.hpp"

namespace computeprof::tools {

struct ScannedOption {
  const Option* option;
  std::optional<std::string_view> value;  // never empty; valid while the scanner lives
};

// The options are over; rest() is what follows them.
struct EndOfOptions {};

class OptionScanner {
 public:
  // `args` are the arguments after the program name; they must outlive the scanner.
  explicit OptionScanner(std::span<const std::string_view> args);
  OptionScanner(const OptionScanner&) = delete;
  OptionScanner& operator=(const OptionScanner&) = delete;

  std::variant<ScannedOption, EndOfOptions, UsageError> next();

  // The application and its arguments, once next() returned EndOfOptions.
  std::span<const std::string_view> rest() const;

 private:
  std::variant<ScannedOption, EndOfOptions, UsageError> end_of_options(int element) const;

  std::span<const std::string_view> args_;
  std::vector<std::string> argv_strings_;  // "computeprof", then args_: getopt_long wants C strings
  std::vector<char*> argv_;
  std::string short_options_;
  std::vector<option> long_options_;
};

}  // namespace computeprof::tools
