// Reads a JSON trace (docs/format.md, "JSON trace"), plain or gzip, as a stream: each
// element of traceEvents is handed over as it is parsed and then forgotten, so a trace of
// any size takes the memory of one event; the members outside traceEvents (the clock
// anchors, distributedInfo, hostName) are kept.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/trace_bytes.hpp"

namespace computeprof::tools {

struct JsonMember;

// One JSON value, as parsed. A number keeps the text it was written with, so that a
// value passed through is not changed by a round trip through double.
struct JsonValue {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  std::string text;  // number: as written; string: decoded (UTF-8); boolean: true/false
  std::vector<JsonValue> items;
  std::vector<JsonMember> members;  // in the order written

  // The first member named `key`, or null.
  const JsonValue* find(std::string_view key) const;
  JsonValue* find(std::string_view key);
  // A number written as an integer that fits, else nothing.
  std::optional<std::int64_t> integer() const;
  // A string member's text, else nothing.
  std::optional<std::string_view> string_member(std::string_view key) const;
};

struct JsonMember {
  JsonMember() = default;
  JsonMember(std::string member_name, JsonValue member_value)
      : name(std::move(member_name)), value(std::move(member_value)) {}
  std::string name;
  JsonValue value;
};

// `value` as compact JSON (strings escaped as JSON requires, numbers as written).
void append_json(std::string& out, const JsonValue& value);

struct DistributedInfo {
  std::int64_t rank = 0;
  std::int64_t world_size = 0;
};

// What a trace says of itself outside traceEvents.
struct JsonTraceHeader {
  std::optional<std::int64_t> base_time_ns;       // baseTimeNanoseconds: wall clock at ts 0
  std::optional<std::int64_t> base_monotonic_ns;  // baseTimeMonotonicNanoseconds
  std::optional<DistributedInfo> distributed;     // distributedInfo
  std::optional<std::string> host_name;           // hostName
};

// A malformed trace: what() is "<name>: line L, column C: <what is wrong>" (the
// position in the decompressed text), or "<name>: <why it cannot be read>".
class JsonTraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class JsonTraceReader {
 public:
  // `name` names the trace in errors (its path).
  JsonTraceReader(std::unique_ptr<ByteSource> raw, std::string name);
  static JsonTraceReader open(const std::string& path);

  // Parses the whole trace once: `on_event` gets each element of traceEvents in order
  // (an object; anything else is an error). Returns the header, complete only at the
  // end since a writer may put its members after traceEvents. Throws JsonTraceError;
  // an exception from `on_event` passes through.
  JsonTraceHeader read(const std::function<void(const JsonValue& event)>& on_event);

  // traceEvents' elements read so far.
  std::uint64_t events() const { return events_; }

 private:
  int peek();
  int get();
  void skip_space();
  void expect(char c);
  [[noreturn]] void fail(std::string_view what) const;
  void parse_value(JsonValue& out, int depth);
  void parse_string(std::string& out);
  void parse_number(std::string& out);
  void parse_literal(std::string_view word);
  void read_header_member(const std::string& key, const JsonValue& value, JsonTraceHeader& header);

  TraceBytes bytes_;
  std::string name_;
  std::string buffer_;
  std::size_t at_ = 0;
  bool at_end_ = false;
  std::uint64_t line_ = 1;
  std::uint64_t column_ = 1;
  std::uint64_t events_ = 0;
};

}  // namespace computeprof::tools
