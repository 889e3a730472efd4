#pragma once
// Reads a computeprof log back (key-value or CSV) into records of named fields.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace e2e {

using Fields = std::map<std::string, std::string>;

struct ParsedLog {
  std::vector<std::string> header;  // the '#' lines, in order
  std::string column_line;
  bool csv = false;
  std::vector<Fields> records;  // CSV: column -> field; key-value: key -> value

  std::size_t count(const std::string& method) const;
  std::size_t kernels() const;  // records that are neither copies, memsets nor graphs
  std::vector<Fields> with_method(const std::string& method) const;
};

// Throws when the text is not a well-formed log (a field count that does not match
// the column line, a key-value line that does not end with a space, ...).
ParsedLog parse_log(const std::string& text);
ParsedLog read_log(const std::string& path);

// "7.424" -> 7424 (nanoseconds)
std::uint64_t micros_to_ns(const std::string& value);

}  // namespace e2e
