// Writes a man page or the bash completion from its template, with the lists of
// config/options.def in place of the template's lines @COMMAND_OPTIONS@,
// @CONFIG_OPTIONS@ (computeprof(1)), @COLUMN_OPTIONS@ (computeprof.conf(5)),
// @OPTIONS_WITH_VALUES@, @VALUE_COMPLETIONS@ and @OFFERED_OPTIONS@ (the completion).
// Run at build time: option_docs TEMPLATE OUTPUT.
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

enum class Value { none, required, optional_after_equals };
enum class Completion { nothing, files, words };

struct Flag {
  bool config_line;
  std::string_view long_name;
  char short_name;
  Value value;
  std::string_view value_name;
  Completion completion;
  std::string_view words;
  std::string_view text;
};

constexpr Flag kFlags[] = {
#define FLAG(effect, long_name, short_name, value, value_name, config_line, help, completion, words, text) \
  {std::string_view(#effect) == "config_line", long_name, short_name, Value::value, value_name, \
   Completion::completion, words, text},
#include "config/options.def"
};

struct ColumnOption {
  std::string_view name;
  std::string_view opencl;
  std::string_view text;
};

constexpr ColumnOption kColumnOptions[] = {
#define OPTION(option, opencl, text) {#option, #opencl, text},
#define OPTION_COLUMN(option, opencl, kinds, written, member, text, ...) {#option, #opencl, text},
#include "config/options.def"
};

// "--kernel-exclude" as roff writes an option: "\-\-kernel\-exclude".
std::string roff_option(std::string_view option) {
  std::string roff;
  for (char c : option) {
    if (c == '-') roff.push_back('\\');
    roff.push_back(c);
  }
  return roff;
}

std::string long_option(const Flag& flag) { return "--" + std::string(flag.long_name); }
std::string short_option(const Flag& flag) { return {'-', flag.short_name}; }

// ".TP", the flag as it is given, then its text.
std::string man_entry(const Flag& flag) {
  const std::string spelled = roff_option(long_option(flag));
  const std::string value(flag.value_name);
  std::string entry = ".TP\n";
  const bool has_short = flag.short_name != '\0';
  switch (flag.value) {
    case Value::none:
      entry += has_short ? ".BR " + roff_option(short_option(flag)) + " \", \" " + spelled : ".B " + spelled;
      break;
    case Value::required:
      entry += ".BI ";
      if (has_short) entry += roff_option(short_option(flag)) + " \" " + value + "\\fR, \" ";
      entry += spelled + " \" " + value + "\"";
      break;
    case Value::optional_after_equals: entry += ".BR " + spelled + " [ =\\fI" + value + "\\fR ]"; break;
  }
  return entry.append("\n").append(flag.text).append("\n");
}

std::string man_entries(bool config_lines) {
  std::string text;
  for (const Flag& flag : kFlags) {
    if (flag.config_line == config_lines) text += man_entry(flag);
  }
  return text;
}

// computeprof.conf(5)'s "Columns": the options with a text, OpenCL spellings in brackets.
std::string column_entries() {
  std::string text;
  for (const ColumnOption& option : kColumnOptions) {
    if (option.text.empty()) continue;
    text.append(".TP\n");
    if (option.opencl == option.name) {
      text.append(".B ").append(option.name);
    } else {
      text.append(".BR ").append(option.name).append(" \" (\" ").append(option.opencl).append(" )");
    }
    text.append("\n").append(option.text).append("\n");
  }
  return text;
}

// Adds the flag's spellings to `to`, the short one first.
void add_spellings(std::vector<std::string>& to, const Flag& flag) {
  if (flag.short_name != '\0') to.push_back(short_option(flag));
  to.push_back(long_option(flag));
}

std::vector<std::string> spellings(const Flag& flag) {
  std::vector<std::string> all;
  add_spellings(all, flag);
  return all;
}

// `words` joined by `separator` in lines of at most kWidth characters: the first after
// `first`, the others after `next`, each line but the last ending in `wrap`.
std::string wrapped(const std::vector<std::string>& words, std::string_view separator, std::string_view first,
                    std::string_view next, std::string_view wrap) {
  constexpr std::size_t kWidth = 100;
  std::string text(first);
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i != 0) {
      const bool fits = text.size() - line_start + separator.size() + words[i].size() + wrap.size() <= kWidth;
      if (fits) {
        text.append(separator);
      } else {
        text.append(separator.substr(0, separator.find_last_not_of(' ') + 1)).append(wrap).append("\n");
        line_start = text.size();
        text.append(next);
      }
    }
    text.append(words[i]);
  }
  return text;
}

// A `case` pattern: "-o | --output | --config".
std::string case_pattern(const std::vector<std::string>& options, std::string_view indent) {
  return wrapped(options, " | ", indent, std::string(indent) + "  ", " \\");
}

// The flags taking a value: the completion skips the word after them.
std::string options_with_values() {
  std::vector<std::string> options;
  for (const Flag& flag : kFlags) {
    if (flag.value == Value::required) add_spellings(options, flag);
  }
  return case_pattern(options, "      ") + ")\n";
}

// The `case $prev` arms: file names, words, or nothing after a flag taking a value.
std::string value_completions() {
  std::vector<std::string> files, nothing;
  std::string words;
  for (const Flag& flag : kFlags) {
    if (flag.value != Value::required) continue;
    switch (flag.completion) {
      case Completion::files: add_spellings(files, flag); break;
      case Completion::nothing: add_spellings(nothing, flag); break;
      case Completion::words:
        words += case_pattern(spellings(flag), "    ") + ")\n      _computeprof_list \"" + std::string(flag.words) +
                 "\"\n      return\n      ;;\n";
        break;
    }
  }
  std::string text;
  if (!files.empty()) text += case_pattern(files, "    ") + ")\n      _computeprof_files\n      return\n      ;;\n";
  text += words;
  if (!nothing.empty()) text += case_pattern(nothing, "    ") + ")\n      return\n      ;;\n";
  return text;
}

// What is offered after '-': every spelling ("--callstack=" too for a value after '='),
// and "--".
std::string offered_options() {
  std::vector<std::string> options;
  for (const Flag& flag : kFlags) {
    add_spellings(options, flag);
    if (flag.value == Value::optional_after_equals) options.push_back(long_option(flag) + "=");
  }
  options.emplace_back("--");
  return wrapped(options, " ", "      _computeprof_list \"", "", " \\") + "\"\n";
}

std::optional<std::string> generated(std::string_view marker) {
  if (marker == "@COMMAND_OPTIONS@") return man_entries(false);
  if (marker == "@CONFIG_OPTIONS@") return man_entries(true);
  if (marker == "@COLUMN_OPTIONS@") return column_entries();
  if (marker == "@OPTIONS_WITH_VALUES@") return options_with_values();
  if (marker == "@VALUE_COMPLETIONS@") return value_completions();
  if (marker == "@OFFERED_OPTIONS@") return offered_options();
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: option_docs TEMPLATE OUTPUT\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "option_docs: cannot read %s\n", argv[1]);
    return 1;
  }
  std::string text;
  for (std::string line; std::getline(in, line);) {
    const std::optional<std::string> lines = generated(line);
    text += lines ? *lines : line + "\n";
  }
  std::ofstream out(argv[2], std::ios::trunc);
  out << text;
  if (!out.flush()) {
    std::fprintf(stderr, "option_docs: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
