// The NVTX names and paths every output reads (records/range_table), the capture
// window's config lines, and the summary's range table (reports/range_summary).
#include "catch.hpp"

#include <string>
#include <vector>

#include "config/profile_config.hpp"
#include "reports/range_summary.hpp"
#include "records/range_table.hpp"
#include "warning_capture.hpp"

using namespace computeprof;
using computeprof::test::WarningCapture;

TEST_CASE("range names: kept as valid UTF-8, control characters as spaces, at most the limit", "[nvtx]") {
  CHECK(records::safe_range_text("plain name") == "plain name");
  CHECK(records::safe_range_text("tab\there\nnewline\x7f") == "tab here newline ");
  CHECK(records::safe_range_text("w\xc3\xbcnsch") == "w\xc3\xbcnsch");
  CHECK(records::safe_range_text("bad \xff\xc3 end") == "bad \xef\xbf\xbd\xef\xbf\xbd end");
  CHECK(records::safe_range_text("\xed\xa0\x80") == "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate
  // 255 bytes and a 2-byte character: the character does not fit, and is left out whole.
  const std::string long_name = std::string(255, 'a') + "\xc3\xbc";
  CHECK(records::safe_range_text(long_name) == std::string(255, 'a'));
}

TEST_CASE("range paths: interned once, outermost first, domain-qualified", "[nvtx]") {
  records::RangeTable table;
  const auto step = table.intern_name("ProfilerStep#3");
  const auto forward = table.intern_name("forward");
  CHECK(table.intern_name("forward") == forward);
  CHECK(table.intern_name("") == 0);
  const auto lib = table.add_domain(table.intern_name("lib"));
  const auto a = table.intern_path(0, 0, step);
  const auto b = table.intern_path(a, 0, forward);
  const auto c = table.intern_path(b, lib, table.intern_name("layer"));
  CHECK(table.intern_path(a, 0, forward) == b);
  CHECK(table.path_text(0).empty());
  CHECK(table.path_text(a) == "ProfilerStep#3");
  CHECK(table.path_text(b) == "ProfilerStep#3/forward");
  CHECK(table.path_text(c) == "ProfilerStep#3/forward/layer@lib");
  CHECK(table.step(c).parent == b);
  CHECK(table.raw_name(table.intern_name("x\x01y")) == "x\x01y");
  CHECK(table.name(table.intern_name("x\x01y")) == "x y");
  // Past the path's limit, deeper ranges are left out of the text.
  auto deep = c;
  const auto long_name = table.intern_name(std::string(records::kRangeNameLimit, 'n'));
  for (int i = 0; i < 8; ++i) deep = table.intern_path(deep, 0, long_name);
  CHECK(table.path_text(deep).size() <= records::kRangePathLimit);
  CHECK(table.path_text(deep).starts_with("ProfilerStep#3/forward/layer@lib/nnnn"));
}

TEST_CASE("capturerange and capturerangeend lines", "[nvtx][config]") {
  WarningCapture warnings;
  auto c = config::parse_profile_config("capturerange nvtx iter@train\ncapturerangeend repeat:3\n", "cfg");
  CHECK(warnings.lines().empty());
  CHECK(c.capture_range.name == "iter");
  CHECK(c.capture_range.domain == "train");
  CHECK(c.capture_range.instances == 3);
  c = config::parse_profile_config("capturerange nvtx:ProfilerStep#100\n", "cfg");
  CHECK(c.capture_range.name == "ProfilerStep#100");
  CHECK(c.capture_range.domain.empty());
  CHECK(c.capture_range.instances == 1);
  c = config::parse_profile_config("capturerange cuda\ncapturerangeend repeat:0\ncapturerangeend never\n", "cfg");
  CHECK_FALSE(c.capture_range.active());
  CHECK(warnings.lines() ==
        std::vector<std::string>{"cfg:1: capturerange needs nvtx NAME[@DOMAIN], not 'cuda'; ignored",
                                 "cfg:2: capturerangeend needs stop or repeat:N, not 'repeat:0'; ignored",
                                 "cfg:3: capturerangeend needs stop or repeat:N, not 'never'; ignored"});
}

TEST_CASE("the summary's range table: instances, wall times, GPU time counted once per name", "[nvtx][summary]") {
  reports::RangeSummary s;
  s.add_range("step", 3000);
  s.add_range("step", 1000);
  s.add_range("forward", 1500);
  s.add_gpu_time_of_path("step/forward/forward", 700);
  s.add_gpu_time_of_path("step", 100);
  CHECK(reports::format_range_summary(s.rows(), "==1== ") ==
        "==1== NVTX ranges:\n"
        "Instances      Time       Avg       Min       Max  GPU time  Name\n"
        "        2  4.0000us  2.0000us  1.0000us  3.0000us     800ns  step\n"
        "        1  1.5000us  1.5000us  1.5000us  1.5000us     700ns  forward\n");
}
