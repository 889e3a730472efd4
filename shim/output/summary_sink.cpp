#include "shim/output/summary_sink.hpp"

#include <unistd.h>

#include <fmt/format.h>

namespace computeprof::shim {

void SummarySink::write(const ProfiledContext&, const records::Record& record) {
  // A graph launch timed as a whole is no one GPU activity.
  if (record.kind == records::RecordKind::graph) return;
  summary_.add(record.method, record.gputime_ns);
}

void SummarySink::end() {
  if (printed_) return;
  printed_ = true;
  const std::string text = formats::format_summary(summary_.rows(), fmt::format("=={}== ", getpid()));
  // One write: the table stays whole beside the program's own output.
  std::string_view rest = text;
  while (!rest.empty()) {
    const ssize_t n = ::write(STDERR_FILENO, rest.data(), rest.size());
    if (n <= 0) return;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace computeprof::shim
