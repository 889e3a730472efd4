#pragma once
// The log index: the file (COMPUTEPROF_LOG_INDEX) to which the shim appends the absolute
// path of every log file it creates, one per line, in every process of the application,
// and, on a line starting with '!', why one could not be opened (docs/format.md).
#include <string>
#include <string_view>
#include <vector>

namespace computeprof::tools {

// What the launcher tells the user after the application exits, one line each (without
// the "computeprof: " prefix): "log written to <path>" per path, first mention order,
// each path once; or a line saying that no log was written, and why: what the shim said
// of each log it could not open, else the signal that ended the application
// (`ending_signal`, 0 when it exited), else that it made no CUDA or OpenCL calls.
std::vector<std::string> log_report_lines(std::string_view index_text, int ending_signal);

}  // namespace computeprof::tools
