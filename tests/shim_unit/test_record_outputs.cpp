// Which records reach which sinks, and when sinks begin, flush, end and let go.
#include <memory>
#include <string>
#include <vector>

#include "catch.hpp"
#include "shim/output/record_outputs.hpp"
#include "exports/sqlite_schema.hpp"
#include "shim/process/record_fields.hpp"

using namespace computeprof::shim;
using computeprof::exports::sqlite_schema;
using computeprof::records::Record;

namespace {

// Every call a sink gets, as "<sink>:<call>" lines.
struct CallLog {
  std::vector<std::string> calls;
};

class LoggingSink final : public RecordSink {
 public:
  LoggingSink(CallLog& log, std::string name) : log_(log), name_(std::move(name)) {}
  void begin() override { say("begin"); }
  void write(const ProfiledContext& context, const Record& record) override {
    say("write " + std::to_string(context.number) + " " + std::string(record.method));
  }
  void flush() override { say("flush"); }
  void end() override { say("end"); }
  void abandon() override { say("abandon"); }

 private:
  void say(const std::string& what) { log_.calls.push_back(name_ + ":" + what); }
  CallLog& log_;
  std::string name_;
};

RecordOutputs outputs_logging_to(CallLog& log) {
  return RecordOutputs(
      [&log](const ProfiledContext& context) {
        SinkList sinks;
        sinks.push_back(std::make_unique<LoggingSink>(log, "ctx" + std::to_string(context.number)));
        return sinks;
      },
      [&log] {
        SinkList sinks;
        sinks.push_back(std::make_unique<LoggingSink>(log, "process"));
        return sinks;
      });
}

Record named(const char* method) {
  Record r;
  r.method = method;
  return r;
}

}  // namespace

TEST_CASE("records reach their context's sinks and the process's, each sink begun before its first record",
          "[outputs]") {
  CallLog log;
  RecordOutputs outputs = outputs_logging_to(log);
  ProfiledContext one{{1, 0, "gpu", {}, {}, {}}, nullptr};
  ProfiledContext two{{2, 0, "gpu", {}, {}, {}}, nullptr};
  outputs.write(one, named("a"));
  outputs.write(two, named("b"));
  outputs.write(one, named("c"));
  outputs.flush();
  CHECK(log.calls == std::vector<std::string>{
                         "ctx1:begin", "ctx1:write 1 a", "process:begin", "process:write 1 a",  //
                         "ctx2:begin", "ctx2:write 2 b", "process:write 2 b",                   //
                         "ctx1:write 1 c", "process:write 1 c",                                 //
                         "ctx1:flush", "ctx2:flush", "process:flush"});
}

TEST_CASE("an ended context's sinks end once and get nothing after, the process's sinks go on", "[outputs]") {
  CallLog log;
  RecordOutputs outputs = outputs_logging_to(log);
  ProfiledContext one{{1, 0, "gpu", {}, {}, {}}, nullptr};
  outputs.write(one, named("a"));
  log.calls.clear();
  outputs.end_context(one);
  outputs.end_context(one);
  outputs.write(one, named("late"));
  outputs.flush();
  CHECK(log.calls == std::vector<std::string>{"ctx1:end", "process:flush", "process:flush", "process:write 1 late",
                                              "process:flush"});
}

TEST_CASE("once the process's sinks end, records reach their contexts' sinks only, old contexts and new",
          "[outputs]") {
  CallLog log;
  RecordOutputs outputs = outputs_logging_to(log);
  ProfiledContext one{{1, 0, "gpu", {}, {}, {}}, nullptr};
  ProfiledContext two{{2, 0, "gpu", {}, {}, {}}, nullptr};
  outputs.write(one, named("a"));
  outputs.write(one, named("b"));
  log.calls.clear();
  outputs.end_process();
  outputs.end_process();
  outputs.write(one, named("c"));
  outputs.write(two, named("d"));
  outputs.write(one, named("e"));
  CHECK(log.calls == std::vector<std::string>{"process:end", "ctx1:write 1 c", "ctx2:begin", "ctx2:write 2 d",
                                              "ctx1:write 1 e"});
}

TEST_CASE("records of one context go on reaching its sinks while other contexts come and go", "[outputs]") {
  CallLog log;
  RecordOutputs outputs = outputs_logging_to(log);
  ProfiledContext one{{1, 0, "gpu", {}, {}, {}}, nullptr};
  ProfiledContext nine{{9, 0, "gpu", {}, {}, {}}, nullptr};
  outputs.write(one, named("a"));
  log.calls.clear();
  outputs.end_context(nine);  // never written: nothing of it is made, though there is room for it now
  outputs.write(one, named("b"));
  outputs.write(nine, named("c"));
  outputs.write(one, named("d"));
  CHECK(log.calls == std::vector<std::string>{"process:flush", "ctx1:write 1 b", "process:write 1 b",
                                              "process:write 9 c", "ctx1:write 1 d", "process:write 1 d"});
}

TEST_CASE("nothing is made for a context that never had a record", "[outputs]") {
  CallLog log;
  RecordOutputs outputs = outputs_logging_to(log);
  ProfiledContext three{{3, 0, "gpu", {}, {}, {}}, nullptr};
  outputs.end_context(three);
  outputs.flush();
  CHECK(log.calls.empty());
}

TEST_CASE("a forked child lets every sink go, then starts afresh", "[outputs]") {
  CallLog log;
  RecordOutputs outputs = outputs_logging_to(log);
  ProfiledContext one{{1, 0, "gpu", {}, {}, {}}, nullptr};
  outputs.write(one, named("a"));
  log.calls.clear();
  outputs.abandon();
  outputs.write(one, named("b"));
  CHECK(log.calls == std::vector<std::string>{"ctx1:abandon", "process:abandon", "ctx1:begin", "ctx1:write 1 b",
                                              "process:begin", "process:write 1 b"});
}

TEST_CASE("collectors compute the stream id and cache configuration only where an output shows them", "[outputs]") {
  using computeprof::config::Option;
  computeprof::config::Settings settings;
  CHECK(record_fields(settings) == RecordFields{false, false});
  settings.config.set(Option::streamid);
  CHECK(record_fields(settings) == RecordFields{true, false});
  settings.config.set(Option::cacheconfigexecuted);
  CHECK(record_fields(settings) == RecordFields{true, true});
  computeprof::config::Settings requested;
  requested.config.set(Option::cacheconfigrequested);
  CHECK(record_fields(requested) == RecordFields{false, true});
  computeprof::config::Settings exported;
  exported.config.exports.set(static_cast<std::size_t>(computeprof::config::ExportFormat::json));
  CHECK(record_fields(exported) == RecordFields{true, true});
}

TEST_CASE("the SQLite export's enum tables as nsys writes them: (id, name, label) and every row", "[outputs]") {
  const std::string schema = sqlite_schema();
  CHECK(schema.starts_with("\nCREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);\n"));
  CHECK(schema.find("CREATE TABLE ENUM_CUDA_DEV_MEM_EVENT_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
                    "INSERT INTO ENUM_CUDA_DEV_MEM_EVENT_OPER VALUES\n"
                    "  (0, 'CUDA_DEV_MEM_EVENT_OPR_ALLOCATION', 'Allocation'), "
                    "(1, 'CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION', 'Deallocation');\n"
                    "CREATE TABLE ENUM_NSYS_EVENT_CLASS (") != std::string::npos);
  CHECK(schema.ends_with("(3, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE', 'Stream sync'), "
                         "(4, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE', 'Context sync');\n"));
  const auto count = [&](std::string_view text) {
    std::size_t n = 0;
    for (std::size_t at = schema.find(text); at != std::string::npos; at = schema.find(text, at + 1)) ++n;
    return n;
  };
  CHECK(count("CREATE TABLE ENUM_") == 7);
  CHECK(count(" name TEXT, label TEXT);\n") == 7);
  CHECK(count("'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_") == 5);
  CHECK(count("'CUDA_MEMCPY_KIND_") == 14);
  CHECK(count("'CUDA_MEMOPR_MEMORY_KIND_") == 8);
}
