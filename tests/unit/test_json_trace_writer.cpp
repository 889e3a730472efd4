// The JSON trace writer's file: valid after every flush, one warning past the viewers' limit.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "export_test_support.hpp"
#include "config/report.hpp"
#include "exports/json_trace_writer.hpp"

using namespace computeprof;
using namespace computeprof::exports;

namespace {

using test::collect;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// What `command` prints, and whether it exited 0.
std::string output_of(const std::string& command, bool& ok) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p);
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, p)) > 0;) out.append(buffer, n);
  ok = pclose(p) == 0;
  return out;
}

}  // namespace

TEST_CASE("the trace ends like JSON after every flush, and says once when it grows past the viewers' limit",
          "[exports]") {
  char directory[] = "/tmp/computeprof-json-XXXXXX";
  REQUIRE(mkdtemp(directory));
  test::ExportRun run(std::string(directory) + "/trace.log");
  std::vector<std::string> warnings;
  config::set_warning_sink(collect, &warnings);
  {
    JsonTraceWriter writer(run.facts, run, TraceCompression::none, 20);
    const records::ContextInfo context{1, 0, "gpu", config::Api::cuda, {}, {}};
    records::Record r;
    r.method = "_Z4spiny";
    r.api = "cuLaunchKernel";
    writer.begin();
    for (std::uint64_t i = 1; i <= 3; ++i) {
      r.correlation_id = i;
      writer.write(context, r);
    }
    writer.flush();
    const std::string first = read_text(run.log_template.substr(0, run.log_template.size() - 4) + ".json");
    CHECK(first.ends_with("\n],\"deviceProperties\":[{\"id\":0,\"api\":\"cuda\",\"name\":\"gpu\"}],\"traceName\":\"" +
                          std::string(directory) + "/trace.json\"}\n"));
    CHECK(count_of(first, "\"cat\":\"kernel\"") == 3);
    CHECK(warnings.empty());
    for (std::uint64_t i = 4; i <= 10; ++i) {
      r.correlation_id = i;
      writer.write(context, r);
    }
    writer.end();
    const std::string last = read_text(std::string(directory) + "/trace.json");
    CHECK(count_of(last, "\"cat\":\"kernel\"") == 10);
    CHECK(count_of(last, "traceName") == 1);
    CHECK(last.ends_with("\"}\n"));
  }
  config::set_warning_sink(nullptr, nullptr);
  CHECK(warnings == std::vector<std::string>{"the JSON trace '" + std::string(directory) +
                                             "/trace.json' has more than 20 events: Perfetto UI and chrome://tracing "
                                             "may not open it (Perfetto's trace_processor can)"});
}

TEST_CASE("json.gz: complete gzip members at each flush point, the trace the same as the plain one", "[exports]") {
  char directory[] = "/tmp/computeprof-jsongz-XXXXXX";
  REQUIRE(mkdtemp(directory));
  test::ExportRun run(std::string(directory) + "/trace.log");
  const std::string path = std::string(directory) + "/trace.json.gz";
  JsonTraceWriter writer(run.facts, run, TraceCompression::gzip);
  const records::ContextInfo context{1, 0, "gpu", config::Api::cuda, {}, {}};
  records::Record r;
  r.method = "_Z4spiny";
  r.api = "cuLaunchKernel";
  writer.begin();
  std::vector<std::string> texts;
  for (std::uint64_t round = 0; round < 3; ++round) {
    for (std::uint64_t i = 1; i <= 100; ++i) {
      r.correlation_id = round * 100 + i;
      writer.write(context, r);
    }
    writer.checkpoint();
    // As a process killed now would leave it: a gzip file of the trace so far.
    bool tested = false, decompressed = false;
    output_of("gzip -t " + path + " 2>&1", tested);
    CHECK(tested);
    texts.push_back(output_of("gzip -dc " + path, decompressed));
    CHECK(decompressed);
    CHECK(count_of(texts.back(), "\"cat\":\"kernel\"") == (round + 1) * 100);
    CHECK(count_of(texts.back(), "traceName") == 1);
    CHECK(texts.back().ends_with("/trace.json.gz\"}\n"));
  }
  writer.end();
  bool decompressed = false;
  CHECK(output_of("gzip -dc " + path, decompressed) == texts.back());
  CHECK(decompressed);
  CHECK(texts.back().starts_with("{\"schemaVersion\":1,\"displayTimeUnit\":\"ms\",\"baseTimeNanoseconds\":"));
}

TEST_CASE("exportlimit: the trace stops before the first record at or past the limit, one line counts the rest",
          "[exports]") {
  char directory[] = "/tmp/computeprof-jsonlimit-XXXXXX";
  REQUIRE(mkdtemp(directory));
  test::ExportRun run(std::string(directory) + "/trace.log");
  run.facts.export_limit = 4096;
  std::vector<std::string> warnings;
  config::set_warning_sink(collect, &warnings);
  {
    JsonTraceWriter writer(run.facts, run, TraceCompression::none);
    const records::ContextInfo context{1, 0, "gpu", config::Api::cuda, {}, {}};
    records::Record r;
    r.method = "_Z4spiny";
    r.api = "cuLaunchKernel";
    writer.begin();
    for (std::uint64_t i = 1; i <= 100; ++i) {
      r.correlation_id = i;
      writer.write(context, r);
      if (i == 1) writer.flush();
    }
    writer.end();
  }
  config::set_warning_sink(nullptr, nullptr);
  const std::string path = std::string(directory) + "/trace.json";
  const std::string text = read_text(path);
  const std::size_t kept = count_of(text, "\"cat\":\"kernel\"");
  REQUIRE(kept > 0);
  REQUIRE(kept < 100);
  // At or past the limit with its last record, below it without.
  CHECK(text.size() >= 4096);
  const std::size_t last_record = text.rfind(",\n{\"ph\":\"X\",\"cat\":\"cuda_driver\"");
  const std::size_t tail = text.rfind("\n],\"deviceProperties\"");
  CHECK(last_record + (text.size() - tail) < 4096);
  CHECK(warnings == std::vector<std::string>{"export json '" + path + "' stopped at the export limit of 4096 bytes: " +
                                             std::to_string(100 - kept) + " records left out of it"});
}

TEST_CASE("exportlimit: NVTX events stop with the records, a mark past the limit is not written", "[exports]") {
  char directory[] = "/tmp/computeprof-jsonlimit-XXXXXX";
  REQUIRE(mkdtemp(directory));
  test::ExportRun run(std::string(directory) + "/trace.log");
  run.facts.export_limit = 4096;
  std::vector<std::string> warnings;
  config::set_warning_sink(collect, &warnings);
  {
    JsonTraceWriter writer(run.facts, run, TraceCompression::none);
    const records::ContextInfo context{1, 0, "gpu", config::Api::cuda, {}, {}};
    records::Record r;
    r.method = "_Z4spiny";
    r.api = "cuLaunchKernel";
    records::RangeEvent mark;
    writer.begin();
    r.correlation_id = 1;
    writer.write(context, r);
    writer.write_range(mark);
    writer.flush();
    for (std::uint64_t i = 2; i <= 100; ++i) {
      r.correlation_id = i;
      writer.write(context, r);
    }
    for (int i = 0; i < 50; ++i) writer.write_range(mark);
    writer.end();
  }
  config::set_warning_sink(nullptr, nullptr);
  const std::string path = std::string(directory) + "/trace.json";
  const std::string text = read_text(path);
  const std::size_t kept = count_of(text, "\"cat\":\"kernel\"");
  REQUIRE(kept > 1);
  REQUIRE(kept < 100);
  // The one mark written before the limit; the 50 after it are left out.
  CHECK(count_of(text, "{\"ph\":\"i\",\"cat\":\"user_annotation\"") == 1);
  // NVTX events are not counted among the records left out.
  CHECK(warnings == std::vector<std::string>{"export json '" + path + "' stopped at the export limit of 4096 bytes: " +
                                             std::to_string(100 - kept) + " records left out of it"});
}
