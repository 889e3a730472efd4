#include "catch.hpp"

#include <string>
#include <vector>

#include "config/kernel_filter.hpp"
#include "config/profile_config.hpp"
#include "warning_capture.hpp"

using namespace computeprof::config;

namespace {

KernelSpec parsed(std::string_view text) {
  std::string error;
  auto spec = parse_kernel_spec(text, error);
  INFO(text << ": " << error);
  REQUIRE(spec);
  return *spec;
}

std::string refused(std::string_view text) {
  std::string error;
  CHECK_FALSE(parse_kernel_spec(text, error));
  return error;
}

}  // namespace

TEST_CASE("kernel specs: name, context, stream and invocation fields as nvprof wrote them", "[filters]") {
  auto s = parsed("vecAdd");
  CHECK(s.name == "vecAdd");
  CHECK_FALSE(s.context);
  CHECK_FALSE(s.stream);
  CHECK_FALSE(s.invocation);
  CHECK_FALSE(s.pattern);

  s = parsed("vecAdd:3");
  CHECK(s.name == "vecAdd");
  CHECK(s.invocation == 3u);
  CHECK_FALSE(s.context);

  s = parsed("2:vecAdd");
  CHECK(s.context == 2u);
  CHECK(s.name == "vecAdd");

  s = parsed("1:7:vecAdd");
  CHECK(s.context == 1u);
  CHECK(s.stream == 7u);
  CHECK(s.name == "vecAdd");
  CHECK_FALSE(s.invocation);

  s = parsed("1:vecAdd:2");
  CHECK(s.context == 1u);
  CHECK_FALSE(s.stream);
  CHECK(s.invocation == 2u);

  s = parsed("1:7:vecAdd:4");
  CHECK(s.context == 1u);
  CHECK(s.stream == 7u);
  CHECK(s.name == "vecAdd");
  CHECK(s.invocation == 4u);

  // Empty fields match everything.
  s = parsed("::_Z4spiny:2");
  CHECK_FALSE(s.context);
  CHECK_FALSE(s.stream);
  CHECK(s.name == "_Z4spiny");
  CHECK(s.invocation == 2u);
  s = parsed(":7:spin:");
  CHECK_FALSE(s.context);
  CHECK(s.stream == 7u);
  CHECK(s.name == "spin");
  CHECK_FALSE(s.invocation);
}

TEST_CASE("kernel specs: an empty last field of two or three is any invocation, not a name", "[filters]") {
  auto s = parsed("vecAdd:");
  CHECK(s.name == "vecAdd");
  CHECK_FALSE(s.context);
  CHECK_FALSE(s.invocation);

  s = parsed("1:vecAdd:");
  CHECK(s.context == 1u);
  CHECK_FALSE(s.stream);
  CHECK(s.name == "vecAdd");
  CHECK_FALSE(s.invocation);

  s = parsed("regex:spin:");
  CHECK_FALSE(s.invocation);
  CHECK(s.pattern->found_in("spin"));  // the expression is "spin", not "spin:"
}

TEST_CASE("kernel specs: regex: takes the rest of the line, but for a last :N", "[filters]") {
  auto s = parsed("regex:^vec(Add|Sub)$");
  REQUIRE(s.pattern);
  CHECK(s.pattern->found_in("vecAdd"));
  CHECK_FALSE(s.pattern->found_in("vecMul"));
  CHECK_FALSE(s.invocation);

  s = parsed("regex:spin:2");
  CHECK(s.invocation == 2u);
  CHECK(s.pattern->found_in("_Z4spiny"));

  s = parsed("1:3:regex:a::b");
  CHECK(s.context == 1u);
  CHECK(s.stream == 3u);
  CHECK(s.pattern->found_in("x::a::by"));
  CHECK_FALSE(s.invocation);
}

TEST_CASE("kernel specs: what is refused, and why", "[filters]") {
  CHECK(refused("a:b:c:d:e") == "more than four fields (context:stream:name:invocation)");
  CHECK(refused("1:7:ns::kernel") == "more than four fields (context:stream:name:invocation)");
  CHECK(refused("x:vecAdd") == "the context is not a number");
  CHECK(refused("1:x:vecAdd:1") == "the stream is not a number");
  CHECK(refused("vecAdd:0") == "invocations count from 1");
  CHECK(refused("regex:(") == "not a regular expression: missing ): (");
  CHECK(refused("regex:(a)\\1") ==
        "a backreference (\\1) is not supported: patterns are RE2's syntax, without backreferences or lookaround");
  CHECK(refused("regex:") == "an empty regular expression");
  CHECK(refused("regex:" + std::string(600, 'a')) == "a regular expression longer than 512 characters");
}

TEST_CASE("config: filter lines add up, a bad one is one warning with file and line, and counts for nothing",
          "[filters][config]") {
  computeprof::test::WarningCapture warnings;
  const auto cfg = parse_profile_config(
      "kernels vecAdd\nkernels regex:spin\nkernelexclude ^_Z4spiny$\nlaunchskip 2\nlaunchcount 5\n"
      "kernelfilterscope all\ncallstack\n",
      "cfg");
  CHECK(warnings.lines().empty());
  const KernelFilters& f = cfg.kernel_filters;
  CHECK(f.include.size() == 2);
  CHECK(f.exclude.size() == 1);
  CHECK(f.exclude_text == std::vector<std::string>{"^_Z4spiny$"});
  CHECK(f.skip == 2);
  CHECK(f.count == 5u);
  CHECK(f.scope == FilterScope::all);
  CHECK(f.active());
  CHECK(f.counts_launches());
  CHECK(cfg.callstack_depth == 32);

  const auto none = parse_profile_config("streamid\n", "cfg");
  CHECK_FALSE(none.kernel_filters.active());
  CHECK(none.callstack_depth == 0);
  CHECK(parse_profile_config("callstack 8\n", "cfg").callstack_depth == 8);

  const auto bad = parse_profile_config(
      "kernels\nkernels 1:x:k\nkernelexclude (\nlaunchskip -1\nlaunchcount many\nkernelfilterscope some\n"
      "callstack 500\nkernels vecAdd\n",
      "cfg");
  CHECK(bad.kernel_filters.include.size() == 1);
  CHECK(bad.kernel_filters.exclude.empty());
  CHECK(bad.kernel_filters.skip == 0);
  CHECK_FALSE(bad.kernel_filters.count);
  CHECK(bad.kernel_filters.scope == FilterScope::counters);
  CHECK(bad.callstack_depth == 32);
  REQUIRE(warnings.lines().size() == 7);
  CHECK(warnings.lines()[0] == "cfg:1: kernels needs a kernel: [context:[stream:]]name[:invocation]; ignored");
  CHECK(warnings.lines()[1] == "cfg:2: kernels '1:x:k': the stream is not a number; ignored");
  CHECK(warnings.lines()[2] == "cfg:3: kernelexclude '(': not a regular expression: missing ): (; ignored");
  CHECK(warnings.lines()[3] == "cfg:4: launchskip needs a number of launches, not '-1'; ignored");
  CHECK(warnings.lines()[4] == "cfg:5: launchcount needs a number of launches, not 'many'; ignored");
  CHECK(warnings.lines()[5] == "cfg:6: kernelfilterscope needs counters or all, not 'some'; ignored");
  CHECK(warnings.lines()[6] == "cfg:7: callstack depth must be 1 to 128, not '500'; using 32");
}
