#include "config/report.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <iterator>
#include <mutex>
#include <set>
#include <string>

namespace computeprof::config {
namespace {

// The length of the UTF-8 character that starts `s` (RFC 3629: no overlong forms, no
// surrogates), or 0 where none does. C1 controls (U+0080..U+009F) count as none: some
// terminals obey U+009B like ESC [.
std::size_t printable_utf8_length(std::string_view s) {
  auto lead = static_cast<unsigned char>(s[0]);
  std::size_t length = lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3
                       : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
  if (length == 0 || length > s.size()) return 0;
  unsigned char low = lead == 0xC2 ? 0xA0 : lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
  unsigned char high = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
  auto second = static_cast<unsigned char>(s[1]);
  if (second < low || second > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if ((static_cast<unsigned char>(s[k]) & 0xC0) != 0x80) return 0;
  }
  return length;
}

void append_escaped_byte(std::string& out, unsigned char u) {
  switch (u) {
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: fmt::format_to(std::back_inserter(out), "\\x{:02x}", u);
  }
}

// Appends `text` with everything a terminal could act on escaped, stopping before the
// character that would take it past `limit` bytes of `text`. Returns the bytes used.
std::size_t append_escaped(std::string& out, std::string_view text, std::size_t limit, bool escape_backslash) {
  std::size_t used = 0;
  while (used < text.size()) {
    auto u = static_cast<unsigned char>(text[used]);
    std::size_t length = u < 0x80 ? 1 : printable_utf8_length(text.substr(used));
    if (used + (length == 0 ? 1 : length) > limit) break;
    if (length == 0 || u < 0x20 || u == 0x7f) {
      append_escaped_byte(out, u);
      ++used;
      continue;
    }
    if (u == '\\' && escape_backslash) out.push_back('\\');
    out.append(text.substr(used, length));
    used += length;
  }
  return used;
}

// What warn hands the sink: the callers' text, unable to break the line.
std::string escaped_line(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  append_escaped(out, line, line.size(), false);
  return out;
}

void write_to_stderr(std::string_view line, void*) {
  // One write per line keeps lines from different threads and processes whole.
  std::string text;
  text.reserve(line.size() + 14);
  text.append("computeprof: ").append(line).push_back('\n');
  std::string_view rest = text;
  while (!rest.empty()) {
    ssize_t n = ::write(STDERR_FILENO, rest.data(), rest.size());
    if (n <= 0) return;
    rest.remove_prefix(static_cast<size_t>(n));
  }
}

struct Reporter {
  std::mutex mutex;
  WarningSink sink = write_to_stderr;
  void* user = nullptr;
  std::set<std::string, std::less<>> printed_once;
};

Reporter& reporter() {
  // Leaked on purpose: warnings may come from atexit handlers after static destructors.
  static Reporter* r = new Reporter;
  return *r;
}

}  // namespace

void set_warning_sink(WarningSink sink, void* user) {
  Reporter& r = reporter();
  std::lock_guard lock(r.mutex);
  r.sink = sink ? sink : write_to_stderr;
  r.user = sink ? user : nullptr;
}

void warn(std::string_view line) {
  std::string shown = escaped_line(line);
  Reporter& r = reporter();
  std::lock_guard lock(r.mutex);
  r.sink(shown, r.user);
}

void warn_once(std::string_view line) {
  std::string shown = escaped_line(line);
  Reporter& r = reporter();
  std::lock_guard lock(r.mutex);
  if (!r.printed_once.emplace(shown).second) return;
  r.sink(shown, r.user);
}

void reset_warned_once() {
  Reporter& r = reporter();
  std::lock_guard lock(r.mutex);
  r.printed_once.clear();
}

std::string escape_for_warning(std::string_view value) {
  std::string out;
  std::size_t used = append_escaped(out, value, kWarningValueLimit, true);
  if (used < value.size()) out += "...";
  return out;
}

}  // namespace computeprof::config
