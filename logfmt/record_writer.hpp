#pragma once
// Record -> text, key-value or CSV (docs/format.md, "Key-value records", "CSV records"). Appends to a caller's buffer;
// knows nothing of files.
#include <string>

#include "config/profile_config.hpp"
#include "logfmt/columns.hpp"
#include "logfmt/record.hpp"

namespace computeprof::logfmt {

// `method=[ _Z6vecAddPKfS0_Pfi ] gputime=[ 7.424 ] ... \n`: pairs that do not apply to
// the record are left out; every pair is followed by one space.
void write_kvp_line(std::string& out, const Record& record, const ColumnLayout& layout);

// One field per column, empty where a column does not apply, RFC 4180 quoting.
void write_csv_line(std::string& out, const Record& record, const ColumnLayout& layout);

void write_record(std::string& out, const Record& record, const ColumnLayout& layout,
                  config::LogFormat format);

// The longest value any column writes: a float's integer digits, sign and three decimals.
inline constexpr std::size_t kMaxValue = 48;

// The same line written in place, for a buffer that has line_bound() bytes of room at
// `p`; returns the end of what it wrote. A line has at most one step per column, and
// its tail; each copies a whole text block and writes at most kMaxValue after it (the
// method: twice its length and two quotes; its step writes the two times too, in their
// columns' room). Inline: asked once per record.
inline std::size_t line_bound(const Record& record, const ColumnLayout& layout) {
  return (layout.columns.size() + 1) * (kLineText + kMaxValue) + 2 * record.method.size();
}
char* put_record(char* p, const Record& record, const ColumnLayout& layout, config::LogFormat format);

// No character of `name` is escaped in key-value logs or quoted in CSV.
bool is_plain_name(std::string_view name);

// Appends `field`, quoted if it holds a comma, a quote or a line break.
void append_csv_field(std::string& out, std::string_view field);

// Appends a key-value value with '\n', '\r' and '\\' written as the two characters
// \n, \r and \\, so that a record stays one line and the escapes read back unambiguously.
void append_kvp_field(std::string& out, std::string_view field);

}  // namespace computeprof::logfmt
