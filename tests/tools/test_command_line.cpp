#include "catch.hpp"

#include <initializer_list>
#include <string_view>
#include <vector>

#include "tools/command_line.hpp"

using computeprof::tools::CommandLine;
using computeprof::tools::RunOptions;
using computeprof::tools::UsageError;

namespace {

std::variant<CommandLine, UsageError> parse(std::initializer_list<std::string_view> args) {
  const std::vector<std::string_view> list(args);
  return computeprof::tools::parse_command_line(list);
}

RunOptions parsed_run(std::initializer_list<std::string_view> args) {
  const auto result = parse(args);
  REQUIRE(std::holds_alternative<CommandLine>(result));
  REQUIRE(std::get<CommandLine>(result).action == CommandLine::Action::run);
  return std::get<CommandLine>(result).run;
}

std::string parse_error(std::initializer_list<std::string_view> args) {
  const auto result = parse(args);
  REQUIRE(std::holds_alternative<UsageError>(result));
  return std::get<UsageError>(result).message;
}

CommandLine::Action parsed_action(std::initializer_list<std::string_view> args) {
  const auto result = parse(args);
  REQUIRE(std::holds_alternative<CommandLine>(result));
  return std::get<CommandLine>(result).action;
}

}  // namespace

TEST_CASE("an application alone runs with the defaults", "[command_line]") {
  const RunOptions run = parsed_run({"./app", "1", "2"});
  CHECK(run == RunOptions{false, std::nullopt, std::nullopt, {}, {"./app", "1", "2"}, {}});
}

TEST_CASE("each option sets its field", "[command_line]") {
  CHECK(parsed_run({"--csv", "./app"}).csv);
  CHECK(parsed_run({"-o", "run_%d.log", "./app"}).log_path == "run_%d.log");
  CHECK(parsed_run({"--config", "profile.cfg", "./app"}).config_path == "profile.cfg");
  CHECK(parsed_run({"--config=profile.cfg", "./app"}).config_path == "profile.cfg");
  CHECK(parsed_run({"--counters", "inst_executed", "./app"}).counters == std::vector<std::string>{"inst_executed"});
  CHECK(parsed_run({"--counters=gld_request,branch", "./app"}).counters ==
        std::vector<std::string>{"gld_request", "branch"});
}

TEST_CASE("all options together", "[command_line]") {
  const RunOptions run = parsed_run({"--csv", "-o", "out.log", "--config", "a.cfg", "--counters", "branch,inst_executed",
                                     "--counters=active_warps", "--", "./app", "-o", "x"});
  CHECK(run == RunOptions{true, "out.log", "a.cfg", {"branch", "inst_executed", "active_warps"}, {"./app", "-o", "x"}, {}});
}

TEST_CASE("a repeated -o or --config keeps the last value", "[command_line]") {
  const RunOptions run = parsed_run({"-o", "first.log", "-o", "second.log", "--config", "a", "--config", "b", "app"});
  CHECK(run.log_path == "second.log");
  CHECK(run.config_path == "b");
}

TEST_CASE("arguments after the application are the application's", "[command_line]") {
  const RunOptions run = parsed_run({"./app", "--csv", "-o", "x", "--help"});
  CHECK(run == RunOptions{false, std::nullopt, std::nullopt, {}, {"./app", "--csv", "-o", "x", "--help"}, {}});
}

TEST_CASE("a double dash ends the options, also before an application starting with '-'", "[command_line]") {
  CHECK(parsed_run({"--", "-app", "--version"}).command == std::vector<std::string>{"-app", "--version"});
  CHECK(parsed_run({"--csv", "--", "./app"}).command == std::vector<std::string>{"./app"});
}

TEST_CASE("help and version are actions", "[command_line]") {
  CHECK(parsed_action({"--help"}) == CommandLine::Action::help);
  CHECK(parsed_action({"-h"}) == CommandLine::Action::help);
  CHECK(parsed_action({"--version"}) == CommandLine::Action::version);
  CHECK(parsed_action({"--csv", "--version", "./app"}) == CommandLine::Action::version);
}

TEST_CASE("usage errors", "[command_line]") {
  CHECK(parse_error({}) == "no application to run (see computeprof --help)");
  CHECK(parse_error({"--csv"}) == "no application to run (see computeprof --help)");
  CHECK(parse_error({"--csv", "--"}) == "no application to run (see computeprof --help)");
  CHECK(parse_error({"--config"}) == "option '--config' needs a value (see computeprof --help)");
  CHECK(parse_error({"--config=", "./app"}) == "option '--config' needs a value (see computeprof --help)");
  CHECK(parse_error({"--counters"}) == "option '--counters' needs a value (see computeprof --help)");
  CHECK(parse_error({"--csv=1", "./app"}) == "option '--csv' takes no value (see computeprof --help)");
  CHECK(parse_error({"--help=x"}) == "option '--help' takes no value (see computeprof --help)");
  CHECK(parse_error({"--frobnicate", "./app"}) == "unknown option '--frobnicate' (see computeprof --help)");
  CHECK(parse_error({"-x", "./app"}) == "unknown option '-x' (see computeprof --help)");
  CHECK(parse_error({"-", "./app"}) == "unknown option '-' (see computeprof --help)");
}

TEST_CASE("counters must be legacy counter names", "[command_line]") {
  CHECK(parse_error({"--counters", "bogus", "./app"}) == "unknown counter 'bogus' (see computeprof --help)");
  CHECK(parse_error({"--counters=branch,Branch", "./app"}) == "unknown counter 'Branch' (see computeprof --help)");
  CHECK(parse_error({"--counters", "branch,,inst_executed", "./app"}) ==
        "empty counter name in --counters 'branch,,inst_executed' (see computeprof --help)");
  CHECK(parse_error({"--counters", "branch,", "./app"}) ==
        "empty counter name in --counters 'branch,' (see computeprof --help)");
}

TEST_CASE("query-counters takes a chip and the counter options", "[command_line]") {
  using computeprof::tools::QueryOptions;
  const auto query = [](std::initializer_list<std::string_view> args) {
    const auto result = parse(args);
    REQUIRE(std::holds_alternative<CommandLine>(result));
    REQUIRE(std::get<CommandLine>(result).action == CommandLine::Action::query_counters);
    return std::get<CommandLine>(result).query;
  };
  CHECK(query({"--query-counters"}) == QueryOptions{"GH100", std::nullopt, {}});
  CHECK(query({"--chip=TU102", "--query-counters", "--config", "a.cfg", "--counters", "branch"}) ==
        QueryOptions{"TU102", "a.cfg", {"branch"}});
  CHECK(parse_error({"--query-counters", "./app"}) ==
        "--query-counters runs no application ('./app') (see computeprof --help)");
  CHECK(parse_error({"--query-counters", "--csv"}) ==
        "option '--csv' cannot be used with --query-counters (see computeprof --help)");
  CHECK(parse_error({"--query-counters", "-o", "x.log"}) ==
        "option '-o' cannot be used with --query-counters (see computeprof --help)");
  CHECK(parse_error({"--chip", "GH100", "./app"}) == "option '--chip' needs --query-counters (see computeprof --help)");
  CHECK(parse_error({"--query-counters", "--chip"}) == "option '--chip' needs a value (see computeprof --help)");
  CHECK(parse_error({"--query-counters=1"}) == "option '--query-counters' takes no value (see computeprof --help)");
}

TEST_CASE("config options are config file lines, in the order given", "[command_line]") {
  const RunOptions run =
      parsed_run({"--export", "json,sqlite", "--print-summary", "--memtrace", "--callstack", "--callstack=8",
                  "--kernels", "1::vecAdd:2", "--kernels=regex:^_Z4spin", "--kernel-exclude", "Sum$", "--launch-skip",
                  "2", "--launch-count=3", "--kernel-filter-scope", "all", "--conckerneltrace", "./app", "--memtrace"});
  CHECK(run.config_lines == std::vector<std::string>{"export json,sqlite", "summary", "memtrace", "callstack",
                                                     "callstack 8", "kernels 1::vecAdd:2", "kernels regex:^_Z4spin",
                                                     "kernelexclude Sum$", "launchskip 2", "launchcount 3",
                                                     "kernelfilterscope all", "conckerneltrace"});
  CHECK(run.command == std::vector<std::string>{"./app", "--memtrace"});
}

TEST_CASE("the depth of --callstack comes only after '=': the next argument is the application", "[command_line]") {
  const RunOptions run = parsed_run({"--callstack", "16"});
  CHECK(run.config_lines == std::vector<std::string>{"callstack"});
  CHECK(run.command == std::vector<std::string>{"16"});
}

TEST_CASE("config options are judged by the config file's rules", "[command_line]") {
  CHECK(parse_error({"--export", "perfetto", "./app"}) ==
        "option '--export': unknown export format 'perfetto' (json, json.gz, pftrace, sqlite, nvprof, cprof) (see "
        "computeprof --help)");
  CHECK(parse_error({"--kernels", "1:x:spin", "./app"}) ==
        "option '--kernels': kernels '1:x:spin': the stream is not a number (see computeprof --help)");
  CHECK(parse_error({"--launch-count", "-1", "./app"}) ==
        "option '--launch-count': launchcount needs a number of launches, not '-1' (see computeprof --help)");
  CHECK(parse_error({"--kernel-filter-scope", "some", "./app"}) ==
        "option '--kernel-filter-scope': kernelfilterscope needs counters or all, not 'some' (see computeprof --help)");
  CHECK(parse_error({"--callstack=0", "./app"}) ==
        "option '--callstack': callstack depth must be 1 to 128, not '0'; using 32 (see computeprof --help)");
  CHECK(parse_error({"--kernel-exclude", "(", "./app"}) ==
        "option '--kernel-exclude': kernelexclude '(': not a regular expression: missing ): ( (see computeprof --help)");
  CHECK(parse_error({"--kernel-exclude", "(a)\\1", "./app"}) ==
        "option '--kernel-exclude': kernelexclude '(a)\\\\1': a backreference (\\1) is not supported: patterns are "
        "RE2's syntax, without backreferences or lookaround (see computeprof --help)");
  CHECK(parse_error({"--kernels", "regex:(?<=vec)Add", "./app"}) ==
        "option '--kernels': kernels 'regex:(?<=vec)Add': lookbehind (?<=...) is not supported: patterns are RE2's "
        "syntax, without backreferences or lookaround (see computeprof --help)");
  CHECK(parse_error({"--kernels", "vecAdd\ntimestamp", "./app"}) ==
        "option '--kernels': a value is one line (see computeprof --help)");
  CHECK(parse_error({"--memtrace=1", "./app"}) == "option '--memtrace' takes no value (see computeprof --help)");
  CHECK(parse_error({"--kernels"}) == "option '--kernels' needs a value (see computeprof --help)");
  CHECK(parse_error({"--callstack=", "./app"}) == "option '--callstack=' needs a value (see computeprof --help)");
  CHECK(parse_error({"--query-counters", "--memtrace"}) ==
        "config options cannot be used with --query-counters (see computeprof --help)");
}

TEST_CASE("stats takes the files after it, and its options anywhere before the end of options", "[command_line]") {
  using computeprof::tools::StatsOptions;
  using computeprof::reports::TableFormat;
  const auto stats_options = [](std::initializer_list<std::string_view> args) {
    const auto result = parse(args);
    REQUIRE(std::holds_alternative<CommandLine>(result));
    REQUIRE(std::get<CommandLine>(result).action == CommandLine::Action::stats);
    return std::get<CommandLine>(result).stats;
  };
  StatsOptions plain;
  plain.files = {"a.log", "b.sqlite"};
  CHECK(stats_options({"stats", "a.log", "b.sqlite"}) == plain);
  // "--" ends the options: a file may then start with "--".
  plain.files = {"a.log", "--csv"};
  plain.format = TableFormat::csv;
  CHECK(stats_options({"stats", "a.log", "--format=csv", "--", "--csv"}) == plain);

  StatsOptions ranks;
  ranks.mode = StatsOptions::Mode::ranks;
  ranks.format = TableFormat::json;
  ranks.straggler_percent = 2.5;
  ranks.files = {"r0.log", "r1.log"};
  CHECK(stats_options({"stats", "--ranks", "r0.log", "--straggler", "2.5", "--format", "json", "r1.log"}) == ranks);

  StatsOptions compare;
  compare.mode = StatsOptions::Mode::compare;
  compare.max_regress_percent = 20;
  compare.files = {"base0.log", "base1.log"};
  compare.new_files = {"new.log"};
  CHECK(stats_options({"stats", "--compare", "--max-regress=20", "base0.log", "base1.log", "--", "new.log"}) ==
        compare);

  CHECK(parse_error({"stats"}) == "stats needs at least one log or database (see computeprof --help)");
  CHECK(parse_error({"stats", "a.log", "--csv"}) ==
        "stats: unknown option '--csv' (a file whose name starts with '--': ./--csv) (see computeprof --help)");
  CHECK(parse_error({"stats", "--format", "xml", "a.log"}) ==
        "stats: --format is text, csv or json, not 'xml' (see computeprof --help)");
  CHECK(parse_error({"stats", "--ranks", "--straggler", "-5", "a.log"}) ==
        "stats: --straggler takes a percentage (10, 2.5), not '-5' (see computeprof --help)");
  CHECK(parse_error({"stats", "--straggler", "5", "a.log"}) == "stats: --straggler needs --ranks (see computeprof --help)");
  CHECK(parse_error({"stats", "--ranks", "--compare", "a", "--", "b"}) ==
        "stats: --ranks and --compare cannot be used together (see computeprof --help)");
  CHECK(parse_error({"stats", "--compare", "a.log", "b.log"}) ==
        "stats --compare needs BASE... -- NEW... (at least one file each) (see computeprof --help)");
  CHECK(parse_error({"stats", "--compare", "a.log", "--"}) ==
        "stats --compare needs BASE... -- NEW... (at least one file each) (see computeprof --help)");
  CHECK(parse_error({"stats", "--compare", "a", "--", "b", "--", "c"}) ==
        "stats --compare: a second '--' (see computeprof --help)");
  CHECK(parse_error({"stats", "--ranks=1", "a"}) == "stats: option '--ranks' takes no value (see computeprof --help)");
  CHECK(parse_error({"stats", "a", "--format"}) == "stats: option '--format' needs a value (see computeprof --help)");
  // An application named stats runs after "--".
  CHECK(parsed_run({"--", "stats", "x"}).command == std::vector<std::string>{"stats", "x"});
}

TEST_CASE("stacks takes one stacks file", "[command_line]") {
  const auto result = parse({"stacks", "run.stacks"});
  REQUIRE(std::holds_alternative<CommandLine>(result));
  CHECK(std::get<CommandLine>(result).action == CommandLine::Action::stacks);
  CHECK(std::get<CommandLine>(result).stacks_file == "run.stacks");
  CHECK(parse_error({"stacks"}) == "stacks needs one stacks file (see computeprof --help)");
  CHECK(parse_error({"stacks", "a.stacks", "b.stacks"}) == "stacks needs one stacks file (see computeprof --help)");
  CHECK(parsed_run({"--", "stacks", "x"}).command == std::vector<std::string>{"stacks", "x"});
}

TEST_CASE("the value of -o comes attached or after it, --output is -o", "[command_line]") {
  const RunOptions expected{false, "run.log", std::nullopt, {}, {"./app", "1"}, {}};
  CHECK(parsed_run({"-orun.log", "./app", "1"}) == expected);
  CHECK(parsed_run({"-o", "run.log", "./app", "1"}) == expected);
  CHECK(parsed_run({"--output=run.log", "./app", "1"}) == expected);
  CHECK(parsed_run({"--output", "run.log", "./app", "1"}) == expected);
  CHECK(parsed_run({"--output=run_%p.log", "./app"}).log_path == "run_%p.log");
  CHECK(parsed_run({"--output=a=b.log", "./app"}).log_path == "a=b.log");
  // A value is the next argument whatever it looks like, as getopt has it.
  CHECK(parsed_run({"-o", "--csv", "./app"}) == RunOptions{false, "--csv", std::nullopt, {}, {"./app"}, {}});
}

TEST_CASE("a missing value names the option as it was given", "[command_line]") {
  CHECK(parse_error({"--output"}) == "option '--output' needs a value (see computeprof --help)");
  CHECK(parse_error({"-o"}) == "option '-o' needs a value (see computeprof --help)");
  CHECK(parse_error({"--output=", "./app"}) == "option '--output' needs a value (see computeprof --help)");
  CHECK(parse_error({"-o", "", "./app"}) == "option '-o' needs a value (see computeprof --help)");
  CHECK(parse_error({"--csv", "--export"}) == "option '--export' needs a value (see computeprof --help)");
}

TEST_CASE("abbreviated long options are refused, naming the option meant", "[command_line]") {
  CHECK(parse_error({"--out", "x.log", "./app"}) ==
        "unknown option '--out' (did you mean '--output'? abbreviations are not accepted) (see computeprof --help)");
  CHECK(parse_error({"--out=x.log", "./app"}) ==
        "unknown option '--out' (did you mean '--output'? abbreviations are not accepted) (see computeprof --help)");
  CHECK(parse_error({"--outp"}) ==
        "unknown option '--outp' (did you mean '--output'? abbreviations are not accepted) (see computeprof --help)");
  CHECK(parse_error({"--cs", "./app"}) ==
        "unknown option '--cs' (did you mean '--csv'? abbreviations are not accepted) (see computeprof --help)");
  CHECK(parse_error({"--cs=1", "./app"}) ==
        "unknown option '--cs' (did you mean '--csv'? abbreviations are not accepted) (see computeprof --help)");
  CHECK(parse_error({"--vers"}) ==
        "unknown option '--vers' (did you mean '--version'? abbreviations are not accepted) (see computeprof --help)");
  CHECK(parse_error({"--callst=8", "./app"}) ==
        "unknown option '--callst' (did you mean '--callstack'? abbreviations are not accepted) "
        "(see computeprof --help)");
}

TEST_CASE("a prefix of several long options is unknown", "[command_line]") {
  CHECK(parse_error({"--kernel", "vecAdd", "./app"}) == "unknown option '--kernel' (see computeprof --help)");
  CHECK(parse_error({"--c", "./app"}) == "unknown option '--c' (see computeprof --help)");
  CHECK(parse_error({"--launch=2", "./app"}) == "unknown option '--launch=2' (see computeprof --help)");
}

TEST_CASE("unknown options are named as given", "[command_line]") {
  CHECK(parse_error({"--outputs=x", "./app"}) == "unknown option '--outputs=x' (see computeprof --help)");
  CHECK(parse_error({"-:", "./app"}) == "unknown option '-:' (see computeprof --help)");
  CHECK(parse_error({"-?", "./app"}) == "unknown option '-?' (see computeprof --help)");
  CHECK(parse_error({"--csv", "-O", "x.log", "./app"}) == "unknown option '-O' (see computeprof --help)");
}

TEST_CASE("a lone '-' is an application only after a double dash", "[command_line]") {
  CHECK(parse_error({"--csv", "-"}) == "unknown option '-' (see computeprof --help)");
  CHECK(parsed_run({"--", "-"}).command == std::vector<std::string>{"-"});
  CHECK(parsed_run({"./app", "-"}).command == std::vector<std::string>{"./app", "-"});
}

TEST_CASE("the options end at the double dash, once", "[command_line]") {
  const RunOptions run = parsed_run({"-o", "a.log", "--", "--", "--csv", "-o", "b.log"});
  CHECK(run == RunOptions{false, "a.log", std::nullopt, {}, {"--", "--csv", "-o", "b.log"}, {}});
  // A double dash that is the value of -o ends nothing.
  CHECK(parsed_run({"-o", "--", "./app"}) == RunOptions{false, "--", std::nullopt, {}, {"./app"}, {}});
  CHECK(parse_error({"-o", "--", "-"}) == "unknown option '-' (see computeprof --help)");
}

TEST_CASE("parsing starts over on every call", "[command_line]") {
  const std::initializer_list<std::string_view> args{"--csv", "-o", "a.log", "--memtrace", "./app", "-o", "x"};
  const RunOptions expected{true, "a.log", std::nullopt, {}, {"./app", "-o", "x"}, {"memtrace"}};
  CHECK(parsed_run(args) == expected);
  CHECK(parsed_run(args) == expected);
  // -h stops the parser inside "-hx"; and an error, after "--csv": neither is where the next call begins.
  CHECK(parsed_action({"-hx"}) == CommandLine::Action::help);
  CHECK(parsed_run(args) == expected);
  CHECK(parse_error({"--csv", "--bogus", "-o", "b.log", "./app"}) == "unknown option '--bogus' (see computeprof --help)");
  CHECK(parsed_run(args) == expected);
  CHECK(parsed_run({"./app"}) == RunOptions{false, std::nullopt, std::nullopt, {}, {"./app"}, {}});
}

TEST_CASE("chip names are CUPTI's whatever their case", "[command_line]") {
  const auto result = parse({"--query-counters", "--chip", "tu102"});
  REQUIRE(std::holds_alternative<CommandLine>(result));
  CHECK(std::get<CommandLine>(result).query.chip == "TU102");
}
