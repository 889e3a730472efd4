#include "tools/options.hpp"

namespace computeprof::tools {
namespace {

using Effect = Option::Effect;
using Value = Option::Value;

// Each config option is a config file line of docs/format.md; the parser of the config
// file judges its value, so that a flag and its line cannot disagree.
constexpr Option kOptions[] = {
    {Effect::csv, "csv", '\0', Value::none, "", "comma-separated log (COMPUTE_PROFILE_CSV=1)", ""},
    {Effect::log_path, "output", 'o', Value::required, "PATH",
     "log path (COMPUTE_PROFILE_LOG); %d device, %p process id,\n"
     "%h host name, %q{NAME} environment variable NAME, %% a %",
     ""},
    {Effect::config_path, "config", '\0', Value::required, "FILE", "options and counters to use (COMPUTE_PROFILE_CONFIG)",
     ""},
    {Effect::counters, "counters", '\0', Value::required, "a,b,...",
     "counters to collect, in addition to those of --config", ""},
    {Effect::query_counters, "query-counters", '\0', Value::none, "",
     "list each counter, its metric on today's GPUs and whether\n"
     "the chip has it; with --config or --counters, also the\n"
     "passes those counters need (CUPTI, no GPU needed)",
     ""},
    {Effect::chip, "chip", '\0', Value::required, "NAME", "the chip --query-counters asks about (default GH100)", ""},
    {Effect::version, "version", '\0', Value::none, "", "print the version", ""},
    {Effect::help, "help", 'h', Value::none, "", "print this help", ""},

    {Effect::config_line, "conckerneltrace", '\0', Value::none, "", "kernels and copies not serialized, streams overlap",
     "conckerneltrace"},
    {Effect::config_line, "export", '\0', Value::required, "FORMATS",
     "json, sqlite or json,sqlite: files of the whole process", "export"},
    {Effect::config_line, "print-summary", '\0', Value::none, "", "nvprof's table of GPU activities on stderr at exit",
     "summary"},
    {Effect::config_line, "memtrace", '\0', Value::none, "", "every allocation and free: <log>.memory, <log>_memory.svg",
     "memtrace"},
    {Effect::config_line, "callstack", '\0', Value::optional_after_equals, "DEPTH",
     "the call stack of each operation (default depth 32)", "callstack"},
    {Effect::config_line, "kernels", '\0', Value::required, "SPEC",
     "[context:[stream:]]name[:invocation], name or regex:EXPR", "kernels"},
    {Effect::config_line, "kernel-exclude", '\0', Value::required, "EXPR", "leave out kernels this regex finds",
     "kernelexclude"},
    {Effect::config_line, "launch-skip", '\0', Value::required, "N", "skip the first N selected launches", "launchskip"},
    {Effect::config_line, "launch-count", '\0', Value::required, "N", "then select at most N launches", "launchcount"},
    {Effect::config_line, "kernel-filter-scope", '\0', Value::required, "SCOPE",
     "counters (default: only counters filtered) or all", "kernelfilterscope"},
};

}  // namespace

std::span<const Option> options() { return kOptions; }

}  // namespace computeprof::tools
