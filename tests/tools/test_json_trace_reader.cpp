// The JSON trace reader: events streamed in order, the header wherever it is, gzip of
// several members the same as plain, and each malformed input one exact error.
#include <zlib.h>

#include <string>
#include <vector>

#include "catch.hpp"
#include "tools/json_trace_reader.hpp"

using namespace computeprof::tools;

namespace {

const std::string kTrace =
    "{\"schemaVersion\":1,\"baseTimeNanoseconds\":1764340000123456789,\"traceEvents\":[\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":42,\"tid\":0,\"args\":{\"name\":\"a\\u00e9\\ud83d\\ude00\\n\"}},\n"
    "{\"ph\":\"X\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":12.500,\"dur\":1e3,\"args\":{\"v\":[1,-2.5E-3,true,null]}}\n"
    "],\"distributedInfo\":{\"rank\":3,\"world_size\":8,\"backend\":\"nccl\"},"
    "\"baseTimeMonotonicNanoseconds\":99,\"hostName\":\"node7\"}\n";

// `text` as one gzip member.
std::string gzip_member(const std::string& text) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, text.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

struct Read {
  std::vector<std::string> events;
  JsonTraceHeader header;
};

Read read(const std::string& bytes) {
  JsonTraceReader reader(memory_bytes(bytes), "t.json");
  Read r;
  r.header = reader.read([&](const JsonValue& event) { append_json(r.events.emplace_back(), event); });
  CHECK(reader.events() == r.events.size());
  return r;
}

std::string error_of(const std::string& bytes) {
  try {
    read(bytes);
  } catch (const JsonTraceError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("JSON trace reader: events in order, as written, and the header after them", "[json_trace]") {
  const auto r = read(kTrace);
  CHECK(r.events == std::vector<std::string>{
                        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":42,\"tid\":0,\"args\":{\"name\":\"a\xc3\xa9"
                        "\xf0\x9f\x98\x80\\u000a\"}}",
                        "{\"ph\":\"X\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":12.500,\"dur\":1e3,\"args\":{\"v\":[1,-2.5E-3,"
                        "true,null]}}"});
  CHECK(r.header.base_time_ns == 1764340000123456789);
  CHECK(r.header.base_monotonic_ns == 99);
  REQUIRE(r.header.distributed);
  CHECK(r.header.distributed->rank == 3);
  CHECK(r.header.distributed->world_size == 8);
  CHECK(r.header.host_name == "node7");
}

TEST_CASE("JSON trace reader: gzip of several members reads as the plain text", "[json_trace]") {
  const auto plain = read(kTrace);
  const auto one = read(gzip_member(kTrace));
  CHECK(one.events == plain.events);
  const auto three = read(gzip_member(kTrace.substr(0, 50)) + gzip_member(kTrace.substr(50, 100)) +
                          gzip_member(kTrace.substr(150)));
  CHECK(three.events == plain.events);
  CHECK(three.header.host_name == "node7");
}

TEST_CASE("JSON trace reader: each malformed input is one error with the name and place", "[json_trace]") {
  const std::string packed = gzip_member(kTrace);
  CHECK(error_of(packed.substr(0, 30)) == "t.json: the gzip data ends inside a member (byte 30)");
  CHECK(error_of(packed + "junk") == "t.json: not valid gzip data in the member from byte " + std::to_string(packed.size()) +
                                         ": incorrect header check");
  CHECK(error_of("[]") == "t.json: line 1, column 1: a JSON trace is an object ('{' expected)");
  CHECK(error_of("{\"a\":1}") == "t.json: line 1, column 8: the trace has no traceEvents");
  CHECK(error_of("{\"traceEvents\":[\n {}, 3]}") ==
        "t.json: line 2, column 6: an element of traceEvents is not an object");
  CHECK(error_of("{\"traceEvents\":[]} x") == "t.json: line 1, column 20: text after the trace's closing '}'");
  CHECK(error_of("{\"traceEvents\":[{\"a\":\"\\ud800x\"}]}") ==
        "t.json: line 1, column 30: a lone UTF-16 surrogate in \\u");
  CHECK(error_of("{\"traceEvents\":[{\"a\":01}]}") ==
        "t.json: line 1, column 23: ',' or '}' is expected after a member");
  CHECK(error_of("{\"traceEvents\":[{\"a\":" + std::string(70, '[')) ==
        "t.json: line 1, column 85: nested deeper than 64 levels");
  CHECK(error_of("{\"baseTimeNanoseconds\":-1,\"traceEvents\":[]}") ==
        "t.json: line 1, column 26: baseTimeNanoseconds is not a non-negative integer");
  CHECK(error_of("{\"distributedInfo\":{\"world_size\":2},\"traceEvents\":[]}") ==
        "t.json: line 1, column 36: distributedInfo has no rank");
}
