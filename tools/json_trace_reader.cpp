#include "tools/json_trace_reader.hpp"

#include <charconv>

#include <fmt/format.h>

namespace computeprof::tools {
namespace {

constexpr std::size_t kReadChunk = 1 << 16;
// Deeper nesting than any trace has: a hostile file cannot exhaust the stack.
constexpr int kMaxDepth = 64;

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

void append_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

}  // namespace

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [name, value] : members) {
    if (name == key) return &value;
  }
  return nullptr;
}

JsonValue* JsonValue::find(std::string_view key) {
  for (auto& [name, value] : members) {
    if (name == key) return &value;
  }
  return nullptr;
}

std::optional<std::int64_t> JsonValue::integer() const {
  if (kind != Kind::number) return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<std::string_view> JsonValue::string_member(std::string_view key) const {
  const JsonValue* v = find(key);
  if (v == nullptr || v->kind != Kind::string) return std::nullopt;
  return v->text;
}

void append_json(std::string& out, const JsonValue& value) {
  switch (value.kind) {
    case JsonValue::Kind::null:
      out += "null";
      return;
    case JsonValue::Kind::boolean:
    case JsonValue::Kind::number:
      out += value.text;
      return;
    case JsonValue::Kind::string:
      append_string(out, value.text);
      return;
    case JsonValue::Kind::array:
      out.push_back('[');
      for (std::size_t i = 0; i < value.items.size(); ++i) {
        if (i > 0) out.push_back(',');
        append_json(out, value.items[i]);
      }
      out.push_back(']');
      return;
    case JsonValue::Kind::object:
      out.push_back('{');
      for (std::size_t i = 0; i < value.members.size(); ++i) {
        if (i > 0) out.push_back(',');
        append_string(out, value.members[i].name);
        out.push_back(':');
        append_json(out, value.members[i].value);
      }
      out.push_back('}');
      return;
  }
}

JsonTraceReader::JsonTraceReader(std::unique_ptr<ByteSource> raw, std::string name)
    : bytes_(std::move(raw)), name_(std::move(name)) {}

JsonTraceReader JsonTraceReader::open(const std::string& path) {
  try {
    return JsonTraceReader(file_bytes(path), path);
  } catch (const TraceBytesError& e) {
    throw JsonTraceError(fmt::format("{}: {}", path, e.what()));
  }
}

int JsonTraceReader::peek() {
  if (at_ == buffer_.size()) {
    if (at_end_) return -1;
    buffer_.resize(kReadChunk);
    std::size_t n = 0;
    try {
      n = bytes_.read(buffer_.data(), buffer_.size());
    } catch (const TraceBytesError& e) {
      throw JsonTraceError(fmt::format("{}: {}", name_, e.what()));
    }
    buffer_.resize(n);
    at_ = 0;
    if (n == 0) {
      at_end_ = true;
      return -1;
    }
  }
  return static_cast<unsigned char>(buffer_[at_]);
}

int JsonTraceReader::get() {
  const int c = peek();
  if (c < 0) return c;
  ++at_;
  if (c == '\n') {
    ++line_;
    column_ = 1;
  } else {
    ++column_;
  }
  return c;
}

void JsonTraceReader::fail(std::string_view what) const {
  throw JsonTraceError(fmt::format("{}: line {}, column {}: {}", name_, line_, column_, what));
}

void JsonTraceReader::skip_space() {
  for (int c = peek(); c == ' ' || c == '\n' || c == '\r' || c == '\t'; c = peek()) get();
}

void JsonTraceReader::expect(char c) {
  skip_space();
  const int got = peek();
  if (got != c) {
    fail(got < 0 ? fmt::format("the text ends where '{}' is expected", c)
                 : fmt::format("'{}' is expected, not '{}'", c, static_cast<char>(got)));
  }
  get();
}

void JsonTraceReader::parse_literal(std::string_view word) {
  for (const char c : word) {
    if (get() != c) fail(fmt::format("not a JSON value (expected '{}')", word));
  }
}

void JsonTraceReader::parse_number(std::string& out) {
  out.clear();
  auto digits = [&] {
    if (peek() < '0' || peek() > '9') fail("a number needs a digit here");
    while (peek() >= '0' && peek() <= '9') out.push_back(static_cast<char>(get()));
  };
  if (peek() == '-') out.push_back(static_cast<char>(get()));
  if (peek() == '0') {
    out.push_back(static_cast<char>(get()));
  } else {
    digits();
  }
  if (peek() == '.') {
    out.push_back(static_cast<char>(get()));
    digits();
  }
  if (peek() == 'e' || peek() == 'E') {
    out.push_back(static_cast<char>(get()));
    if (peek() == '+' || peek() == '-') out.push_back(static_cast<char>(get()));
    digits();
  }
}

void JsonTraceReader::parse_string(std::string& out) {
  out.clear();
  get();  // the opening quote
  auto hex4 = [&] {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const int c = get();
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<std::uint32_t>(c - 'A' + 10);
      else fail("\\u needs four hexadecimal digits");
    }
    return v;
  };
  for (;;) {
    const int c = get();
    if (c < 0) fail("the text ends inside a string");
    if (c == '"') return;
    if (c < 0x20) fail("a control character inside a string");
    if (c != '\\') {
      out.push_back(static_cast<char>(c));
      continue;
    }
    switch (get()) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        std::uint32_t code = hex4();
        if (code >= 0xD800 && code < 0xDC00) {
          if (get() != '\\' || get() != 'u') fail("a lone UTF-16 surrogate in \\u");
          const std::uint32_t low = hex4();
          if (low < 0xDC00 || low >= 0xE000) fail("a lone UTF-16 surrogate in \\u");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code < 0xE000) {
          fail("a lone UTF-16 surrogate in \\u");
        }
        append_utf8(out, code);
        break;
      }
      default:
        fail("an unknown escape in a string");
    }
  }
}

void JsonTraceReader::parse_value(JsonValue& out, int depth) {
  if (depth > kMaxDepth) fail(fmt::format("nested deeper than {} levels", kMaxDepth));
  skip_space();
  out.items.clear();
  out.members.clear();
  out.text.clear();
  const int c = peek();
  switch (c) {
    case '{':
      out.kind = JsonValue::Kind::object;
      get();
      skip_space();
      if (peek() == '}') {
        get();
        return;
      }
      for (;;) {
        skip_space();
        if (peek() != '"') fail("a member's name (a string) is expected");
        auto& member = out.members.emplace_back();
        parse_string(member.name);
        expect(':');
        parse_value(member.value, depth + 1);
        skip_space();
        const int next = peek();
        if (next != ',' && next != '}') fail("',' or '}' is expected after a member");
        get();
        if (next == '}') return;
      }
    case '[':
      out.kind = JsonValue::Kind::array;
      get();
      skip_space();
      if (peek() == ']') {
        get();
        return;
      }
      for (;;) {
        parse_value(out.items.emplace_back(), depth + 1);
        skip_space();
        const int next = peek();
        if (next != ',' && next != ']') fail("',' or ']' is expected after an element");
        get();
        if (next == ']') return;
      }
    case '"':
      out.kind = JsonValue::Kind::string;
      parse_string(out.text);
      return;
    case 't':
      out.kind = JsonValue::Kind::boolean;
      parse_literal("true");
      out.text = "true";
      return;
    case 'f':
      out.kind = JsonValue::Kind::boolean;
      parse_literal("false");
      out.text = "false";
      return;
    case 'n':
      out.kind = JsonValue::Kind::null;
      parse_literal("null");
      return;
    default:
      if (c == '-' || (c >= '0' && c <= '9')) {
        out.kind = JsonValue::Kind::number;
        parse_number(out.text);
        return;
      }
      fail(c < 0 ? "the text ends where a value is expected" : "not a JSON value");
  }
}

void JsonTraceReader::read_header_member(const std::string& key, const JsonValue& value, JsonTraceHeader& header) {
  auto nonnegative = [&](const JsonValue& v, std::string_view what) {
    const auto n = v.integer();
    if (!n || *n < 0) fail(fmt::format("{} is not a non-negative integer", what));
    return *n;
  };
  if (key == "baseTimeNanoseconds") {
    header.base_time_ns = nonnegative(value, key);
  } else if (key == "baseTimeMonotonicNanoseconds") {
    header.base_monotonic_ns = nonnegative(value, key);
  } else if (key == "distributedInfo") {
    const JsonValue* rank = value.find("rank");
    const JsonValue* size = value.find("world_size");
    if (value.kind != JsonValue::Kind::object || rank == nullptr) fail("distributedInfo has no rank");
    DistributedInfo info;
    info.rank = nonnegative(*rank, "distributedInfo's rank");
    if (size != nullptr) info.world_size = nonnegative(*size, "distributedInfo's world_size");
    header.distributed = info;
  } else if (key == "hostName") {
    if (value.kind != JsonValue::Kind::string) fail("hostName is not a string");
    header.host_name = value.text;
  }
}

JsonTraceHeader JsonTraceReader::read(const std::function<void(const JsonValue& event)>& on_event) {
  JsonTraceHeader header;
  bool saw_events = false;
  skip_space();
  if (peek() != '{') fail("a JSON trace is an object ('{' expected)");
  get();
  skip_space();
  std::string key;
  JsonValue value;
  if (peek() != '}') {
    for (;;) {
      skip_space();
      if (peek() != '"') fail("a member's name (a string) is expected");
      parse_string(key);
      expect(':');
      if (key == "traceEvents") {
        saw_events = true;
        expect('[');
        skip_space();
        if (peek() == ']') {
          get();
        } else {
          for (;;) {
            skip_space();
            const std::uint64_t line = line_;
            const std::uint64_t column = column_;
            parse_value(value, 1);
            if (value.kind != JsonValue::Kind::object) {
              line_ = line;
              column_ = column;
              fail("an element of traceEvents is not an object");
            }
            ++events_;
            on_event(value);
            skip_space();
            const int next = peek();
            if (next != ',' && next != ']') fail("',' or ']' is expected after an event");
            get();
            if (next == ']') break;
          }
        }
      } else {
        parse_value(value, 1);
        read_header_member(key, value, header);
      }
      skip_space();
      const int next = peek();
      if (next != ',' && next != '}') fail("',' or '}' is expected after a member");
      get();
      if (next == '}') break;
    }
  } else {
    get();
  }
  skip_space();
  if (peek() >= 0) fail("text after the trace's closing '}'");
  if (!saw_events) fail("the trace has no traceEvents");
  return header;
}

}  // namespace computeprof::tools
