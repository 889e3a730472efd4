// libFuzzer target for the JSON trace reader (computeprof merge, and any command that
// reads traces from other people): one input is a trace's bytes, plain or gzip. Besides
// the sanitizers' checks, an error must be one line naming the trace, and every event
// read must come out of append_json as text that reads back to the same event.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tools/json_trace_reader.hpp"

namespace {

using namespace computeprof::tools;

std::string round_trip(const std::string& text) {
  const std::string wrapped = "{\"traceEvents\":[" + text + "]}";
  JsonTraceReader reader(memory_bytes(wrapped), "again");
  std::string again;
  reader.read([&](const JsonValue& event) { append_json(again, event); });
  return again;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  JsonTraceReader reader(memory_bytes(std::string_view(reinterpret_cast<const char*>(data), size)), "trace");
  try {
    reader.read([](const JsonValue& event) {
      std::string text;
      append_json(text, event);
      if (round_trip(text) != text) __builtin_trap();
    });
  } catch (const JsonTraceError& e) {
    const std::string_view what = e.what();
    if (!what.starts_with("trace: ") || what.find('\n') != std::string_view::npos) __builtin_trap();
  }
  return 0;
}
