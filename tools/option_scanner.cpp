#include "tools/option_scanner.hpp"

#include <algorithm>

namespace computeprof::tools {
namespace {

// getopt_long's value for an option without a short name: past every char.
constexpr int kFirstLongOnlyValue = 256;

int getopt_value(const Option& option, std::size_t index) {
  if (option.short_name != '\0') return static_cast<unsigned char>(option.short_name);
  return kFirstLongOnlyValue + static_cast<int>(index);
}

// The row of a value getopt_long returned for an option, which is always one of the table's.
const Option& option_of_value(int value) {
  const std::span<const Option> table = options();
  if (value >= kFirstLongOnlyValue) return table[static_cast<std::size_t>(value - kFirstLongOnlyValue)];
  return *std::ranges::find(table, static_cast<char>(value), &Option::short_name);
}

int has_arg(Option::Value value) {
  switch (value) {
    case Option::Value::none:
      return no_argument;
    case Option::Value::required:
      return required_argument;
    case Option::Value::optional_after_equals:
      return optional_argument;
  }
  return no_argument;
}

// "+": options end at the first argument that is not one, as the application's own
// options follow it. ":": a missing value is ':', not '?', and getopt_long prints nothing.
std::string short_options_of(std::span<const Option> table) {
  std::string short_options = "+:";
  for (const Option& option : table) {
    if (option.short_name == '\0') continue;
    short_options.push_back(option.short_name);
    if (option.value == Option::Value::required) short_options.append(":");
    if (option.value == Option::Value::optional_after_equals) short_options.append("::");
  }
  return short_options;
}

}  // namespace

OptionScanner::OptionScanner(std::span<const std::string_view> args)
    : args_(args), short_options_(short_options_of(options())) {
  argv_strings_.emplace_back("computeprof");
  argv_strings_.insert(argv_strings_.end(), args.begin(), args.end());
  for (std::string& argument : argv_strings_) argv_.push_back(argument.data());
  argv_.push_back(nullptr);

  const std::span<const Option> table = options();
  for (std::size_t index = 0; index < table.size(); ++index) {
    long_options_.push_back({table[index].long_name, has_arg(table[index].value), nullptr,
                             getopt_value(table[index], index)});
  }
  long_options_.push_back({nullptr, 0, nullptr, 0});

  // 0, not 1: glibc then forgets the place it reached in an earlier command line.
  optind = 0;
  opterr = 0;
}

std::variant<ScannedOption, EndOfOptions, UsageError> OptionScanner::next() {
  // The argument getopt_long reads now (optind 0 asks it to start over, at 1).
  const int element = std::max(optind, 1);
  const int found = getopt_long(static_cast<int>(args_.size()) + 1, argv_.data(), short_options_.c_str(),
                                long_options_.data(), nullptr);
  if (found == -1) return end_of_options(element);

  const std::string_view typed = argv_strings_[static_cast<std::size_t>(element)];
  const bool long_form = typed.starts_with("--");
  // Unknown long options and prefixes of several are both '?' with no option.
  if (found == '?' && optopt == 0) return usage_error(fmt::format("unknown option '{}'", typed));
  if (found == '?' && !long_form) return usage_error(fmt::format("unknown option '-{}'", static_cast<char>(optopt)));

  // A known option, maybe without its value or with one it does not take.
  const Option& option = option_of_value(found == '?' || found == ':' ? optopt : found);
  if (long_form) {
    std::string_view name = typed.substr(2);
    name = name.substr(0, name.find('='));
    if (name != option.long_name) {
      return usage_error(fmt::format("unknown option '--{}' (did you mean '--{}'? abbreviations are not accepted)",
                                     name, option.long_name));
    }
  }
  const std::string spelled =
      long_form ? fmt::format("--{}", option.long_name) : fmt::format("-{}", option.short_name);
  if (found == '?') return usage_error(fmt::format("option '{}' takes no value", spelled));
  if (found == ':') return usage_error(fmt::format("option '{}' needs a value", spelled));
  if (optarg == nullptr) return ScannedOption{&option, std::nullopt};

  const std::string_view value = optarg;
  if (!value.empty()) return ScannedOption{&option, value};
  // "--callstack=" asks for a depth and gives none; "--callstack" asks for the default.
  if (option.value == Option::Value::optional_after_equals) {
    return usage_error(fmt::format("option '{}=' needs a value", spelled));
  }
  return usage_error(fmt::format("option '{}' needs a value", spelled));
}

std::variant<ScannedOption, EndOfOptions, UsageError> OptionScanner::end_of_options(int element) const {
  // getopt_long steps over the "--" that ends the options and stops at anything else.
  // It takes a lone '-' for an operand (standard input, by convention); no application is
  // called that, so it is the option it looks like, unless it follows "--".
  const bool after_double_dash = optind == element + 1;
  if (!after_double_dash && !rest().empty() && rest().front() == "-") return usage_error("unknown option '-'");
  return EndOfOptions{};
}

std::span<const std::string_view> OptionScanner::rest() const {
  return args_.subspan(static_cast<std::size_t>(std::max(optind, 1) - 1));
}

}  // namespace computeprof::tools
