#include "tools/json_trace_stats.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "tools/json_trace_reader.hpp"
#include "tools/trace_bytes.hpp"

namespace computeprof::tools {
namespace {

// An event's malformed field, reported with the event's number.
struct BadEvent {
  std::string what;
};

// A time the trace writes in microseconds with up to three decimals ("12.345"), in ns.
std::optional<std::uint64_t> microseconds_to_ns(const JsonValue* value) {
  if (value == nullptr || value->kind != JsonValue::Kind::number) return std::nullopt;
  const std::string_view text = value->text;
  std::uint64_t ns = 0;
  std::size_t at = 0;
  int integer_digits = 0;
  for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, ++integer_digits) {
    if (integer_digits == 15) return std::nullopt;  // past any trace's span, and past uint64 in ns
    ns = ns * 10 + static_cast<std::uint64_t>(text[at] - '0');
  }
  if (integer_digits == 0) return std::nullopt;
  int decimals = 0;
  if (at < text.size() && text[at] == '.') {
    for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9' && decimals < 3; ++at, ++decimals) {
      ns = ns * 10 + static_cast<std::uint64_t>(text[at] - '0');
    }
    if (decimals == 0) return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;  // a sign, an exponent or a fourth decimal
  for (; decimals < 3; ++decimals) ns *= 10;
  return ns;
}

std::uint64_t required_time(const JsonValue& event, std::string_view key) {
  const std::optional<std::uint64_t> ns = microseconds_to_ns(event.find(key));
  if (!ns) throw BadEvent{fmt::format("'{}' is not a time in microseconds with at most three decimals", key)};
  return *ns;
}

// The log's method of a GPU operation's event, or nothing for events that are none
// (graph launches timed as a whole are left out, as the summary leaves them out).
std::optional<std::string> operation_method(const JsonValue& event, std::string_view category) {
  const std::optional<std::string_view> name = event.string_member("name");
  if (!name) throw BadEvent{"a GPU event without a name"};
  if (category == "kernel") {
    const JsonValue* args = event.find("args");
    const std::optional<std::string_view> method = args ? args->string_member("method") : std::nullopt;
    return std::string(method ? *method : *name);
  }
  if (category == "gpu_memset") return std::string("memset");
  if (category == "gpu_memcpy") {
    // "Memcpy HtoD (Pageable -> Device)": the log's memcpyHtoD (its async form adds up
    // in the same row).
    constexpr std::string_view kPrefix = "Memcpy ";
    if (!name->starts_with(kPrefix)) throw BadEvent{"a copy whose name is not 'Memcpy <kind> ...'"};
    const std::string_view kind = name->substr(kPrefix.size(), name->find(' ', kPrefix.size()) - kPrefix.size());
    if (kind.empty()) throw BadEvent{"a copy whose name is not 'Memcpy <kind> ...'"};
    return "memcpy" + std::string(kind);
  }
  return std::nullopt;
}

class TraceStats {
 public:
  explicit TraceStats(StatsInput& input) : input_(input) {}

  void add(const JsonValue& event) {
    const std::optional<std::string_view> category = event.string_member("cat");
    const std::optional<std::string_view> phase = event.string_member("ph");
    if (!category || !phase) return;  // metadata, flows, counters
    if (*category == "user_annotation") return add_range(event, *phase);
    if (*phase != "X") return;
    if (is_call_category(*category)) return add_call(event);
    const std::optional<std::string> method = operation_method(event, *category);
    if (!method) return;
    const std::uint64_t gputime_ns = required_time(event, "dur");
    input_.operations.add(*method, gputime_ns);
    const JsonValue* args = event.find("args");
    const std::optional<std::string_view> path = args ? args->string_member("nvtx range") : std::nullopt;
    if (path && !path->empty()) input_.ranges.add_gpu_time_of_path(*path, gputime_ns);
  }

 private:
  // The categories of the calls' complete events: traced calls and the calls that made
  // operations (their host events). A trace has no memory event's call.
  static bool is_call_category(std::string_view category) {
    return category == "cuda_driver" || category == "cuda_runtime" || category == "opencl_api";
  }

  // A call; a traced one says what it returned (`result`), an operation's call succeeded.
  void add_call(const JsonValue& event) {
    const std::optional<std::string_view> name = event.string_member("name");
    if (!name) throw BadEvent{"a call without a name"};
    const JsonValue* args = event.find("args");
    const JsonValue* result = args ? args->find("result") : nullptr;
    const bool failed = result != nullptr && result->text != "0";
    input_.api_calls.add(*name, required_time(event, "dur"), failed);
  }

  // Push/pop ranges are complete events; start/end ranges an async begin and end by id.
  void add_range(const JsonValue& event, std::string_view phase) {
    const std::optional<std::string_view> name = event.string_member("name");
    if (!name) throw BadEvent{"an NVTX range without a name"};
    if (phase == "X") return input_.ranges.add_range(*name, required_time(event, "dur"));
    if (phase != "b" && phase != "e") return;
    const JsonValue* id = event.find("id");
    if (id == nullptr || (id->kind != JsonValue::Kind::number && id->kind != JsonValue::Kind::string)) {
      throw BadEvent{"an async NVTX range without an id"};
    }
    const std::uint64_t ts = required_time(event, "ts");
    if (phase == "b") {
      open_[id->text] = {std::string(*name), ts};
      return;
    }
    const auto open = open_.find(id->text);
    if (open == open_.end()) return;  // an end whose begin the trace does not hold
    input_.ranges.add_range(open->second.first, ts >= open->second.second ? ts - open->second.second : 0);
    open_.erase(open);
  }

  StatsInput& input_;
  std::unordered_map<std::string, std::pair<std::string, std::uint64_t>> open_;
};

}  // namespace

std::string add_json_trace(const std::string& path, const std::string& shown_path, StatsInput& input) {
  try {
    JsonTraceReader reader(file_bytes(path), shown_path);
    TraceStats stats(input);
    const JsonTraceHeader header = reader.read([&](const JsonValue& event) {
      try {
        stats.add(event);
      } catch (const BadEvent& bad) {
        throw JsonTraceError(fmt::format("{}: event {}: {}", shown_path, reader.events(), bad.what));
      }
    });
    if (header.distributed && header.distributed->rank >= 0) {
      input.rank = static_cast<std::uint64_t>(header.distributed->rank);
    }
    return {};
  } catch (const JsonTraceError& error) {
    return error.what();
  } catch (const TraceBytesError& error) {
    return fmt::format("{}: {}", shown_path, error.what());
  }
}

}  // namespace computeprof::tools
