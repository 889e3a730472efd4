#pragma once
// Every diagnostic computeprof prints goes through here, so that a later part can
// send them elsewhere (a log, a test) without touching the callers.
#include <string_view>

namespace computeprof::config {

// Receives one complete line, without the "computeprof: " prefix and without '\n'.
using WarningSink = void (*)(std::string_view line, void* user);

// Replaces the sink; nullptr restores the default (one write(2) per line on stderr).
void set_warning_sink(WarningSink sink, void* user);

// Prints "computeprof: <line>".
void warn(std::string_view line);

// Like warn, but a line already printed through warn_once is not printed again.
void warn_once(std::string_view line);

// Forgets what warn_once printed (tests; a forked child).
void reset_warned_once();

}  // namespace computeprof::config
