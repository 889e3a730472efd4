#include "shim/output/run_file_sink.hpp"

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "config/distributed_rank.hpp"
#include "records/range_table.hpp"
#include "runfile/run_header.hpp"
#include "shim/output/log_paths.hpp"
#include "shim/process/call_stacks.hpp"
#include "shim/process/cuda_runtime_presence.hpp"

namespace computeprof::shim {

namespace {

// The process's command line as the kernel keeps it, its arguments at most 64 KiB.
std::vector<std::string> own_command_line() {
  std::vector<std::string> arguments;
  const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return arguments;
  std::string text(64 * 1024, '\0');
  std::size_t used = 0;
  while (used < text.size()) {
    const ssize_t n = ::read(fd, text.data() + used, text.size() - used);
    if (n <= 0) break;
    used += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(used);
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\0', at);
    if (end == std::string::npos) end = text.size();
    arguments.emplace_back(text, at, end - at);
    at = end + 1;
  }
  return arguments;
}

std::uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace

RunFileSink::RunFileSink(const config::Settings& settings, std::string log_template, Finished finished)
    : settings_(settings),
      log_template_(std::move(log_template)),
      finished_(std::move(finished)),
      encoder_(records::range_table(), settings.config.callstack_depth != 0
                                           ? runfile::RunEncoder::StackFrames(symbolized_stack)
                                           : runfile::RunEncoder::StackFrames()) {}

void RunFileSink::begin() {
  const std::string path = claim_export_path(log_template_, ".cprof");
  if (!open_output_file(file_, path)) return;
  runfile::RunHeader header;
  header.pid = static_cast<std::uint64_t>(getpid());
  header.program = program_invocation_short_name;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) header.host = host;
  header.rank = config::distributed_rank(config::process_env, nullptr);
  header.command_line = own_command_line();
  header.wall_ns = clock_ns(CLOCK_REALTIME);
  header.monotonic_ns = clock_ns(CLOCK_MONOTONIC);
  for (std::size_t id = 0; id < config::kLegacyCounterCount; ++id) {
    if (settings_.config.counters.test(id)) header.counters.push_back(static_cast<std::uint16_t>(id));
  }
  header.export_limit = settings_.config.export_limit;
  file_.write(runfile::encode_header(header));
}

void RunFileSink::start_chunk() {
  chunk_started_ = true;
  const auto clocks = export_base_clocks();
  encoder_.facts({cuda_runtime_present(), clocks.wall_ns, clocks.monotonic_ns});
}

void RunFileSink::write(const ProfiledContext& context, const records::Record& record) {
  if (!file_.is_open()) return;
  if (!chunk_started_) start_chunk();
  encoder_.operation(context, record);
  if (encoder_.pending_bytes() >= kChunkBytes) write_chunk();
}

void RunFileSink::write_memory(const records::MemoryEvent& event, const records::MemoryLedger&) {
  if (!file_.is_open()) return;
  if (!chunk_started_) start_chunk();
  encoder_.memory(event);
  if (encoder_.pending_bytes() >= kChunkBytes) write_chunk();
}

void RunFileSink::write_range(const records::RangeEvent& event) {
  if (!file_.is_open()) return;
  if (!chunk_started_) start_chunk();
  encoder_.range(event);
  if (encoder_.pending_bytes() >= kChunkBytes) write_chunk();
}

void RunFileSink::write_api_call(const records::ApiCall& call) {
  if (!file_.is_open()) return;
  if (!chunk_started_) start_chunk();
  encoder_.api_call(call);
  if (encoder_.pending_bytes() >= kChunkBytes) write_chunk();
}

void RunFileSink::write_chunk() {
  const std::string_view chunk = encoder_.take_chunk();
  chunk_started_ = false;
  if (!chunk.empty()) file_.write(chunk);
}

void RunFileSink::flush() { write_chunk(); }

void RunFileSink::end() {
  if (ended_) return;
  ended_ = true;
  std::string path;
  if (file_.is_open()) {
    if (!chunk_started_) start_chunk();
    encoder_.end();
    write_chunk();
    path = file_.path();
    file_.close();
  }
  if (finished_) finished_(path);
}

void RunFileSink::abandon() {
  ended_ = true;
  file_.abandon();
}

}  // namespace computeprof::shim
