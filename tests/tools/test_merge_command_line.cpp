// computeprof merge's command line: the traces, -o and --align in any order.
#include <string_view>
#include <vector>

#include "catch.hpp"
#include "tools/merge_command.hpp"

using namespace computeprof::tools;

namespace {

std::variant<MergeOptions, UsageError> parse(std::vector<std::string_view> args) {
  return parse_merge_command_line(args);
}

}  // namespace

TEST_CASE("merge command line: traces, output and --align in any order", "[merge]") {
  CHECK(parse({"a.json", "-o", "out.json.gz", "b.json.gz", "--align", "step"}) ==
        std::variant<MergeOptions, UsageError>(MergeOptions{{"a.json", "b.json.gz"}, "out.json.gz", "step"}));
  CHECK(parse({"--output=o.json", "--align=all reduce", "--", "-odd.json"}) ==
        std::variant<MergeOptions, UsageError>(MergeOptions{{"-odd.json"}, "o.json", "all reduce"}));
}

TEST_CASE("merge command line: what is missing or unknown is a usage error", "[merge]") {
  using V = std::variant<MergeOptions, UsageError>;
  CHECK(parse({"a.json"}) == V(UsageError{"merge needs -o OUT.json, -o OUT.json.gz or -o OUT.pftrace (see computeprof --help)"}));
  CHECK(parse({"-o", "x.json"}) == V(UsageError{"merge needs at least one JSON trace (see computeprof --help)"}));
  CHECK(parse({"a.json", "-o"}) == V(UsageError{"merge: -o needs a file name (see computeprof --help)"}));
  CHECK(parse({"a.json", "-o", "x.json", "--align"}) ==
        V(UsageError{"merge: --align needs the name of a kernel or NVTX range (see computeprof --help)"}));
  CHECK(parse({"a.json", "-o", "x.json", "--sort"}) ==
        V(UsageError{"merge: unknown option '--sort' (see computeprof --help)"}));
}
