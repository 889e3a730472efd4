#include "logfmt/record_writer.hpp"

#include <array>
#include <bit>
#include <cstring>
#include <type_traits>

#include "logfmt/decimal_text.hpp"
#include "logfmt/short_copy.hpp"

namespace computeprof::logfmt {
namespace {

// Every value is written through a raw pointer into room the line reserved for itself
// (LineWriter::bound): one capacity check per record, not one per piece.
char* put(char* p, std::string_view text) {
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}

// 8 lower-case hex digits, all at once: each nibble spread to a byte of its own, in
// the order it is written, then turned into its digit ('a' is 39 past '9' + 1).
void put_hex8(char* p, std::uint32_t value) {
  std::uint64_t x = value;
  x = (x | x << 16) & 0x0000ffff0000ffff;
  x = (x | x << 8) & 0x00ff00ff00ff00ff;
  x = (x | x << 4) & 0x0f0f0f0f0f0f0f0f;  // nibble i in byte i
  if constexpr (std::endian::native == std::endian::little) x = __builtin_bswap64(x);
  const std::uint64_t letters = (x + 0x0606060606060606) >> 4 & 0x0101010101010101;  // 1 in bytes of 10..15
  x += 0x3030303030303030 + letters * 39;
  std::memcpy(p, &x, 8);
}

// 16 lower-case hex digits (docs/format.md, "Values").
char* put_hex16(char* p, std::uint64_t value) {
  put_hex8(p, static_cast<std::uint32_t>(value >> 32));
  put_hex8(p + 8, static_cast<std::uint32_t>(value));
  return p + 16;
}


// The values of the grouped keys of the old logs: gridsize=[ 2, 1 ], gridsize3d=[ 2, 1, 1 ],
// threadblocksize=[ 32, 8, 8 ] (ndrangesize / workgroupsize in OpenCL logs).
char* put_dims(char* p, const records::Dim3& dims, bool with_z) {
  p = put_integer(p, dims.x);
  p = put_integer(put(p, ", "), dims.y);
  return with_z ? put_integer(put(p, ", "), dims.z) : p;
}

// Whether `field` holds any of kChars. memchr scans a long template name many bytes at
// a time (find_first_of would test every character against the set).
template <char... kChars>
bool holds_any(std::string_view field) {
  return ((std::memchr(field.data(), kChars, field.size()) != nullptr) || ...);
}

// '\n', '\r' and '\\' as the two characters \n, \r and \\, so that a record stays one
// line and the escapes read back unambiguously: at most two characters per character
// of `field`.
char* put_kvp_field(char* p, std::string_view field) {
  if (!holds_any<'\\', '\n', '\r'>(field)) return put(p, field);
  for (char c : field) {
    switch (c) {
      case '\n': p = put(p, "\\n"); break;
      case '\r': p = put(p, "\\r"); break;
      case '\\': p = put(p, "\\\\"); break;
      default: *p++ = c;
    }
  }
  return p;
}

// Quoted (RFC 4180) if it holds a comma, a quote or a line break: at most two
// characters per character of `field`, and two quotes.
char* put_csv_field(char* p, std::string_view field) {
  if (!holds_any<',', '"', '\r', '\n'>(field)) return put(p, field);
  *p++ = '"';
  for (char c : field) {
    if (c == '"') *p++ = '"';
    *p++ = c;
  }
  *p++ = '"';
  return p;
}

}  // namespace

bool is_plain_name(std::string_view name) {
  return name.find_first_of("\n\r\\,\"") == std::string_view::npos;
}

namespace {

// An NVTX range path's text (at most records::kRangePathLimit bytes: room_for_ranges),
// escaped as a method is.
char* put_range_path(char* p, std::uint32_t path, bool kvp) {
  if (path == 0) return p;
  const std::string_view text = records::range_table().path_text(path);
  return kvp ? put_kvp_field(p, text) : put_csv_field(p, text);
}

char* put_text(char* p, const LineText& text) {
  std::memcpy(p, text.bytes.data(), kLineText);
  return p + text.size;
}

// The switch over a step's value, whose numbers are a Column's or a LineValue's own.
constexpr unsigned line(Column column) { return static_cast<unsigned>(value_of(column)); }
constexpr unsigned line(LineValue value) { return static_cast<unsigned>(value); }

// The cases of put_line's switch for config/options.def's ways of writing a value; a
// column written `own` is a case of its own.
#define COMPUTEPROF_PUT_own(column, member)
#define COMPUTEPROF_PUT_integer(column, member) \
  case line(Column::column): q = put_integer(q, number(r.member)); break;
#define COMPUTEPROF_PUT_hex16(column, member) \
  case line(Column::column): q = put_hex16(q, r.member); break;
#define COMPUTEPROF_PUT_micros(column, member) \
  case line(Column::column): q = put_micros(q, r.member); break;
#define COMPUTEPROF_PUT_integer_or_absent(column, member) \
  case line(Column::column): q = r.member ? put_integer(q, number(*r.member)) : absent; break;
#define COMPUTEPROF_PUT_occupancy(column, member) \
  case line(Column::column): q = r.member ? occupancies.put(q, *r.member) : absent; break;
#define COMPUTEPROF_PUT_range_path(column, member) \
  case line(Column::column): q = put_range_path(q, r.member, kvp); break;

// An integer column's value: a number, or an enumeration's (memtransferdir).
template <typename Value>
constexpr std::uint64_t number(Value value) {
  if constexpr (std::is_enum_v<Value>) {
    return static_cast<std::underlying_type_t<Value>>(value);
  } else {
    return value;
  }
}

// A line from its plan: one dispatch per value. A value the record does not hold
// (occupancy, a counter, the host memory type) leaves out the whole pair in key-value
// lines, the field's value only in CSV lines; counters that could not be collected read
// "n/a" in key-value lines, "" in CSV.
template <config::LogFormat kFormat>
char* put_line(char* p, const records::Record& r, const LinePlan& plan, OccupancyTexts& occupancies) {
  constexpr bool kvp = kFormat == config::LogFormat::kvp;
  for (const LineStep& step : plan.steps) {
    char* q = put_text(p, step.text);
    char* const absent = kvp ? p : q;
    switch (static_cast<unsigned>(step.value)) {
      case line(LineValue::none): break;
      case line(LineValue::method_and_times):
        if (r.method_is_plain) {
          q = put_short(q, r.method);
        } else {
          q = kvp ? put_kvp_field(q, r.method) : put_csv_field(q, r.method);
        }
        q = put_micros(put(q, kvp ? " ] gputime=[ " : ","), r.gputime_ns);
        q = put_micros(put(q, kvp ? " ] cputime=[ " : ","), r.cputime_ns);
        break;
      case line(LineValue::grid2): q = put_dims(q, r.grid, false); break;
      case line(LineValue::grid3): q = put_dims(q, r.grid, true); break;
      case line(LineValue::block3): q = put_dims(q, r.block, true); break;
      case line(Column::counter): {
        const records::CounterValue v = r.counter(step.counter);
        switch (v.state) {
          case records::CounterValue::State::absent: q = absent; break;
          case records::CounterValue::State::unavailable: q = kvp ? put(q, "n/a") : q; break;
          case records::CounterValue::State::value: q = put_integer(q, v.value); break;
        }
        break;
      }
      // Every other column, as config/options.def writes it ("written as").
#define OPTION_COLUMN(option, opencl, kinds, written, member, ...) COMPUTEPROF_PUT_##written(option, member)
#define COLUMN(column, cuda, opencl, when, kinds, written, member) COMPUTEPROF_PUT_##written(column, member)
#include "config/options.def"
      // No plan has another value (columns.cpp): the jump needs no range check.
      default: __builtin_unreachable();
    }
    p = q;
  }
  return put_text(p, plan.tail);
}

#undef COMPUTEPROF_PUT_own
#undef COMPUTEPROF_PUT_integer
#undef COMPUTEPROF_PUT_hex16
#undef COMPUTEPROF_PUT_micros
#undef COMPUTEPROF_PUT_integer_or_absent
#undef COMPUTEPROF_PUT_occupancy
#undef COMPUTEPROF_PUT_range_path

}  // namespace

char* OccupancyTexts::put_and_remember(char* p, Entry& entry, std::uint32_t bits, float value) {
  char* const end = put_fixed3(p, value);
  const auto size = static_cast<std::size_t>(end - p);
  if (size <= entry.text.size()) {  // every occupancy; not a large float's digits
    entry.bits = bits;
    entry.size = static_cast<std::uint32_t>(size);
    std::memcpy(entry.text.data(), p, size);
  }
  return end;
}

char* put_kvp_line(char* p, const records::Record& record, const LinePlan& plan, OccupancyTexts& occupancies) {
  return put_line<config::LogFormat::kvp>(p, record, plan, occupancies);
}

char* put_csv_line(char* p, const records::Record& record, const LinePlan& plan, OccupancyTexts& occupancies) {
  return put_line<config::LogFormat::csv>(p, record, plan, occupancies);
}

}  // namespace computeprof::logfmt
