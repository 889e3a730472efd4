#include "catch.hpp"

#include "config/profile_config.hpp"
#include "warning_capture.hpp"

using namespace computeprof::config;
using computeprof::test::WarningCapture;

TEST_CASE("options, counters, comments and white space", "[config]") {
  WarningCapture warnings;
  auto cfg = parse_profile_config(
      "# a comment\n"
      "\n"
      "  gridsize  \n"
      "\tthreadblocksize\r\n"
      "   # indented comment\n"
      "gld_request\r\n"
      "memtransfersize\n"
      "timestamp",
      "cfg");
  CHECK(warnings.lines().empty());
  CHECK(cfg.has(Option::gridsize));
  CHECK(cfg.has(Option::threadblocksize));
  CHECK(cfg.has(Option::memtransfersize));
  CHECK(cfg.has(Option::timestamp));
  CHECK_FALSE(cfg.has(Option::gridsize3d));
  CHECK(cfg.options.count() == 4);
  CHECK(cfg.counters.count() == 1);
  CHECK(cfg.counters.test(*find_legacy_counter("gld_request")));
  CHECK(cfg.enable_on_start);
  CHECK_FALSE(cfg.log_format);
}

TEST_CASE("every option of docs/format.md is known", "[config]") {
  WarningCapture warnings;
  auto cfg = parse_profile_config(
      "timestamp\ngpustarttimestamp\ngpuendtimestamp\ngridsize\ngridsize3d\nthreadblocksize\n"
      "dynsmemperblock\nstasmemperblock\nregperthread\nmemtransferdir\nmemtransfersize\n"
      "memtransferhostmemtype\nstreamid\ncacheconfigrequested\ncacheconfigexecuted\n"
      "countermodeaggregate\nconckerneltrace\nlocalblocksize\nnvtxrange\n",
      "cfg");
  CHECK(warnings.lines().empty());
  CHECK(cfg.options.count() == kOptionCount);
}

TEST_CASE("OpenCL spellings set the same options", "[config]") {
  WarningCapture warnings;
  auto cfg = parse_profile_config("ndrangesize\nworkgroupsize\nstapmemperworkgroup\nregperworkitem\n", "cfg");
  CHECK(warnings.lines().empty());
  CHECK(cfg.has(Option::gridsize));
  CHECK(cfg.has(Option::threadblocksize));
  CHECK(cfg.has(Option::stasmemperblock));
  CHECK(cfg.has(Option::regperthread));
  CHECK(cfg.options.count() == 4);
}

TEST_CASE("every counter name of docs/counters.md is accepted", "[config]") {
  WarningCapture warnings;
  std::string text;
  for (const auto& c : legacy_counters()) text += std::string(c.name) + "\n";
  auto cfg = parse_profile_config(text, "cfg");
  CHECK(warnings.lines().empty());
  CHECK(cfg.counters.count() == kLegacyCounterCount);
}

TEST_CASE("enableonstart and profilelogformat take values", "[config]") {
  WarningCapture warnings;
  auto off = parse_profile_config("enableonstart 0\nprofilelogformat CSV\n", "cfg");
  CHECK_FALSE(off.enable_on_start);
  CHECK(off.log_format == LogFormat::csv);
  auto on = parse_profile_config("enableonstart 0\nenableonstart\t1\nprofilelogformat KVP\n", "cfg");
  CHECK(on.enable_on_start);
  CHECK(on.log_format == LogFormat::kvp);
  CHECK(warnings.lines().empty());
}

TEST_CASE("bad values are warned about with file and line", "[config]") {
  WarningCapture warnings;
  auto cfg = parse_profile_config("enableonstart yes\nprofilelogformat csv\ngridsize 2\n", "my.cfg");
  CHECK(cfg.enable_on_start);
  CHECK_FALSE(cfg.log_format);
  CHECK(cfg.has(Option::gridsize));
  REQUIRE(warnings.lines().size() == 3);
  CHECK(warnings.lines()[0] == "my.cfg:1: enableonstart needs 0 or 1, not 'yes'; keeping 1");
  CHECK(warnings.lines()[1] == "my.cfg:2: profilelogformat needs CSV or KVP, not 'csv'; ignored");
  CHECK(warnings.lines()[2] == "my.cfg:3: 'gridsize' takes no value; '2' ignored");
}

TEST_CASE("unknown names are warned about with file and line, and skipped", "[config]") {
  WarningCapture warnings;
  auto cfg = parse_profile_config("gridsize\nGridSize\n\n# x\ninst_exec\nstreamid\n", "/tmp/p.cfg");
  CHECK(cfg.has(Option::gridsize));
  CHECK(cfg.has(Option::streamid));
  CHECK(cfg.options.count() == 2);
  CHECK(cfg.counters.none());
  REQUIRE(warnings.lines().size() == 2);
  CHECK(warnings.lines()[0] == "/tmp/p.cfg:2: unknown name 'GridSize', skipped");
  CHECK(warnings.lines()[1] == "/tmp/p.cfg:5: unknown name 'inst_exec', skipped");
}

TEST_CASE("a UTF-8 byte order mark is not part of the first name", "[config]") {
  WarningCapture warnings;
  auto cfg = parse_profile_config("\xEF\xBB\xBFgridsize\r\nstreamid\r\n", "cfg");
  CHECK(warnings.lines().empty());
  CHECK(cfg.has(Option::gridsize));
  CHECK(cfg.has(Option::streamid));
}

TEST_CASE("conckerneltrace drops counters with the old profiler's rule", "[config]") {
  WarningCapture warnings;
  auto cfg = parse_profile_config("inst_executed\nconckerneltrace\ngld_request\n", "c.cfg");
  CHECK(cfg.has(Option::conckerneltrace));
  CHECK(cfg.counters.none());
  CHECK(cfg.counters_dropped);
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] == "c.cfg: counters cannot be collected with conckerneltrace; counters ignored");

  auto alone = parse_profile_config("conckerneltrace\n", "c.cfg");
  CHECK_FALSE(alone.counters_dropped);
  CHECK(warnings.lines().size() == 1);
}

TEST_CASE("export and summary: formats on one line or several, an unknown one is one warning", "[config]") {
  WarningCapture warnings;
  auto cfg = parse_profile_config("export json\nsummary\n", "cfg");
  CHECK(warnings.lines().empty());
  CHECK(cfg.exports_to(ExportFormat::json));
  CHECK_FALSE(cfg.exports_to(ExportFormat::sqlite));
  CHECK(cfg.summary);

  auto both = parse_profile_config("export json, sqlite\n", "cfg");
  CHECK(both.exports_to(ExportFormat::json));
  CHECK(both.exports_to(ExportFormat::sqlite));
  CHECK_FALSE(both.summary);
  auto lines = parse_profile_config("export sqlite\nexport json\n", "cfg");
  CHECK(lines.exports.count() == 2);
  auto all = parse_profile_config("export json,sqlite,nvprof\n", "cfg");
  CHECK(all.exports.count() == 3);
  CHECK(all.exports_to(ExportFormat::nvprof));
  CHECK(warnings.lines().empty());

  auto perfetto = parse_profile_config("export pftrace\nexport json.gz, pftrace\n", "cfg");
  CHECK(perfetto.exports_to(ExportFormat::pftrace));
  CHECK(perfetto.exports_to(ExportFormat::json_gz));
  CHECK(perfetto.exports.count() == 2);
  CHECK(warnings.lines().empty());

  auto bad = parse_profile_config("export perfetto,json\nexport\nsummary yes\n", "cfg");
  CHECK(bad.exports_to(ExportFormat::json));
  CHECK(bad.exports.count() == 1);
  CHECK(bad.summary);
  CHECK(warnings.lines() == std::vector<std::string>{"cfg:1: unknown export format 'perfetto' (json, json.gz, pftrace, sqlite, nvprof, cprof), ignored",
                                                     "cfg:2: export needs a format: json, json.gz, pftrace, sqlite, nvprof or cprof",
                                                     "cfg:3: 'summary' takes no value; 'yes' ignored"});
}

TEST_CASE("export cprof keeps the run file, exportwhen is exit or later, anything else one warning", "[config]") {
  WarningCapture warnings;
  auto cfg = parse_profile_config("export cprof,sqlite\n", "cfg");
  CHECK(cfg.exports_to(ExportFormat::cprof));
  CHECK(cfg.exports_to(ExportFormat::sqlite));
  CHECK(cfg.exports.count() == 2);
  CHECK_FALSE(cfg.export_later);
  CHECK(parse_profile_config("exportwhen later\n", "cfg").export_later);
  CHECK_FALSE(parse_profile_config("exportwhen later\nexportwhen exit\n", "cfg").export_later);
  CHECK(warnings.lines().empty());
  CHECK_FALSE(parse_profile_config("exportwhen never\n", "cfg").export_later);
  CHECK(warnings.lines() == std::vector<std::string>{"cfg:1: exportwhen needs exit or later, not 'never'; ignored"});
}

TEST_CASE("memtrace: a line of its own, no value", "[config]") {
  WarningCapture warnings;
  CHECK_FALSE(parse_profile_config("summary\n", "cfg").memtrace);
  CHECK(parse_profile_config("memtrace\n", "cfg").memtrace);
  CHECK(warnings.lines().empty());
  CHECK(parse_profile_config("memtrace on\n", "cfg").memtrace);
  CHECK(warnings.lines() == std::vector<std::string>{"cfg:1: 'memtrace' takes no value; 'on' ignored"});
}

TEST_CASE("apitrace: on by default with an export, on or off as asked, anything else one warning", "[config]") {
  WarningCapture warnings;
  CHECK_FALSE(parse_profile_config("summary\n", "cfg").traces_api_calls());
  CHECK(parse_profile_config("export json\n", "cfg").traces_api_calls());
  CHECK(parse_profile_config("apitrace\n", "cfg").traces_api_calls());
  CHECK(parse_profile_config("apitrace on\n", "cfg").traces_api_calls());
  CHECK_FALSE(parse_profile_config("export sqlite\napitrace off\n", "cfg").traces_api_calls());
  CHECK(warnings.lines().empty());
  const auto cfg = parse_profile_config("export json\napitrace sometimes\n", "cfg");
  CHECK_FALSE(cfg.api_trace.has_value());
  CHECK(cfg.traces_api_calls());
  CHECK(warnings.lines() == std::vector<std::string>{"cfg:2: apitrace needs on or off, not 'sometimes'; ignored"});
}

TEST_CASE("warnings escape the source name and the values they echo", "[config]") {
  WarningCapture warnings;
  auto cfg = parse_profile_config("enableonstart 1\v0\n" + std::string(300, 'n') + "\n", "a\nb.cfg");
  CHECK(cfg.enable_on_start);
  REQUIRE(warnings.lines().size() == 2);
  CHECK(warnings.lines()[0] == "a\\nb.cfg:1: enableonstart needs 0 or 1, not '1\\x0b0'; keeping 1");
  CHECK(warnings.lines()[1] == "a\\nb.cfg:2: unknown name '" + std::string(200, 'n') + "...', skipped");
}

TEST_CASE("exportlimit: a size in bytes, K, M or G, anything else one warning and no limit", "[config]") {
  const auto limit_of = [](const std::string& line, std::vector<std::string>* warnings = nullptr) {
    WarningCapture capture;
    const ProfileConfig c = parse_profile_config(line + "\n", "cfg");
    if (warnings) *warnings = capture.lines();
    return c.export_limit;
  };
  CHECK(limit_of("exportlimit 4096") == 4096);
  CHECK(limit_of("exportlimit 64K") == 65536);
  CHECK(limit_of("exportlimit 500M") == 500ull << 20);
  CHECK(limit_of("exportlimit 2G") == 2ull << 30);
  std::vector<std::string> warnings;
  CHECK(limit_of("exportlimit 5T", &warnings) == 0);
  CHECK(warnings == std::vector<std::string>{"cfg:1: exportlimit needs a size such as 500M (bytes, K, M, G), not '5T'; ignored"});
  CHECK(limit_of("exportlimit 0", &warnings) == 0);
  CHECK(limit_of("exportlimit", &warnings) == 0);
  CHECK(limit_of("exportlimit 99999999999999G", &warnings) == 0);
  CHECK(warnings.size() == 1);
}

TEST_CASE("flightrecorder: seconds with up to nine decimals, at most a day, anything else one warning and no window",
          "[config]") {
  const auto window_of = [](const std::string& line, std::vector<std::string>* warnings = nullptr) {
    WarningCapture capture;
    const ProfileConfig c = parse_profile_config(line + "\n", "cfg");
    if (warnings) *warnings = capture.lines();
    return c.flight_recorder_ns;
  };
  CHECK(window_of("flightrecorder 30") == 30'000'000'000ull);
  CHECK(window_of("flightrecorder 0.5") == 500'000'000ull);
  CHECK(window_of("flightrecorder 0.000000001") == 1);
  CHECK(window_of("flightrecorder 86400") == 86'400'000'000'000ull);
  std::vector<std::string> warnings;
  CHECK(window_of("flightrecorder soon", &warnings) == 0);
  CHECK(warnings ==
        std::vector<std::string>{"cfg:1: flightrecorder needs a number of seconds such as 30 or 0.5, not 'soon'; ignored"});
  for (const char* bad : {"flightrecorder 0", "flightrecorder 0.0", "flightrecorder", "flightrecorder 1.", "flightrecorder .5",
                          "flightrecorder 1.0000000001", "flightrecorder 86401", "flightrecorder 30s", "flightrecorder -1",
                          "flightrecorder 99999999999999999999"}) {
    INFO(bad);
    CHECK(window_of(bad, &warnings) == 0);
    CHECK(warnings.size() == 1);
  }
}

TEST_CASE("flightrecordertrigger: the path as written, without one a warning", "[config]") {
  WarningCapture capture;
  CHECK(parse_profile_config("flightrecordertrigger /tmp/dump now\n", "cfg").flight_recorder_trigger == "/tmp/dump now");
  CHECK(capture.lines().empty());
  CHECK(parse_profile_config("flightrecordertrigger\n", "cfg").flight_recorder_trigger.empty());
  CHECK(capture.lines() == std::vector<std::string>{"cfg:1: flightrecordertrigger needs a path; ignored"});
}
