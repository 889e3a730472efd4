#include "config/report.hpp"

#include <unistd.h>

#include <mutex>
#include <set>
#include <string>

namespace computeprof::config {
namespace {

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
  Reporter& r = reporter();
  std::lock_guard lock(r.mutex);
  r.sink(line, r.user);
}

void warn_once(std::string_view line) {
  Reporter& r = reporter();
  std::lock_guard lock(r.mutex);
  if (!r.printed_once.emplace(line).second) return;
  r.sink(line, r.user);
}

void reset_warned_once() {
  Reporter& r = reporter();
  std::lock_guard lock(r.mutex);
  r.printed_once.clear();
}

}  // namespace computeprof::config
