#include "config/kernel_filter.hpp"

#include <charconv>

namespace computeprof::config {
namespace {

constexpr std::string_view kRegexPrefix = "regex:";

// A spec's last field is its invocation when it is a number, or empty (any invocation).
bool is_invocation(std::string_view field) { return field.find_first_not_of("0123456789") == std::string_view::npos; }

// An empty field is "any"; otherwise a decimal number.
bool parse_number(std::string_view field, std::optional<std::uint64_t>& out) {
  if (field.empty()) return true;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size()) return false;
  out = value;
  return true;
}

// The fields of a spec, split at colons (a name is a mangled or base name: no scope;
// scoped names are matched with regex:).
std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (std::size_t colon = text.find(':'); colon != std::string_view::npos; colon = text.find(':', start)) {
    fields.push_back(text.substr(start, colon - start));
    start = colon + 1;
  }
  fields.push_back(text.substr(start));
  return fields;
}

}  // namespace

bool KernelFilters::counts_launches() const {
  if (skip != 0 || count) return true;
  for (const KernelSpec& s : include) {
    if (s.invocation) return true;
  }
  return false;
}

std::optional<KernelSpec> parse_kernel_spec(std::string_view text, std::string& error) {
  KernelSpec spec;
  spec.text = std::string(text);
  std::vector<std::string_view> fields;
  if (const std::size_t at = text.find(kRegexPrefix); at != std::string_view::npos) {
    // The expression may hold colons of its own: what precedes "regex:" are the
    // context and stream fields, what follows it the expression, but for a last ":N".
    if (at != 0) fields = split_fields(text.substr(0, at - 1));
    std::string_view expression = text.substr(at + kRegexPrefix.size());
    std::optional<std::string_view> invocation;
    if (const std::size_t colon = expression.rfind(':');
        colon != std::string_view::npos && is_invocation(expression.substr(colon + 1))) {
      invocation = expression.substr(colon + 1);
      expression = expression.substr(0, colon);
    }
    if (at != 0 && (text[at - 1] != ':' || fields.size() > 2)) {
      error = "regex: comes after at most a context and a stream field";
      return std::nullopt;
    }
    spec.pattern = NamePattern::compile(expression, error);
    if (!spec.pattern) return std::nullopt;
    if (invocation && !parse_number(*invocation, spec.invocation)) {
      error = "the invocation is not a number";
      return std::nullopt;
    }
    if (spec.invocation == 0u) {
      error = "invocations count from 1";
      return std::nullopt;
    }
    if (fields.size() == 2 && !parse_number(fields[1], spec.stream)) {
      error = "the stream is not a number";
      return std::nullopt;
    }
    if (!fields.empty() && !parse_number(fields[0], spec.context)) {
      error = "the context is not a number";
      return std::nullopt;
    }
    return spec;
  }
  fields = split_fields(text);
  if (fields.size() > 4) {
    error = "more than four fields (context:stream:name:invocation)";
    return std::nullopt;
  }
  // name | context:name | context:stream:name, each with an optional last :invocation.
  // Of four fields the last always is the invocation.
  std::string_view context, stream, name, invocation;
  if (fields.size() == 4 || (fields.size() > 1 && is_invocation(fields.back()))) {
    invocation = fields.back();
    fields.pop_back();
  }
  name = fields.back();
  if (fields.size() > 1) context = fields.front();
  if (fields.size() > 2) stream = fields[1];
  if (!parse_number(context, spec.context)) {
    error = "the context is not a number";
    return std::nullopt;
  }
  if (!parse_number(stream, spec.stream)) {
    error = "the stream is not a number";
    return std::nullopt;
  }
  if (!parse_number(invocation, spec.invocation)) {
    error = "the invocation is not a number";
    return std::nullopt;
  }
  if (spec.invocation == 0u) {
    error = "invocations count from 1";
    return std::nullopt;
  }
  spec.name = std::string(name);
  return spec;
}

}  // namespace computeprof::config
