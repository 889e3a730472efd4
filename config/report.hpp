#pragma once
// Every diagnostic computeprof prints goes through here, so that a later part can
// send them elsewhere (a log, a test) without touching the callers.
#include <cstddef>
#include <string>
#include <string_view>

namespace computeprof::config {

// Receives one complete line, without the "computeprof: " prefix and without '\n'.
using WarningSink = void (*)(std::string_view line, void* user);

// Replaces the sink; nullptr restores the default (one write(2) per line on stderr).
void set_warning_sink(WarningSink sink, void* user);

// Prints "computeprof: <line>". Control characters and bytes that are not UTF-8 text
// in `line` reach the sink escaped as escape_for_warning writes them (backslashes
// excepted), so that no caller can split a line or send a terminal a command.
void warn(std::string_view line);

// Like warn, but a line already printed through warn_once is not printed again.
void warn_once(std::string_view line);

// Forgets what warn_once printed (tests; a forked child).
void reset_warned_once();

// The most bytes of one user-provided value a warning shows.
inline constexpr std::size_t kWarningValueLimit = 200;

// A user-provided value (a variable, a path, a line of a file) as warnings echo it:
// its first kWarningValueLimit bytes (fewer where a UTF-8 character would be cut),
// then "..." if there was more; \n, \r, \t, other control characters, invalid UTF-8
// and C1 controls written as \n, \r, \t or \xNN, and a backslash as \\ so that the
// escapes cannot be forged by the value itself.
std::string escape_for_warning(std::string_view value);

}  // namespace computeprof::config
