#include "tools/usage.hpp"

#include <string_view>

#include "config/counters.hpp"
#include "tools/options.hpp"

namespace computeprof::tools {
namespace {

constexpr std::string_view kUsage = R"(Usage: computeprof [options] [--] application [arguments...]
       computeprof --query-counters [--chip NAME] [--config FILE]
                   [--counters a,b]
       computeprof stats [--format text|csv|json] FILE...
       computeprof stats --ranks [--straggler PCT] [--format F] FILE...
       computeprof stats --compare [--max-regress PCT] [--format F]
                   BASE... -- NEW...
       computeprof merge TRACE... -o OUT.json[.gz]|OUT.pftrace [--align NAME]
       computeprof export RUN.cprof... --to FORMATS [-o STEM] [-f]
       computeprof report [--compare BASE... --] FILE... -o OUT.html [-f]
       computeprof nvprof [nvprof options] application [arguments...]
       computeprof stacks FILE.stacks
       computeprof --version | --help

Runs the application with libcomputeprof.so preloaded and COMPUTE_PROFILE=1:
every kernel launch and memory copy it makes is a record in the classic
COMPUTE_PROFILE log.

@OPTIONS@

stats FILE...: nvprof's summary table of GPU activities from logs (key-value or
CSV, several added together), databases written with --export sqlite, JSON
traces and run files (.cprof).
  --ranks          the files as the ranks of one job: per kernel its calls and
                   GPU time over the ranks (min, median, max, coefficient of
                   variation, slowest rank), then the stragglers
  --straggler PCT  a straggler's GPU time is more than PCT above the median
                   rank's (default 10)
  --compare BASE... -- NEW...
                   per kernel the change of total and average GPU time; exit
                   status 1 when a kernel with at least 1% of the GPU time got
                   slower on average by more than --max-regress PCT (default 10)
  --format F       text (default), csv or json

merge TRACE... -o OUT.json[.gz]|OUT.pftrace: the JSON traces of several
processes (plain or gzip, --export json or json.gz; a run file's trace is made
from it) as one trace on one time axis (Perfetto's own with .pftrace), by each
file's wall-clock anchor, one group of tracks per rank, each named after it:
rank N (host, pid)
--align NAME shifts each rank so that the first end of the kernel or NVTX
range NAME coincides with rank 0's, and prints each rank's shift, a line each:
rank N: +S ns (FILE)

export RUN.cprof... --to FORMATS: the exports (json, json.gz, pftrace, sqlite,
nvprof, joined by commas) made from run files (--export cprof or --export-when
later): a finished run, a killed one (every record to its last flush point) or
one still running (what it flushed so far); each beside its run file, or at
STEM.json ... with -o STEM; an existing file is overwritten only with -f.

report FILE... -o OUT.html: one HTML page that works offline (no network, no
script from elsewhere) from the files stats reads: the timeline of the run files
(streams, API calls, NVTX ranges, memory), the tables of stats (with those of
--ranks for several files), memory peak and leaks, and an analysis of what to
fix; --compare BASE... -- adds stats --compare's table and the regressions. An
existing OUT.html is overwritten only with -f.

nvprof ...: nvprof's command line (-o, --log-file, --csv, --print-gpu-trace,
--print-api-trace, ...) and its outputs; also the command run as nvprof.

stacks FILE.stacks: the call stacks of a run (callstack) with their frames
named again from the binaries or debug files on this machine, found through
the module list beside it (FILE.modules).

Environment:
  COMPUTEPROF_LIBRARY  the libcomputeprof.so to preload; by default, relative to
                       computeprof: the install's library directory, then
                       ../shim (the build tree)
  COMPUTEPROF_CUPTI_LIBRARY
                       the libcupti.so.13 to use; by default the loader's
                       search, then the CUDA toolkit computeprof was built with

Exit status: the application's, or 128 + the number of the signal that ended it;
2 for a usage error, 126 or 127 when the application cannot be run.
--query-counters: 0, 1 when CUPTI cannot be loaded, 2 for a chip CUPTI does not
know or an unreadable config file.

Counters:
)";

constexpr std::size_t kLineWidth = 80;
constexpr std::string_view kIndent = "  ";
constexpr std::size_t kHelpColumn = 22;

// "  -o, --output PATH", "  --callstack[=DEPTH]": the option as it is given.
std::string spelled_option(const Option& option) {
  std::string spelled(kIndent);
  if (option.short_name != '\0') spelled.append("-").append(1, option.short_name).append(", ");
  spelled.append("--").append(option.long_name);
  if (option.value == Option::Value::required) spelled.append(" ").append(option.value_name);
  if (option.value == Option::Value::optional_after_equals) spelled.append("[=").append(option.value_name).append("]");
  return spelled;
}

// The option, then its help from kHelpColumn on: beside it, or below when it is too long.
void append_option(const Option& option, std::string& text) {
  std::string line = spelled_option(option);
  if (line.size() + 2 > kHelpColumn) {
    text.append(line).push_back('\n');
    line.clear();
  }
  std::string_view help = option.help;
  while (true) {
    const std::size_t end_of_line = help.find('\n');
    line.resize(kHelpColumn, ' ');
    text.append(line).append(help.substr(0, end_of_line)).push_back('\n');
    if (end_of_line == std::string_view::npos) return;
    help.remove_prefix(end_of_line + 1);
    line.clear();
  }
}

// The command's own options, then the config options: every row of the table, a line
// each (more for a longer help).
std::string options_text() {
  std::string text = "Options:\n";
  for (const Option& option : options()) {
    if (option.effect != Option::Effect::config_line) append_option(option, text);
  }
  text.append("\nConfig options (each is a line of the config file, added to --config's):\n");
  for (const Option& option : options()) {
    if (option.effect == Option::Effect::config_line) append_option(option, text);
  }
  return text;
}

}  // namespace

std::string usage_text() {
  std::string text(kUsage);
  text.replace(text.find("@OPTIONS@\n"), std::string_view("@OPTIONS@\n").size(), options_text());
  std::string line(kIndent);
  for (const config::LegacyCounter& counter : config::legacy_counters()) {
    if (line.size() > kIndent.size() && line.size() + 1 + counter.name.size() > kLineWidth) {
      text.append(line).push_back('\n');
      line = kIndent;
    }
    if (line.size() > kIndent.size()) line.push_back(' ');
    line.append(counter.name);
  }
  text.append(line).push_back('\n');
  return text;
}

}  // namespace computeprof::tools
