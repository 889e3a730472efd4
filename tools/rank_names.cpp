#include "tools/rank_names.hpp"

#include <charconv>
#include <cstddef>
#include <string_view>
#include <utility>

namespace computeprof::tools {
namespace {

std::string_view base_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::optional<std::uint64_t> parse_number(std::string_view digits) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The digits after the last "rank" (any case), itself followed by at most one of
// '_', '-', '.', '=': "rank3.log", "out.RANK_12.csv", "rank=5".
std::optional<std::uint64_t> number_after_rank(std::string_view name) {
  std::optional<std::uint64_t> found;
  for (std::size_t i = 0; i + 4 < name.size(); ++i) {
    if (lower(name[i]) != 'r' || lower(name[i + 1]) != 'a' || lower(name[i + 2]) != 'n' || lower(name[i + 3]) != 'k') {
      continue;
    }
    std::size_t begin = i + 4;
    if (name[begin] == '_' || name[begin] == '-' || name[begin] == '.' || name[begin] == '=') ++begin;
    std::size_t end = begin;
    while (end < name.size() && is_digit(name[end])) ++end;
    if (end > begin) {
      if (const auto number = parse_number(name.substr(begin, end - begin))) found = number;
    }
  }
  return found;
}

// A name split at its runs of digits: the text around them, and the runs.
struct DigitRuns {
  std::vector<std::string_view> text;  // one more than `runs`
  std::vector<std::string_view> runs;
};

DigitRuns split_digit_runs(std::string_view name) {
  DigitRuns split;
  std::size_t begin = 0;
  std::size_t i = 0;
  while (i < name.size()) {
    if (!is_digit(name[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < name.size() && is_digit(name[end])) ++end;
    split.text.push_back(name.substr(begin, i - begin));
    split.runs.push_back(name.substr(i, end - i));
    begin = i = end;
  }
  split.text.push_back(name.substr(begin));
  return split;
}

// Where the file names of `files` (two or more) are one name but for one run of digits,
// as `%q{OMPI_COMM_WORLD_RANK}` leaves them ("run_0.log" ... "run_63.log"): that run's
// position among the runs; nullopt where they differ elsewhere too.
std::optional<std::size_t> varying_run(const std::vector<DigitRuns>& files) {
  if (files.size() < 2) return std::nullopt;
  const DigitRuns& first = files.front();
  std::optional<std::size_t> varying;
  for (const DigitRuns& other : files) {
    if (other.text != first.text) return std::nullopt;
    for (std::size_t r = 0; r < first.runs.size(); ++r) {
      if (other.runs[r] == first.runs[r] || varying == r) continue;
      if (varying) return std::nullopt;
      varying = r;
    }
  }
  return varying;
}

}  // namespace

bool RankName::operator<(const RankName& other) const {
  if (number.has_value() != other.number.has_value()) return number.has_value();
  if (number) return *number < *other.number;
  return file < other.file;
}

std::string RankName::text() const { return number ? std::to_string(*number) : file; }

std::vector<RankName> name_ranks(const std::vector<std::string>& paths,
                                 const std::vector<std::optional<std::uint64_t>>& recorded) {
  std::vector<RankName> names(paths.size());
  std::vector<std::size_t> unnamed;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    names[i].number = recorded[i] ? recorded[i] : number_after_rank(base_name(paths[i]));
    if (!names[i].number) unnamed.push_back(i);
  }
  std::vector<DigitRuns> splits;
  for (const std::size_t i : unnamed) splits.push_back(split_digit_runs(base_name(paths[i])));
  const std::optional<std::size_t> run = varying_run(splits);
  for (std::size_t u = 0; u < unnamed.size(); ++u) {
    RankName& name = names[unnamed[u]];
    if (run) name.number = parse_number(splits[u].runs[*run]);
    if (!name.number) name.file = paths[unnamed[u]];
  }
  return names;
}

}  // namespace computeprof::tools
