#pragma once
// Record -> text, key-value or CSV (docs/format.md, "Key-value records", "CSV records"). Writes
// into room in a caller's buffer (LineWriter::bound, put); knows nothing of files.
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "config/profile_config.hpp"
#include "logfmt/columns.hpp"
#include "records/range_table.hpp"
#include "records/record.hpp"

namespace computeprof::logfmt {

// The longest value any column writes: a float's integer digits, sign and three decimals.
inline constexpr std::size_t kMaxValue = 48;

// The room a line written in place needs (LineWriter::bound) is room_besides_method,
// which a LineWriter works out once, and twice the method's length. A line has at most
// one step per column, and its tail; each copies a whole text block and writes at most
// kMaxValue after it (the method: twice its length and two quotes; its step writes the
// two times too, in their columns' room).
inline std::size_t room_besides_method(const ColumnLayout& layout) {
  std::size_t room = (layout.columns.size() + 1) * (kLineText + kMaxValue);
  // nvtxrange: a path's text, each character escaped, and two quotes.
  if (layout.has(Column::nvtxrange)) room += 2 * records::kRangePathLimit + 2;
  return room;
}

// The texts of the occupancies written last, by their float's bits, for a writer that
// writes many lines: a kernel's records all hold its occupancy, whose text is then
// copied, not worked out again (some 30 instructions; std::to_chars from 1.000 up).
// Direct-mapped; every entry holds a true text from the start.
class OccupancyTexts {
 public:
  // Writes `value` with three decimals, as printf's %.3f does, into room for kMaxValue
  // bytes at `p`, and returns its end. Inline: once per kernel's record.
  char* put(char* p, float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    Entry& entry = entries_[bits * 0x9e3779b1U >> (32 - kEntryBits)];  // Fibonacci hashing
    if (entry.bits != bits) [[unlikely]] return put_and_remember(p, entry, bits, value);
    std::memcpy(p, entry.text.data(), entry.text.size());
    return p + entry.size;
  }

 private:
  static constexpr int kEntryBits = 4;
  struct Entry {
    std::uint32_t bits = 0;  // 0.0F
    std::uint32_t size = 5;
    std::array<char, 8> text = {'0', '.', '0', '0', '0'};
  };
  char* put_and_remember(char* p, Entry& entry, std::uint32_t bits, float value);

  std::array<Entry, 1 << kEntryBits> entries_{};
};

// A line of each format from its plan (LineWriter).
char* put_kvp_line(char* p, const records::Record& record, const LinePlan& plan, OccupancyTexts& occupancies);
char* put_csv_line(char* p, const records::Record& record, const LinePlan& plan, OccupancyTexts& occupancies);

// The lines of one log, in its format, written in place (LogFile::room_for). Not
// thread-safe: it remembers what it wrote (OccupancyTexts).
class LineWriter {
 public:
  LineWriter(ColumnLayout layout, config::LogFormat format)
      : layout_(std::move(layout)), format_(format), room_besides_method_(room_besides_method(layout_)) {}

  const ColumnLayout& layout() const { return layout_; }
  config::LogFormat format() const { return format_; }
  // Room for `record`'s line (room_besides_method, and twice the method's length): put()
  // writes it there and returns its end. Inline: once per record each (an out-of-line
  // put cost 10 instructions of its own).
  std::size_t bound(const records::Record& record) const { return room_besides_method_ + 2 * record.method.size(); }
  char* put(char* p, const records::Record& record) {
    const auto kind = static_cast<std::size_t>(record.kind);
    if (format_ == config::LogFormat::csv) return put_csv_line(p, record, layout_.csv_lines[kind], occupancies_);
    return put_kvp_line(p, record, layout_.kvp_lines[kind], occupancies_);
  }

 private:
  ColumnLayout layout_;
  config::LogFormat format_;
  std::size_t room_besides_method_;
  OccupancyTexts occupancies_;
};

// No character of `name` is escaped in key-value logs or quoted in CSV.
bool is_plain_name(std::string_view name);

}  // namespace computeprof::logfmt
