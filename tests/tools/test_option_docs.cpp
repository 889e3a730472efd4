// The man page and the bash completion are written from their templates at build time
// (tools/option_docs): each must know every option of the table the parser and the help
// are made from.
#include "catch.hpp"

#include <cctype>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "tools/options.hpp"

namespace {

std::string file_text(const char* path) {
  std::ifstream file(path);
  REQUIRE(file);
  return {std::istreambuf_iterator<char>(file), {}};
}

// The man page spells "--kernel-exclude" as "\-\-kernel\-exclude".
std::string man_spelling(std::string_view option) {
  std::string spelled;
  for (char c : option) {
    if (c == '-') spelled.push_back('\\');
    spelled.push_back(c);
  }
  return spelled;
}

// Whether `text` has `word` with no letter, digit or further '-' after it.
bool has_word(const std::string& text, const std::string& word) {
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const std::size_t end = at + word.size();
    if (end == text.size() || (std::isalnum(static_cast<unsigned char>(text[end])) == 0 && text[end] != '-' &&
                               text[end] != '\\')) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("the man page has an entry for every option", "[option_docs]") {
  const std::string page = file_text(COMPUTEPROF_MAN_PAGE_PATH);
  std::string entries;  // the lines after ".TP": the options' entries
  std::istringstream lines(page);
  for (std::string line, previous; std::getline(lines, line); previous = line) {
    if (previous == ".TP") entries.append(line).push_back('\n');
  }
  for (const auto& option : computeprof::tools::options()) {
    INFO(option.long_name);
    CHECK(has_word(entries, man_spelling(std::string("--") + option.long_name)));
    if (option.short_name != '\0') CHECK(has_word(entries, man_spelling(std::string("-") + option.short_name)));
  }
}

TEST_CASE("the bash completion offers every option and skips the values of those that take one", "[option_docs]") {
  const std::string script = file_text(COMPUTEPROF_BASH_COMPLETION_PATH);
  const std::string opening = "_computeprof_list \"--csv";  // the options offered after '-'
  const std::size_t offered = script.find(opening);
  REQUIRE(offered != std::string::npos);
  const std::string offered_list = script.substr(offered, script.find('"', offered + opening.size()) - offered);
  // The `case` of the words before the cursor: an option taking a value, then its value.
  const std::size_t skipped = script.find("      -o | --output");
  REQUIRE(skipped != std::string::npos);
  const std::string skipped_list = script.substr(skipped, script.find(")\n", skipped) - skipped);
  for (const auto& option : computeprof::tools::options()) {
    const std::string long_option = std::string("--") + option.long_name;
    INFO(long_option);
    CHECK(has_word(offered_list, long_option));
    if (option.short_name != '\0') CHECK(has_word(offered_list, std::string("-") + option.short_name));
    CHECK(has_word(skipped_list, long_option) == (option.value == computeprof::tools::Option::Value::required));
  }
}

TEST_CASE("the bash completion offers merge and report among the commands, and their options after them",
          "[option_docs]") {
  // COMPREPLY for the words given, the last being completed, without the bash-completion package.
  auto completions = [](const std::string& words) {
    const std::string command = std::string("bash -c 'source ") + COMPUTEPROF_BASH_COMPLETION_PATH +
                                "; COMP_WORDS=(" + words + "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
                                "COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}; _computeprof; "
                                "printf \"%s\\n\" \"${COMPREPLY[@]}\"' 2>&1";
    FILE* p = popen(command.c_str(), "r");
    REQUIRE(p);
    std::string out;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, p)) > 0;) out.append(buffer, n);
    CHECK(pclose(p) == 0);
    return out;
  };
  CHECK(completions("computeprof mer").starts_with("merge\n"));
  CHECK(completions("computeprof merge a.json -") == "-o\n--output\n--align\n");
  CHECK(completions("computeprof rep").starts_with("report\n"));
  CHECK(completions("computeprof report a.cprof -") == "--compare\n-o\n--output\n-f\n--force\n");
}
