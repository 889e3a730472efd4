// computeprof report: its command line and errors, and the page's data: the tables of
// `stats --format json` for the same files byte for byte (summary, --ranks, --compare),
// and the timeline's tracks of the run files.
#include <sys/stat.h>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "catch.hpp"
#include "config/report.hpp"
#include "records/range_table.hpp"
#include "runfile/run_encoder.hpp"
#include "runfile/run_header.hpp"
#include "scratch_directory.hpp"
#include "tools/base64_text.hpp"
#include "tools/report_command.hpp"
#include "tools/stats.hpp"

using computeprof::tools::ReportOptions;
using computeprof::tools::UsageError;
using Strings = std::vector<std::string>;

namespace {

std::variant<ReportOptions, UsageError> parse_report(std::vector<std::string_view> args) {
  return computeprof::tools::parse_report_command_line(args);
}

std::string report_usage_message(std::vector<std::string_view> args) {
  const auto parsed = parse_report(std::move(args));
  REQUIRE(std::holds_alternative<UsageError>(parsed));
  return std::get<UsageError>(parsed).message;
}

std::string read_report_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool report_file_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// What write_report returned and warned.
struct ReportRunResult {
  int status = 0;
  Strings warnings;
};

ReportRunResult run_report_command(const ReportOptions& options) {
  ReportRunResult run;
  computeprof::config::set_warning_sink(
      [](std::string_view line, void* user) { static_cast<Strings*>(user)->emplace_back(line); }, &run.warnings);
  run.status = computeprof::tools::write_report(options);
  computeprof::config::set_warning_sink(nullptr, nullptr);
  return run;
}

std::string report_stats_json(computeprof::tools::StatsOptions options) {
  options.format = computeprof::reports::TableFormat::json;
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  computeprof::tools::print_stats(options, out);
  std::rewind(out);
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, out)) > 0;) text.append(buffer, n);
  std::fclose(out);
  return text;
}

std::string report_from_base64(std::string_view text) {
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (const char c : text) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    if (c >= '0' && c <= '9') v = c - '0' + 52;
    if (c == '+') v = 62;
    if (c == '/') v = 63;
    if (v < 0) continue;
    bits = bits << 6 | static_cast<unsigned>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  return out;
}

// The decoded contents of the page's data element `id`; nullopt when it has none.
std::optional<std::string> report_page_data(const std::string& page, std::string_view id) {
  const std::string open = fmt::format("id=\"{}\"", id);
  const std::size_t at = page.find(open);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t begin = page.find('>', at) + 1;
  return report_from_base64(std::string_view(page).substr(begin, page.find('<', begin) - begin));
}

// rank0, rank1 and base.cprof of tests/tools/report_runs.cpp in `dir`.
void write_report_sample_runs(const ScratchDirectory& dir) {
  REQUIRE(std::system(fmt::format("'{}' '{}'", REPORT_RUNS_PATH, dir.path().native()).c_str()) == 0);
}

}  // namespace

TEST_CASE("report: base64 as RFC 4648's examples", "[report]") {
  using computeprof::tools::base64_text;
  CHECK(base64_text("") == "");
  CHECK(base64_text("f") == "Zg==");
  CHECK(base64_text("fo") == "Zm8=");
  CHECK(base64_text("foo") == "Zm9v");
  CHECK(base64_text("foob") == "Zm9vYg==");
  CHECK(base64_text("fooba") == "Zm9vYmE=");
  CHECK(base64_text("foobar") == "Zm9vYmFy");
  CHECK(base64_text(std::string_view("\xff\x00\xfe", 3)) == "/wD+");
}

TEST_CASE("report: the command line, and each mistake in it named", "[report]") {
  const auto parsed = parse_report({"--compare", "b1.cprof", "b2.cprof", "--", "a.cprof", "-o", "out.html", "-f", "c.db"});
  REQUIRE(std::holds_alternative<ReportOptions>(parsed));
  const ReportOptions& options = std::get<ReportOptions>(parsed);
  CHECK(options.base == Strings{"b1.cprof", "b2.cprof"});
  CHECK(options.files == Strings{"a.cprof", "c.db"});
  CHECK(options.output == "out.html");
  CHECK(options.overwrite);

  const auto with_equals = parse_report({"--output=r.html", "--", "-odd.cprof"});
  REQUIRE(std::holds_alternative<ReportOptions>(with_equals));
  CHECK(std::get<ReportOptions>(with_equals).files == Strings{"-odd.cprof"});
  CHECK(std::get<ReportOptions>(with_equals).output == "r.html");
  CHECK_FALSE(std::get<ReportOptions>(with_equals).overwrite);

  CHECK(report_usage_message({"-o", "r.html"}) ==
        "report needs at least one run file, log, database or JSON trace (see computeprof --help)");
  CHECK(report_usage_message({"a.cprof"}) == "report needs -o OUT.html, the page to write (see computeprof --help)");
  CHECK(report_usage_message({"a.cprof", "-o"}) == "report: -o needs the page's path (see computeprof --help)");
  CHECK(report_usage_message({"--compare", "b.cprof", "a.cprof", "-o", "r.html"}) ==
        "report --compare needs BASE... -- FILE... (at least one file each) (see computeprof --help)");
  CHECK(report_usage_message({"a.cprof", "--compare", "b.cprof", "--", "c.cprof", "-o", "r.html"}) ==
        "report: --compare comes before the files (see computeprof --help)");
  CHECK(report_usage_message({"--ranks", "a.cprof", "-o", "r.html"}) ==
        "report: unknown option '--ranks' (a file whose name starts with '-': ./--ranks) (see computeprof --help)");
}

TEST_CASE("report: an existing page is kept without -f, an input never overwritten, a bad input leaves no page",
          "[report]") {
  const ScratchDirectory dir;
  write_report_sample_runs(dir);
  ReportOptions options;
  options.files = {dir / "rank0.cprof"};
  options.output = dir / "old.html";
  std::ofstream(options.output) << "keep me";

  const ReportRunResult kept = run_report_command(options);
  CHECK(kept.status == 1);
  CHECK(kept.warnings == Strings{fmt::format("report: '{}' exists; -f overwrites it", options.output)});
  CHECK(read_report_file(options.output) == "keep me");

  options.overwrite = true;
  const ReportRunResult forced = run_report_command(options);
  CHECK(forced.status == 0);
  CHECK(forced.warnings.empty());
  CHECK(read_report_file(options.output).starts_with("<!DOCTYPE html>\n"));

  options.output = dir / "rank0.cprof";
  const std::string run_file = read_report_file(options.output);
  const ReportRunResult input = run_report_command(options);
  CHECK(input.status == 1);
  CHECK(input.warnings == Strings{fmt::format("report: '{}' is an input; it is not overwritten", options.output)});
  CHECK(read_report_file(options.output) == run_file);

  std::ofstream(dir / "broken.csv") << "method,gputime\n_Z4spiny,not a number\n";
  options.files = {dir / "rank0.cprof", dir / "broken.csv"};
  options.output = dir / "new.html";
  const ReportRunResult bad = run_report_command(options);
  CHECK(bad.status == 1);
  REQUIRE(bad.warnings.size() == 1);
  CHECK(bad.warnings[0].starts_with(dir / "broken.csv"));
  CHECK_FALSE(report_file_exists(options.output));
}

TEST_CASE("report: the page holds stats' JSON byte for byte: the files, --ranks, each file, --compare", "[report]") {
  const ScratchDirectory dir;
  write_report_sample_runs(dir);
  ReportOptions options;
  options.files = {dir / "rank0.cprof", dir / "rank1.cprof"};
  options.base = {dir / "base.cprof"};
  options.output = dir / "report.html";
  const ReportRunResult run = run_report_command(options);
  CHECK(run.status == 0);
  CHECK(run.warnings.empty());
  const std::string page = read_report_file(options.output);

  computeprof::tools::StatsOptions summary;
  summary.files = options.files;
  const std::string stats = report_stats_json(summary);
  // The sample's kernels, copies and idle table are all there.
  CHECK(stats.find("\"name\":\"stencil(float*, int)\"") != std::string::npos);
  CHECK(stats.find("\"gpu_idle\":[") != std::string::npos);
  CHECK(report_page_data(page, "cprof-stats") == stats);

  computeprof::tools::StatsOptions ranks = summary;
  ranks.mode = computeprof::tools::StatsOptions::Mode::ranks;
  const std::string ranks_json = report_stats_json(ranks);
  CHECK(ranks_json.find("\"stragglers\":[\n{\"rank\":\"1\"") != std::string::npos);
  CHECK(report_page_data(page, "cprof-ranks") == ranks_json);

  for (std::size_t i = 0; i < options.files.size(); ++i) {
    computeprof::tools::StatsOptions one;
    one.files = {options.files[i]};
    CHECK(report_page_data(page, fmt::format("cprof-file-stats-{}", i)) == report_stats_json(one));
  }
  CHECK_FALSE(report_page_data(page, "cprof-file-stats-2"));

  computeprof::tools::StatsOptions compare;
  compare.mode = computeprof::tools::StatsOptions::Mode::compare;
  compare.files = options.base;
  compare.new_files = options.files;
  const std::string compare_json = report_stats_json(compare);
  CHECK(compare_json.find("\"verdict\":\"regressed\"") != std::string::npos);
  CHECK(report_page_data(page, "cprof-compare") == compare_json);

  CHECK(report_page_data(page, "cprof-files") == fmt::format("[\"{}\",\"{}\"]", options.files[0], options.files[1]));
}

TEST_CASE("report: the timeline's tracks: streams, a thread's calls and NVTX ranges, memory, and what was never freed",
          "[report]") {
  const ScratchDirectory dir;
  write_report_sample_runs(dir);
  ReportOptions options;
  options.files = {dir / "rank0.cprof"};
  options.output = dir / "report.html";
  REQUIRE(run_report_command(options).status == 0);
  const std::optional<std::string> description = report_page_data(read_report_file(options.output), "cprof-timeline-description");
  REQUIRE(description);
  // 200 iterations: stream 7 two copies and a kernel each, stream 8 a kernel; the
  // thread's four calls that made them and a synchronization, with the three calls of
  // memtrace; two NVTX ranges; the device's use after each of the three memory calls.
  CHECK(description->find("\"tracks\":[\n"
                          "{\"kind\":\"operations\",\"process\":0,\"device\":0,\"stream\":7,\"items\":600},\n"
                          "{\"kind\":\"operations\",\"process\":0,\"device\":0,\"stream\":8,\"items\":200},\n"
                          "{\"kind\":\"calls\",\"process\":0,\"thread\":100,\"items\":1003},\n"
                          "{\"kind\":\"ranges\",\"process\":0,\"thread\":100,\"items\":400},\n"
                          "{\"kind\":\"memory\",\"process\":0,\"device\":0,\"items\":3}],\n") != std::string::npos);
  CHECK(description->find("\"rank\":0,\"devices\":[{\"device\":0,\"name\":\"Simulated GPU\"}],"
                          "\"memory\":{\"devices\":[{\"device\":0,\"peak_bytes\":68157440,") != std::string::npos);
  CHECK(description->find("\"never_freed\":1,\"never_freed_bytes\":1048576,") != std::string::npos);
}

TEST_CASE("report: a kernel named like the page's markup stays data: the page holds no such text", "[report]") {
  const ScratchDirectory dir;
  computeprof::records::RangeTable ranges;
  computeprof::runfile::RunEncoder encoder(ranges, nullptr);
  computeprof::runfile::RunHeader header;
  header.pid = 9;
  header.program = "</script><script>alert(1)</script>";
  std::string file = computeprof::runfile::encode_header(header);
  computeprof::records::ContextInfo context;
  context.number = 1;
  computeprof::records::Record r;
  r.method = "</script><img src=x onerror=alert(1)>";
  r.api = "cuLaunchKernel";
  r.gpu_start_ns = 1'000'000;
  r.gpu_end_ns = 2'000'000;
  r.gputime_ns = 1'000'000;
  encoder.operation(context, r);
  encoder.end();
  file += encoder.take_chunk();
  const std::string run = dir / "hostile.cprof";
  std::ofstream(run, std::ios::binary) << file;
  ReportOptions options;
  options.files = {run};
  options.output = dir / "report.html";
  REQUIRE(run_report_command(options).status == 0);
  const std::string page = read_report_file(options.output);
  CHECK(page.find("alert(1)") == std::string::npos);
  CHECK(report_page_data(page, "cprof-stats")->find("\"name\":\"</script><img src=x onerror=alert(1)>\"") !=
        std::string::npos);
}

TEST_CASE("report: an operation never timed is left off the timeline, its call kept", "[report]") {
  const ScratchDirectory dir;
  computeprof::records::RangeTable ranges;
  computeprof::runfile::RunEncoder encoder(ranges, nullptr);
  computeprof::runfile::RunHeader header;
  header.pid = 10;
  header.program = "untimed";
  std::string file = computeprof::runfile::encode_header(header);
  computeprof::records::ContextInfo context;
  context.number = 1;
  context.origin = {0, 5'000'000};
  computeprof::records::Record r;
  r.method = "_Z4spiny";
  r.api = "cuLaunchKernel";
  r.correlation_id = 1;
  r.timestamp_ns = 100;
  r.cputime_ns = 50;
  encoder.operation(context, r);  // no GPU times
  r.correlation_id = 2;
  r.timestamp_ns = 200;
  r.gpu_start_ns = 5'000'300;
  r.gpu_end_ns = 5'000'400;
  r.gputime_ns = 100;
  encoder.operation(context, r);
  encoder.end();
  file += encoder.take_chunk();
  const std::string run = dir / "untimed.cprof";
  std::ofstream(run, std::ios::binary) << file;
  ReportOptions options;
  options.files = {run};
  options.output = dir / "report.html";
  REQUIRE(run_report_command(options).status == 0);
  const std::optional<std::string> description =
      report_page_data(read_report_file(options.output), "cprof-timeline-description");
  REQUIRE(description);
  // Time 0 is the first call's start, not the untimed operation's.
  CHECK(description->starts_with("{\"origin_ns\":\"5000100\","));
  CHECK(description->find("\"tracks\":[\n"
                          "{\"kind\":\"operations\",\"process\":0,\"device\":0,\"stream\":0,\"items\":1},\n"
                          "{\"kind\":\"calls\",\"process\":0,\"thread\":0,\"items\":2}],\n") != std::string::npos);
}
