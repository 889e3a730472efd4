#include "logfmt/log_summary_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <vector>

#include "config/report.hpp"

namespace computeprof::logfmt {
namespace {

// A graph launch timed as a whole is no one GPU activity: the shim's summary leaves
// such records out (shim/output/summary_sink.cpp), and so does a table made from logs.
constexpr std::string_view kGraphLaunchMethod = "graphLaunch";

// The log sinks write whole lines: a last line without its line break is what a
// process killed while writing its log leaves.
constexpr std::string_view kCutShort = "the line is cut short (the file ends before its line break)";

// The text of a log, read from the front; `line` is the number of the line at `pos`.
struct LogCursor {
  std::string_view text;
  std::size_t pos = 0;
  std::size_t line = 1;

  bool at_end() const { return pos == text.size(); }

  // The line at `pos` without its '\n'; nullopt where the file ends inside it.
  std::optional<std::string_view> take_line() {
    const std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) return std::nullopt;
    const std::string_view taken = text.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    return taken;
  }
};

// "# CUDA_PROFILE_CSV 1" (OPENCL_ in OpenCL logs): the records are CSV, not key-value
// pairs (docs/format.md, "Header").
bool is_csv_header_line(std::string_view line) {
  return line == "# CUDA_PROFILE_CSV 1" || line == "# OPENCL_PROFILE_CSV 1";
}

// Where a record's method and gputime are. Key-value logs have a column line too; it
// tells that the file is a log whose records have both.
struct ColumnPositions {
  std::size_t method = 0;
  std::size_t gputime = 0;
  std::size_t count = 0;
};

std::optional<ColumnPositions> find_columns(std::string_view column_line) {
  std::optional<std::size_t> method;
  std::optional<std::size_t> gputime;
  std::size_t count = 0;
  for (std::size_t begin = 0;; ++count) {
    const std::size_t comma = column_line.find(',', begin);
    const std::string_view name = column_line.substr(begin, comma - begin);
    if (name == "method") method = count;
    if (name == "gputime") gputime = count;
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  if (!method || !gputime) return std::nullopt;
  return ColumnPositions{*method, *gputime, count + 1};
}

// All of `text` as a decimal number: no sign, nothing after the digits.
bool parse_digits(std::string_view text, std::uint64_t& value) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  return error == std::errc{} && stop == end;
}

// "7.424" -> 7424: microseconds with three decimals as the writer makes them from
// integer nanoseconds (docs/format.md, "Values"), read back the same way, without
// floating point, so that nothing is rounded.
std::optional<std::uint64_t> micros_to_ns(std::string_view text) {
  constexpr std::size_t kDecimals = 3;
  if (text.size() < kDecimals + 2 || text[text.size() - kDecimals - 1] != '.') return std::nullopt;
  std::uint64_t micros = 0;
  std::uint64_t fraction = 0;
  if (!parse_digits(text.substr(0, text.size() - kDecimals - 1), micros) ||
      !parse_digits(text.substr(text.size() - kDecimals), fraction)) {
    return std::nullopt;
  }
  if (micros > (std::numeric_limits<std::uint64_t>::max() - fraction) / 1000) return std::nullopt;
  return micros * 1000 + fraction;
}

// One operation of the log. Returns why it cannot be added, empty when it was.
std::string add_record(std::string_view method, std::string_view gputime, reports::GpuSummary& summary) {
  const std::optional<std::uint64_t> ns = micros_to_ns(gputime);
  if (!ns) {
    return fmt::format("gputime '{}' is not microseconds with three decimals", config::escape_for_warning(gputime));
  }
  if (method != kGraphLaunchMethod) summary.add(method, *ns);
  return {};
}

// A method name as the program gave it: \n, \r and \\ back to the characters
// the key-value writer (record_writer.cpp) wrote them for. nullopt for any other backslash, which it never
// writes.
std::optional<std::string> unescape_kvp_field(std::string_view field) {
  std::string out;
  out.reserve(field.size());
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '\\') {
      out.push_back(field[i]);
      continue;
    }
    if (++i == field.size()) return std::nullopt;
    switch (field[i]) {
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case '\\': out.push_back('\\'); break;
      default: return std::nullopt;
    }
  }
  return out;
}

// `... method=[ NAME ] gputime=[ 7.424 ] ...`. Only timestamps come before the method
// (column order), so its key is the first "method=[ "; gputime always follows it. A
// name may hold anything but a line break, " ] " included, and every value after it
// is a number: the last " ] gputime=[ " ends the name.
std::string add_kvp_record(LogCursor& cursor, reports::GpuSummary& summary) {
  constexpr std::string_view kMethodKey = "method=[ ";
  constexpr std::string_view kGputimeKey = " ] gputime=[ ";
  const std::optional<std::string_view> line = cursor.take_line();
  if (!line) return std::string(kCutShort);
  const std::size_t key = line->find(kMethodKey);
  if (key == std::string_view::npos || (key != 0 && !line->substr(0, key).ends_with("] "))) {
    return "no method=[ ... ] pair";
  }
  const std::size_t name = key + kMethodKey.size();
  const std::size_t name_end = line->rfind(kGputimeKey);
  if (name_end == std::string_view::npos || name_end < name) return "no gputime=[ ... ] pair after the method";
  const std::size_t time = name_end + kGputimeKey.size();
  const std::size_t time_end = line->find(" ]", time);
  if (time_end == std::string_view::npos) return "the gputime=[ ... ] pair is not closed";
  const std::optional<std::string> method = unescape_kvp_field(line->substr(name, name_end - name));
  if (!method) return "the method has a backslash that is not \\n, \\r or \\\\";
  return add_record(*method, line->substr(time, time_end - time), summary);
}

// One record's fields, RFC 4180 as the CSV writer quotes them: a quoted field may hold
// commas, doubled quotes and line breaks, so one record may span several lines.
// Returns why it cannot be read, empty when it was.
std::string read_csv_fields(LogCursor& cursor, std::vector<std::string>& fields) {
  const std::string_view text = cursor.text;
  std::size_t& pos = cursor.pos;
  fields.clear();
  while (true) {
    std::string& field = fields.emplace_back();
    if (pos < text.size() && text[pos] == '"') {
      for (++pos;;) {
        const std::size_t quote = text.find('"', pos);
        if (quote == std::string_view::npos) return std::string(kCutShort);
        cursor.line += static_cast<std::size_t>(std::count(text.begin() + pos, text.begin() + quote, '\n'));
        field.append(text.substr(pos, quote - pos));
        pos = quote + 1;
        if (pos == text.size() || text[pos] != '"') break;
        field.push_back('"');
        ++pos;
      }
    } else {
      const std::size_t end = text.find_first_of(",\n\"", pos);
      if (end == std::string_view::npos) return std::string(kCutShort);
      if (text[end] == '"') return "a quote inside a field that is not quoted";
      field.assign(text.substr(pos, end - pos));
      pos = end;
    }
    if (pos == text.size()) return std::string(kCutShort);
    const char separator = text[pos++];
    if (separator == '\n') {
      ++cursor.line;
      return {};
    }
    if (separator != ',') return "text after the closing quote of a field";
  }
}

std::string add_csv_record(LogCursor& cursor, const ColumnPositions& columns, std::vector<std::string>& fields,
                           reports::GpuSummary& summary) {
  if (std::string error = read_csv_fields(cursor, fields); !error.empty()) return error;
  if (fields.size() != columns.count) {
    return fmt::format("{} fields where the column line has {}", fields.size(), columns.count);
  }
  return add_record(fields[columns.method], fields[columns.gputime], summary);
}

}  // namespace

std::optional<LogReadError> add_log_to_summary(std::string_view log, reports::GpuSummary& summary) {
  LogCursor cursor{log};
  // The header's lines start with '#'; the column line ends it.
  bool csv = false;
  std::optional<ColumnPositions> columns;
  while (!columns) {
    const std::size_t number = cursor.line;
    if (cursor.at_end()) return LogReadError{number, "no column line: the file ends before its records begin"};
    const std::optional<std::string_view> line = cursor.take_line();
    if (!line) return LogReadError{number, std::string(kCutShort)};
    if (line->starts_with('#')) {
      csv = csv || is_csv_header_line(*line);
      continue;
    }
    columns = find_columns(*line);
    if (!columns) return LogReadError{number, "the column line names no method or no gputime column"};
  }
  std::vector<std::string> fields;  // one CSV record's, kept for its capacity
  while (!cursor.at_end()) {
    const std::size_t number = cursor.line;
    std::string error = csv ? add_csv_record(cursor, *columns, fields, summary) : add_kvp_record(cursor, summary);
    if (!error.empty()) return LogReadError{number, std::move(error)};
  }
  return std::nullopt;
}

}  // namespace computeprof::logfmt
